#!/usr/bin/env bash
# Decode speed of helix next to ffmpeg on the same files, in one run: a
# 10-minute 128 kbit/s stereo MP3 and an AAC-LC M4A of the same audio.
# helix decodes both natively: MP3 with internal/third_party/gomp3, AAC-LC
# with internal/voice/aac (helix runs here with an empty PATH, so ffmpeg
# cannot be underneath).
# Each tool runs ROUNDS times, interleaved; CPU is user+sys of the whole
# process (GNU time). On a shared machine compare CPU, not wall.
# Needs: go, sox, ffmpeg, GNU time, bc (apt-get install -y sox ffmpeg time bc).
# Usage: scripts/bench/decode.sh [minutes]   (default 10; ROUNDS=3)
set -euo pipefail
cd "$(dirname "$0")/../.."
mins=${1:-10}
rounds=${ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/measure" ./scripts/bench/resample
mkdir "$work/nopath" # helix runs with this PATH: no ffmpeg to fall back on

sox -n -r 44100 -c 2 -b 16 "$work/long.wav" synth "$((mins * 60))" pinknoise sine 440 vol 0.3
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$work/long.wav" -c:a libmp3lame -b:a 128k "$work/long.mp3"
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$work/long.wav" -c:a aac -b:a 128k "$work/long.m4a"

# prints "WALL CPU" seconds for a command (GNU time), its output discarded
run() {
  /usr/bin/time -o "$work/time" -f '%e %U %S' "$@" >/dev/null 2>&1
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$work/time"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "== ${mins} minutes of 44.1 kHz stereo: 128 kbit/s MP3 (LAME) and 128 kbit/s AAC-LC M4A (ffmpeg aac)"
echo "load before: $(uptime)"
for f in mp3 m4a; do
  : >"$work/helix-$f" && : >"$work/ffmpeg-$f"
done
for r in $(seq "$rounds"); do
  for f in mp3 m4a; do
    read -r hw hc < <(run env PATH="$work/nopath" "$work/measure" decode "$work/long.$f")
    read -r fw fc < <(run ffmpeg -nostdin -hide_banner -loglevel error -i "$work/long.$f" -f f32le -y /dev/null)
    echo "$hw $hc" >>"$work/helix-$f"
    echo "$fw $fc" >>"$work/ffmpeg-$f"
    printf 'round %d %s: helix wall %6.2f s cpu %6.2f s | ffmpeg wall %6.2f s cpu %6.2f s | cpu ratio %s\n' \
      "$r" "$f" "$hw" "$hc" "$fw" "$fc" "$(echo "scale=2; $hc / $fc" | bc)"
  done
done
echo "load after:  $(uptime)"
echo
echo "medians of $rounds rounds (helix ÷ ffmpeg; goal ≤ 2 on CPU):"
for f in mp3 m4a; do
  hw=$(cut -d' ' -f1 "$work/helix-$f" | median); hc=$(cut -d' ' -f2 "$work/helix-$f" | median)
  fw=$(cut -d' ' -f1 "$work/ffmpeg-$f" | median); fc=$(cut -d' ' -f2 "$work/ffmpeg-$f" | median)
  printf '%s  helix wall %6.2f s cpu %6.2f s   ffmpeg wall %6.2f s cpu %6.2f s   cpu %s×  wall %s×\n' \
    "$f" "$hw" "$hc" "$fw" "$fc" "$(echo "scale=2; $hc / $fc" | bc)" "$(echo "scale=2; $hw / $fw" | bc)"
done
