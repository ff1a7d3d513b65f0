#!/usr/bin/env bash
# Decode speed of helix next to ffmpeg on the same files, in one run: a
# 10-minute 128 kbit/s stereo MP3 and an AAC-LC M4A of the same audio.
# helix decodes both natively: MP3 with internal/third_party/gomp3, AAC-LC
# with internal/voice/aac (helix runs here with an empty PATH, so ffmpeg
# cannot be underneath). The reference is `ffmpeg -f s16le` (ffmpeg's float
# decoders, converted to 16 bits as a player would ask).
# Each tool runs ROUNDS times, interleaved; CPU is user+sys of the whole
# process (GNU time). On a shared machine compare CPU, not wall.
# LOAD=1 measures twice in the same run: first as the machine is, then with
# BUSY (default 8) `yes >/dev/null` processes running, and prints how much each
# ratio moved under load.
# Before timing, helix's samples are compared with ffmpeg's f32le decode of
# the same file (length, SNR, correlation; the goal is ≥ 120 dB).
# Needs: go, sox, ffmpeg, GNU time, bc (apt-get install -y sox ffmpeg time bc).
# Usage: [ROUNDS=3] [LOAD=1] [BUSY=8] scripts/bench/decode.sh [minutes]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/../.."
mins=${1:-10}
rounds=${ROUNDS:-3}
busy=${BUSY:-8}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/measure" ./scripts/bench/resample
mkdir "$work/nopath" # helix runs with this PATH: no ffmpeg to fall back on

sox -n -r 44100 -c 2 -b 16 "$work/long.wav" synth "$((mins * 60))" pinknoise sine 440 vol 0.3
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$work/long.wav" -c:a libmp3lame -b:a 128k "$work/long.mp3"
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$work/long.wav" -c:a aac -b:a 128k "$work/long.m4a"
rm "$work/long.wav"

echo "== ${mins} minutes of 44.1 kHz stereo: 128 kbit/s MP3 (LAME) and 128 kbit/s AAC-LC M4A (ffmpeg aac)"
for f in mp3 m4a; do
  ffmpeg -nostdin -hide_banner -loglevel error -y -i "$work/long.$f" -f f32le "$work/ref.f32"
  env PATH="$work/nopath" "$work/measure" decode -compare "$work/ref.f32" "$work/long.$f" | tail -n 1
done
rm -f "$work/ref.f32"

# prints "WALL CPU" seconds for a command (GNU time), its output discarded
run() {
  /usr/bin/time -o "$work/time" -f '%e %U %S' "$@" >/dev/null 2>&1
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$work/time"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure LABEL: ROUNDS interleaved rounds of both tools on both files, then
# the medians; the CPU ratios go to $work/ratio-LABEL-{mp3,m4a}
measure() {
  local label=$1
  echo
  echo "-- $label: load before: $(uptime)"
  for f in mp3 m4a; do
    : >"$work/helix-$f" && : >"$work/ffmpeg-$f"
  done
  for r in $(seq "$rounds"); do
    for f in mp3 m4a; do
      read -r hw hc < <(run env PATH="$work/nopath" "$work/measure" decode "$work/long.$f")
      read -r fw fc < <(run ffmpeg -nostdin -hide_banner -loglevel error -i "$work/long.$f" -f s16le -y /dev/null)
      echo "$hw $hc" >>"$work/helix-$f"
      echo "$fw $fc" >>"$work/ffmpeg-$f"
      printf 'round %d %s: helix wall %6.2f s cpu %6.2f s | ffmpeg wall %6.2f s cpu %6.2f s | cpu ratio %s\n' \
        "$r" "$f" "$hw" "$hc" "$fw" "$fc" "$(echo "scale=2; $hc / $fc" | bc)"
    done
  done
  echo "-- $label: load after:  $(uptime)"
  echo "medians of $rounds rounds, $label (helix ÷ ffmpeg -f s16le; goals on CPU: mp3 ≤ 0.9, m4a ≤ 0.7):"
  for f in mp3 m4a; do
    hw=$(cut -d' ' -f1 "$work/helix-$f" | median); hc=$(cut -d' ' -f2 "$work/helix-$f" | median)
    fw=$(cut -d' ' -f1 "$work/ffmpeg-$f" | median); fc=$(cut -d' ' -f2 "$work/ffmpeg-$f" | median)
    ratio=$(echo "scale=3; $hc / $fc" | bc)
    echo "$ratio" >"$work/ratio-$label-$f"
    printf '%s  helix wall %6.2f s cpu %6.2f s   ffmpeg wall %6.2f s cpu %6.2f s   cpu %.2f×  wall %.2f×\n' \
      "$f" "$hw" "$hc" "$fw" "$fc" "$ratio" "$(echo "scale=3; $hw / $fw" | bc)"
  done
}

measure as-is
if [ "${LOAD:-0}" = 1 ]; then
  for _ in $(seq "$busy"); do
    yes >/dev/null &
    pids+=($!)
  done
  sleep 5 # let the load average and the scheduler see them
  measure "loaded ($busy × yes)"
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  pids=()
  echo
  echo "CPU ratio loaded ÷ as-is (goal: within 15 %, i.e. ≤ 1.15):"
  for f in mp3 m4a; do
    a=$(cat "$work/ratio-as-is-$f"); b=$(cat "$work/ratio-loaded ($busy × yes)-$f")
    printf '%s  %.2f× → %.2f×   moved %s\n' "$f" "$a" "$b" "$(echo "scale=3; $b / $a" | bc)"
  done
fi
