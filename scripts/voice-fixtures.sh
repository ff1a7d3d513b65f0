#!/usr/bin/env bash
# Regenerates testdata/voice/: real speech from espeak-ng, converted by sox and
# ffmpeg into every container and codec helix voice decodes, plus reference
# decodes (16 kHz mono float32 raw, made by sox rate -v) for correlation tests.
# Needs: espeak-ng sox ffmpeg (apt-get install -y espeak-ng sox libsox-fmt-all ffmpeg).
set -euo pipefail
out=${1:-testdata/voice}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ff() { ffmpeg -hide_banner -loglevel error -y -bitexact "$@"; }

espeak-ng -v en-us -s 165 -w "$tmp/master.wav" \
  "Call the dentist at nine, then buy oat milk."
# master: 22050 Hz mono 16-bit, as espeak-ng speaks it
cp "$tmp/master.wav" "$out/speech-s16-22k.wav"
sox "$tmp/master.wav" -r 48000 "$tmp/m48.wav" rate -v
sox "$tmp/master.wav" -r 44100 "$tmp/m44.wav" rate -v

# WAV variants
sox "$tmp/master.wav" -b 24 -r 16000 "$out/speech-s24-16k.wav" rate -v dither -s  # sox writes 24-bit as WAVE_FORMAT_EXTENSIBLE
ff -i "$tmp/master.wav" -ar 16000 -c:a pcm_f32le "$out/speech-f32-16k.wav"
ff -i "$tmp/master.wav" -ar 8000 -c:a pcm_f64le "$out/speech-f64-8k.wav"
ff -i "$tmp/master.wav" -ar 8000 -c:a pcm_u8 "$out/speech-u8-8k.wav"
sox "$tmp/m44.wav" -c 2 -b 16 "$out/speech-s16-44k-stereo.wav" remix 1 1
sox "$tmp/m48.wav" -b 32 -e signed-integer "$out/speech-s32-48k.wav"

# compressed
ff -i "$tmp/m44.wav" -c:a libmp3lame -b:a 64k "$out/speech-64k.mp3"
ff -i "$tmp/master.wav" -c:a flac "$out/speech.flac"
ff -i "$tmp/m48.wav" -c:a libopus -b:a 32k -application voip "$out/speech-voip.webm"
# as MediaRecorder writes it: unknown Segment and Cluster sizes
ff -i "$out/speech-voip.webm" -c copy -live 1 "$out/speech-live.webm"
ff -i "$tmp/m48.wav" -c:a libopus -b:a 64k -application audio "$out/speech-audio.opus"
ff -i "$tmp/m48.wav" -c:a libopus -b:a 12k -application voip -ar 16000 "$out/speech-silk.opus"
ff -i "$tmp/m44.wav" -c:a libvorbis -q:a 4 "$out/speech.ogg"
ff -i "$tmp/m44.wav" -c:a aac -b:a 96k "$out/speech.m4a"
# MP3 beyond the mono fixture: joint stereo (a second voice, pitched up, on the
# right) and MPEG-2 at 22.05 kHz, for the gomp3-vs-upstream test
sox "$tmp/master.wav" -r 16000 "$tmp/m16.wav" rate -v
for r in 16 44 48; do
  sox "$tmp/m$r.wav" "$tmp/m${r}b.wav" pitch 300
  sox -M "$tmp/m$r.wav" "$tmp/m${r}b.wav" "$tmp/st$r.wav"
done
ff -i "$tmp/st44.wav" -c:a libmp3lame -b:a 128k "$out/speech-stereo-128k.mp3"
ff -i "$tmp/m44.wav" -ar 22050 -c:a libmp3lame -b:a 32k "$out/speech-22k-mpeg2.mp3"
# AAC-LC in M4A as ffmpeg writes it, at 16, 44.1 and 48 kHz, mono and stereo
ff -i "$tmp/m16.wav" -c:a aac -b:a 32k "$out/speech-aac-16k-mono.m4a"
ff -i "$tmp/st16.wav" -c:a aac -b:a 48k "$out/speech-aac-16k-stereo.m4a"
ff -i "$tmp/st44.wav" -c:a aac -b:a 96k "$out/speech-aac-44k-stereo.m4a"
ff -i "$tmp/m48.wav" -c:a aac -b:a 64k "$out/speech-aac-48k-mono.m4a"
ff -i "$tmp/st48.wav" -c:a aac -b:a 96k "$out/speech-aac-48k-stereo.m4a"
# and ADTS (.aac) at 22.05 kHz, and fragmented MP4 (moof/trun, as Safari's
# MediaRecorder writes audio/mp4)
ff -i "$tmp/master.wav" -c:a aac -b:a 48k "$out/speech-aac-22k.aac"
ff -i "$out/speech-aac-16k-stereo.m4a" -c copy -movflags frag_keyframe+empty_moov+default_base_moof \
  -frag_duration 500000 "$out/speech-aac-16k-stereo-frag.m4a"
# a short M4A with moov first, whole within the fuzz targets' 6,000-byte seeds
ff -i "$out/speech-aac-16k-mono.m4a" -t 0.6 -c copy -movflags +faststart "$out/speech-aac-16k-mono-short.m4a"
# ffmpeg's own decodes of the AAC fixtures, for the native decoder's test
# (internal/voice/aac): the first second as s16le, gzipped, and the full
# length in samples per channel
: >"$out/ref-ffmpeg-aac-lengths.txt"
for f in speech.m4a speech-aac-16k-mono.m4a speech-aac-16k-stereo.m4a speech-aac-44k-stereo.m4a \
  speech-aac-48k-mono.m4a speech-aac-48k-stereo.m4a speech-aac-22k.aac speech-aac-16k-stereo-frag.m4a; do
  ff -i "$out/$f" -f s16le -c:a pcm_s16le "$tmp/dec.s16"
  read -r rate ch < <(ffprobe -v error -select_streams a:0 -show_entries stream=sample_rate,channels -of csv=p=0 "$out/$f" | tr , ' ')
  echo "$f $rate $ch $(( $(stat -c %s "$tmp/dec.s16") / 2 / ch ))" >>"$out/ref-ffmpeg-aac-lengths.txt"
  head -c $(( rate * ch * 2 )) "$tmp/dec.s16" | gzip -9n >"$out/ref-ffmpeg-${f%.*}.s16.gz"
done

# references: the master, and the 8 kHz files' band-limited version
sox "$tmp/master.wav" -r 16000 -t f32 "$out/ref-16k.f32" rate -v
sox "$out/speech-s16-22k.wav" -r 8000 "$tmp/m8.wav" rate -v
sox "$tmp/m8.wav" -r 16000 -t f32 "$out/ref8k-16k.f32" rate -v
# libopus's own decodes of the Opus fixtures: lossy speech codecs at low
# bitrates do not keep the waveform, so helix's decode is compared with libopus's
for f in speech-voip.webm speech-silk.opus; do
  ff -i "$out/$f" -ac 1 -c:a pcm_f32le "$tmp/dec.wav"
  sox "$tmp/dec.wav" -r 16000 -t s16 "$out/ref-libopus-${f%%.*}-16k.s16" rate -v
done
soxi -s "$tmp/master.wav" > "$out/master-samples-22050.txt"
du -ch "$out"/* | tail -1
