#!/usr/bin/env bash
# End-to-end `helix voice convert` next to `ffmpeg -ac 1 -ar 16000` on the
# same files, interleaved: a 128 kbit/s stereo 44.1 kHz MP3 (decode.sh's
# recipe: sox pink noise + sine, LAME) and the 16-bit WAV it was made from,
# both to 16 kHz mono 16-bit WAV. CPU is user+sys of the whole process (GNU
# time); on a shared machine compare CPU, not wall.
# BASE=/path/to/older/helix adds that binary to every round (before/after).
# LOAD=N starts N busy processes (shell loops) for the run and stops them at
# the end, to measure under contention (8 on 2 cores: the issue's figure).
# Needs: go, sox, ffmpeg, GNU time, bc (apt-get install -y sox ffmpeg time bc).
# Usage: scripts/bench/convert.sh [minutes]   (default 5; ROUNDS=3)
set -euo pipefail
cd "$(dirname "$0")/../.."
mins=${1:-5}
rounds=${ROUNDS:-3}
load=${LOAD:-0}
work=$(mktemp -d)
busy=()
cleanup() {
  for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/helix" ./cmd/helix

sox -n -r 44100 -c 2 -b 16 "$work/long.wav" synth "$((mins * 60))" pinknoise sine 440 vol 0.3
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$work/long.wav" -c:a libmp3lame -b:a 128k "$work/long.mp3"

# prints "WALL CPU" seconds for a command (GNU time), its output discarded
run() {
  /usr/bin/time -o "$work/time" -f '%e %U %S' "$@" >/dev/null 2>&1
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$work/time"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

tools=(helix ffmpeg)
[ -n "${BASE:-}" ] && tools+=(base)
cmd() { # tool format
  case $1 in
  helix) echo "$work/helix voice convert --force $work/long.$2 $work/out-helix.wav" ;;
  base) echo "$BASE voice convert --force $work/long.$2 $work/out-base.wav" ;;
  ffmpeg) echo "ffmpeg -nostdin -hide_banner -loglevel error -y -i $work/long.$2 -ac 1 -ar 16000 $work/out-ffmpeg.wav" ;;
  esac
}

for ((i = 0; i < load; i++)); do
  sh -c 'while :; do :; done' &
  busy+=($!)
done

echo "== ${mins} minutes of 44.1 kHz stereo → 16 kHz mono 16-bit WAV; ${load} busy processes beside"
echo "load before: $(uptime)"
for f in mp3 wav; do for t in "${tools[@]}"; do : >"$work/$t-$f"; done; done
for r in $(seq "$rounds"); do
  for f in mp3 wav; do
    line="round $r $f:"
    for t in "${tools[@]}"; do
      read -r w c < <(run $(cmd "$t" "$f"))
      echo "$w $c" >>"$work/$t-$f"
      line+=$(printf ' %s wall %5.2f s cpu %5.2f s |' "$t" "$w" "$c")
    done
    echo "$line cpu helix/ffmpeg $(echo "scale=2; $(tail -1 "$work/helix-$f" | cut -d' ' -f2) / $(tail -1 "$work/ffmpeg-$f" | cut -d' ' -f2)" | bc)"
  done
done
echo "load after:  $(uptime)"
echo
echo "medians of $rounds rounds (helix ÷ ffmpeg CPU; goal ≤ 1.5 for the MP3):"
for f in mp3 wav; do
  line="$f"
  for t in "${tools[@]}"; do
    line+=$(printf '  %s wall %5.2f s cpu %5.2f s' "$t" "$(cut -d' ' -f1 "$work/$t-$f" | median)" "$(cut -d' ' -f2 "$work/$t-$f" | median)")
  done
  hc=$(cut -d' ' -f2 "$work/helix-$f" | median)
  fc=$(cut -d' ' -f2 "$work/ffmpeg-$f" | median)
  line+="   cpu $(echo "scale=2; $hc / $fc" | bc)×"
  if [ -n "${BASE:-}" ]; then
    line+="  (base $(echo "scale=2; $(cut -d' ' -f2 "$work/base-$f" | median) / $fc" | bc)×)"
  fi
  echo "$line"
done
