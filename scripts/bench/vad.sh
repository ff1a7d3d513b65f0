#!/usr/bin/env bash
# helix's VAD against a known timeline: 10 × (2 s espeak-ng speech, 3 s of
# silence or noise), the gaps alternating; noise white, pink and babble (six
# espeak-ng talkers) at -10 and -5 dB relative to the speech. Prints the
# speech frames kept, the non-speech frames kept and the share of the
# recording sent, and next to it what sox's silence effect (the reference:
# cut every pause over 0.3 s below 1 %) leaves of the same file.
# Needs: go, espeak-ng, sox (apt-get install -y espeak-ng sox).
# Usage: scripts/bench/vad.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/voicebench" ./scripts/bench/voicebench
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for db in -10 -5; do
  for noise in white pink babble; do
    line=$("$work/voicebench" vad -dir "$work" -noise "$noise" -db "$db")
    wav=${line##*(}; wav=${wav%)}
    sox "$wav" "$work/sox.wav" silence -l 1 0.05 1% -1 0.3 1%
    total=$(soxi -D "$wav"); kept=$(soxi -D "$work/sox.wav")
    printf '%s   sox silence: sent %5.1f %%\n' "${line% (*}" "$(echo "100 * $kept / $total" | bc -l)"
  done
done
