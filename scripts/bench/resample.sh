#!/usr/bin/env bash
# Resampler quality and speed of helix next to sox (rate -h: 95% bandwidth,
# 125 dB rejection; rate -v), and MP3 decode speed next to ffmpeg, in one run.
# Needs: go, sox, ffmpeg (apt-get install -y sox libsox-fmt-all ffmpeg).
# Usage: scripts/bench/resample.sh [minutes]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/../.."
mins=${1:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/helix" ./cmd/helix
go build -o "$work/measure" ./scripts/bench/resample

echo "== quality: 44.1 kHz and 48 kHz to 16 kHz"
"$work/measure" quality -dir "$work"

# prints "WALL CPU" seconds for a command (GNU time), its output discarded
run() {
  /usr/bin/time -o "$work/time" -f '%e %U %S' "$@" >/dev/null 2>&1
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$work/time"
}
ratio() { echo "scale=2; $1 / $2" | bc; }
report() { # name wall cpu [helix-wall helix-cpu]
  printf '%-42s wall %7.2f s  cpu %7.2f s' "$1" "$2" "$3"
  if [ -n "${4:-}" ]; then printf '   helix time / this: wall %s, cpu %s' "$(ratio "$4" "$2")" "$(ratio "$5" "$3")"; fi
  echo
}

echo
echo "== throughput: ${mins}-minute stereo 44.1 kHz WAV → 16 kHz mono 16-bit WAV, whole process"
sox -n -r 44100 -c 2 -b 16 "$work/long.wav" synth "$((mins * 60))" pinknoise sine 440 vol 0.3
read -r hw hc < <(run "$work/helix" voice convert "$work/long.wav" "$work/helix.wav")
read -r sw sc < <(run sox "$work/long.wav" -c 1 -b 16 "$work/sox-h.wav" rate -h 16000)
read -r vw vc < <(run sox "$work/long.wav" -c 1 -b 16 "$work/sox-v.wav" rate -v 16000)
report "helix voice convert" "$hw" "$hc"
report "sox -c 1 -b 16 rate -h 16000" "$sw" "$sc" "$hw" "$hc"
report "sox -c 1 -b 16 rate -v 16000" "$vw" "$vc" "$hw" "$hc"
echo "(helix time / this above 1: helix is slower; on a shared machine compare cpu)"

echo
echo "== MP3 decode: ${mins} minutes, 128 kbit/s stereo"
ffmpeg -hide_banner -loglevel error -y -i "$work/long.wav" -c:a libmp3lame -b:a 128k "$work/long.mp3"
read -r dw dc < <(run "$work/measure" decode "$work/long.mp3")
read -r fw fc < <(run ffmpeg -nostdin -hide_banner -loglevel error -i "$work/long.mp3" -f f32le -y /dev/null)
read -r cw cc < <(run "$work/helix" voice convert "$work/long.mp3" "$work/helix-mp3.wav")
read -r gw gc < <(run ffmpeg -nostdin -hide_banner -loglevel error -i "$work/long.mp3" -ac 1 -ar 16000 -c:a pcm_s16le -y "$work/ff.wav")
report "helix decode (gomp3, float32 out)" "$dw" "$dc"
report "ffmpeg decode to f32le" "$fw" "$fc" "$dw" "$dc"
report "helix voice convert (decode+16 kHz)" "$cw" "$cc"
report "ffmpeg -ac 1 -ar 16000 (decode+resample)" "$gw" "$gc" "$cw" "$cc"
