#!/usr/bin/env bash
# helix voice convert --denoise next to sox noisered (its classic spectral
# gate, given a noise profile taken from the same noise alone), in one run.
# Quality: espeak-ng sentences with 1 s pauses mixed with white and babble
# noise (six espeak-ng talkers) at 0, 5 and 10 dB SNR; segmental SNR against
# the clean speech (20 ms frames, clamped to [-10, 35] dB, speech frames),
# the same measure for every file. Speed: CPU of each on a 10-minute file.
# helix runs with --highpass=false so that only the noise reduction differs.
# Needs: go, espeak-ng, sox (apt-get install -y espeak-ng sox).
# Usage: scripts/bench/denoise.sh [seconds of quality material] [minutes for speed]
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
mins=${2:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/helix" ./cmd/helix
go build -o "$work/voicebench" ./scripts/bench/voicebench
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== segmental SNR (dB), ${secs} s of speech; improvement over the noisy input in brackets"
printf '%-7s %5s %8s %16s %16s %16s\n' noise snr noisy helix "sox 0.21" "sox 0.5"
for noise in white babble; do
  for snr in 0 5 10; do
    "$work/voicebench" mix -dir "$work" -noise "$noise" -snr "$snr" -seconds "$secs"
    "$work/helix" voice convert "$work/noisy.wav" "$work/helix.wav" --denoise --highpass=false --force >/dev/null
    sox "$work/noise.wav" -n noiseprof "$work/prof"
    sox "$work/noisy.wav" "$work/sox21.wav" noisered "$work/prof" 0.21
    sox "$work/noisy.wav" "$work/sox50.wav" noisered "$work/prof" 0.5
    read -r n h s21 s50 < <("$work/voicebench" segsnr "$work/clean.wav" "$work/noisy.wav" "$work/helix.wav" "$work/sox21.wav" "$work/sox50.wav" |
      sed 's/[a-z0-9]*\.wav=//g')
    printf '%-7s %5s %8.2f %8.2f (%+5.2f) %8.2f (%+5.2f) %8.2f (%+5.2f)\n' "$noise" "$snr" "$n" \
      "$h" "$(echo "$h - $n" | bc -l)" "$s21" "$(echo "$s21 - $n" | bc -l)" "$s50" "$(echo "$s50 - $n" | bc -l)"
  done
done

echo
echo "== CPU, ${mins}-minute file (white noise, 5 dB), whole process, user + sys"
"$work/voicebench" mix -dir "$work" -noise white -snr 5 -seconds "$((mins * 60))"
run() {
  /usr/bin/time -o "$work/time" -f '%e %U %S' "$@" >/dev/null 2>&1
  awk '{printf "wall %6.2f s  cpu %6.2f s\n", $1, $2 + $3}' "$work/time"
}
printf '%-52s %s\n' "helix voice convert --denoise --highpass=false" "$(run "$work/helix" voice convert "$work/noisy.wav" "$work/h.wav" --denoise --highpass=false --force)"
printf '%-52s %s\n' "sox noisered 0.21 (profile made beforehand)" "$(run sox "$work/noisy.wav" "$work/s.wav" noisered "$work/prof" 0.21)"
printf '%-52s %s\n' "sox noiseprof (30 s of noise)" "$(run sox "$work/noise.wav" -n noiseprof "$work/prof")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
