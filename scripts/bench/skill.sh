#!/usr/bin/env bash
# Whole-process timings of `helix skill exec` (median of many runs):
#   trivial wasm skill (Go-built echo, about 2 MB), cold (empty compilation cache)
#   and warm, and the hand-assembled testdata/skills/echo.wasm (195 bytes) warm;
#   trivial JavaScript skill (a child helix process per run), with the child
#   started while the database answers (the skill was JavaScript last time)
#   and without (the hint removed before each run).
# Goals (issue 5): warm wasm <= 30 ms, JS <= 20 ms. The floor is `helix version`
# (process start, no database), printed as the reference for the ratios.
# Also runs the hostile-skill tests with HELIX_SKILL_STRICT_TIMING=1 (each must
# end within its limit + 1 s) and the in-process Go benchmarks.
#
# Needs Go and a PostgreSQL server (HELIX_TEST_DATABASE_URL, default the test server).
# Usage: scripts/bench/skill.sh [RUNS]   (default 40; cold runs are RUNS/8)
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${1:-40}
COLD_RUNS=$(( RUNS / 8 > 3 ? RUNS / 8 : 3 ))
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
DBNAME=helix_bench_skill_$$
WORK=$(mktemp -d)
trap 'psql -q "$SERVER" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

echo "building helix and the trivial wasm skill..." >&2
CGO_ENABLED=0 go build -o "$WORK/helix" ./cmd/helix
GOOS=wasip1 GOARCH=wasm go build -trimpath -ldflags='-s -w' -o "$WORK/echo.wasm" ./testdata/skills/echo
printf 'function main(input) { return input }\n' > "$WORK/echo.js"

psql -q "$SERVER" -c "CREATE DATABASE $DBNAME" >/dev/null
export HELIX_DATABASE_URL=${SERVER%/*}/$DBNAME?${SERVER#*\?}
[[ $SERVER == *\?* ]] || export HELIX_DATABASE_URL=${SERVER%/*}/$DBNAME
export HELIX_SKILL_CACHE_DIR="$WORK/cache"
H="$WORK/helix"
"$H" migrate up >/dev/null
"$H" skill add "$WORK/echo.wasm" --name echo-wasm >/dev/null
"$H" skill add testdata/skills/echo.wasm --name echo-wat >/dev/null
"$H" skill add "$WORK/echo.js" --name echo-js >/dev/null
INPUT='{"hello":"world","n":[1,2,3]}'

# median_ms CMD...: runs CMD $N times, prints the median wall time in ms.
median_ms() {
	local n=$1; shift
	local times=()
	for ((i = 0; i < n; i++)); do
		[[ -n ${BEFORE:-} ]] && eval "$BEFORE"
		local t0 t1
		t0=$(date +%s%N)
		"$@" >/dev/null
		t1=$(date +%s%N)
		times+=($(( (t1 - t0) / 1000 )))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f\n", m / 1000}'
}

# the output must be the input, or the timings mean nothing
[[ $("$H" skill exec echo-wasm --input "$INPUT") == "$INPUT" ]] || { echo "echo-wasm gives wrong output" >&2; exit 1; }
[[ $("$H" skill exec echo-js --input "$INPUT") == '{"hello":"world","n":[1,2,3]}' ]] || { echo "echo-js gives wrong output" >&2; exit 1; }

floor=$(median_ms "$RUNS" "$H" version)
BEFORE='rm -rf "$HELIX_SKILL_CACHE_DIR"'
cold=$(median_ms "$COLD_RUNS" "$H" skill exec echo-wasm --input "$INPUT")
BEFORE=
"$H" skill exec echo-wasm --input "$INPUT" >/dev/null # fill the cache
warm=$(median_ms "$RUNS" "$H" skill exec echo-wasm --input "$INPUT")
wat=$(median_ms "$RUNS" "$H" skill exec echo-wat --input "$INPUT")
js=$(median_ms "$RUNS" "$H" skill exec echo-js --input "$INPUT")
BEFORE='rm -f "$HELIX_SKILL_CACHE_DIR"/skills/js-*' # no hint: the child starts after the database answers
jscold=$(median_ms "$RUNS" "$H" skill exec echo-js --input "$INPUT")
BEFORE=
jsfile=$(median_ms "$RUNS" "$H" skill exec "$WORK/echo.js" --input "$INPUT")

echo
echo "helix skill exec, whole process, median ms ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)):"
printf '  %-34s %8s  %s\n' "case" "median" "vs floor / goal"
printf '  %-34s %8.1f  %s\n' "helix version (process floor)" "$floor" "1.0x"
printf '  %-34s %8.1f  %.1fx floor (%d runs)\n' "wasm Go echo cold (empty cache)" "$cold" "$(echo "$cold / $floor" | bc -l)" "$COLD_RUNS"
printf '  %-34s %8.1f  %.1fx floor, %.2fx goal 30 ms\n' "wasm Go echo warm ($(( $(stat -c %s "$WORK/echo.wasm") / 1024 )) KiB module)" "$warm" "$(echo "$warm / $floor" | bc -l)" "$(echo "$warm / 30" | bc -l)"
printf '  %-34s %8.1f  %.1fx floor, %.2fx goal 30 ms\n' "wasm echo.wat warm (195 B module)" "$wat" "$(echo "$wat / $floor" | bc -l)" "$(echo "$wat / 30" | bc -l)"
printf '  %-34s %8.1f  %.1fx floor, %.2fx goal 20 ms\n' "js (registry)" "$js" "$(echo "$js / $floor" | bc -l)" "$(echo "$js / 20" | bc -l)"
printf '  %-34s %8.1f  %.1fx floor, %.2fx goal 20 ms\n' "js (registry, not prestarted)" "$jscold" "$(echo "$jscold / $floor" | bc -l)" "$(echo "$jscold / 20" | bc -l)"
printf '  %-34s %8.1f  %.1fx floor, %.2fx goal 20 ms\n' "js (file)" "$jsfile" "$(echo "$jsfile / $floor" | bc -l)" "$(echo "$jsfile / 20" | bc -l)"

echo
echo "in-process (Go benchmarks, module compiled, no database):"
go test -run XXX -bench . -benchtime 100x ./internal/skill/ | grep -E '^Benchmark'

echo
echo "hostile skills, each within its limit + 1 s (HELIX_SKILL_STRICT_TIMING=1):"
HELIX_SKILL_STRICT_TIMING=1 go test -count=1 -run 'Hostile|TrapAndNoStart' -v ./internal/skill/ | grep -E '(ok|error|timeout|memory_limit|output_limit) in |^(--- |ok|FAIL)'
