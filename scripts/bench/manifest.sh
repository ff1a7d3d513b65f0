#!/usr/bin/env bash
# Benchmark `helix manifest import` on a 5 MB OpenAPI document (the OpenAI
# description plus renamed copies of it, built by the benchmark) against the
# reference: kin-openapi alone loading and validating the same document.
# The import includes parsing, reference checks, validation, building and
# compiling every tool's parameters schema, and recording all tools in
# PostgreSQL in one transaction. Target (issue 9): < 2 s.
#
# Two measures, in the same run:
#   in-process: the Go benchmarks (cpu-s/op is the process's CPU time per
#     import: on a shared machine it is the steadier figure);
#   whole process: the built binary, `helix manifest import FILE` into a fresh
#     database (created on HELIX_TEST_DATABASE_URL's server and migrated
#     before the clock starts), wall, user+system CPU and peak RSS from GNU
#     time, median of RUNS runs.
#
# Then the same whole-process measure on a generated 20 MB, 10,000-operation
# document (the OpenAI description and renamed copies of its paths; issue 21:
# goal <= 10 s CPU and <= 500 MB peak RSS), one run (HUGE=0 skips it).
#
# Usage: scripts/bench/manifest.sh [RUNS]   (default 3; COUNT=3 iterations in-process)
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${1:-3}
count=${COUNT:-3}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
DBNAME=helix_bench_manifest_$$
WORK=$(mktemp -d)
trap 'psql -q "$SERVER" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
export PGOPTIONS=--client-min-messages=warning # for psql: helix refuses session settings as startup parameters

echo "building helix and writing the 5 MB document..." >&2
CGO_ENABLED=0 go build -o "$WORK/helix" ./cmd/helix
DOC="$WORK/openapi-5mb.json"
HELIX_BENCH_OPENAPI_OUT="$DOC" go test -count=1 -run '^TestWriteBenchDocument$' ./internal/manifest/openapi/ >/dev/null
HUGE_DOC="$WORK/openapi-20mb.json"
if [[ ${HUGE:-1} != 0 ]]; then
	HELIX_BENCH_OPENAPI_HUGE_OUT="$HUGE_DOC" go test -count=1 -run '^TestWriteHugeBenchDocument$' ./internal/manifest/openapi/ >/dev/null
fi
export HELIX_DATABASE_URL=${SERVER%/*}/$DBNAME?${SERVER#*\?}
[[ $SERVER == *\?* ]] || export HELIX_DATABASE_URL=${SERVER%/*}/$DBNAME
H=("env" "-u" "PGOPTIONS" "$WORK/helix")

echo "in-process benchmarks..." >&2
out=$(go test -run '^$' -bench 'Import5MB|KinOpenAPILoad5MB' -benchtime "${count}x" ./internal/manifest/openapi/)

echo "whole process, $RUNS runs..." >&2
walls=() cpus=() rsss=()
for ((i = 0; i < RUNS; i++)); do
	psql -q "$SERVER" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME" >/dev/null
	"${H[@]}" migrate up >/dev/null
	/usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "${H[@]}" manifest import "$DOC" --by bench >/dev/null 2>"$WORK/stderr" ||
		{ cat "$WORK/stderr" "$WORK/time" >&2; exit 1; }
	read -r e u s m <"$WORK/time"
	walls+=("$e") cpus+=("$(echo "$u + $s" | bc -l)") rsss+=("$m")
done
tools=$(psql -qtA "$HELIX_DATABASE_URL" -c "SELECT count(*) FROM tool_manifests")
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
pw=$(median "${walls[@]}") pc=$(median "${cpus[@]}") pm=$(median "${rsss[@]}")

echo
echo "$out" | grep -E '^Benchmark'
echo
echo "helix manifest import, 5 MB document ($(stat -c %s "$DOC") bytes, $tools tools), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg):"
echo "$out" | awk -v pw="$pw" -v pc="$pc" -v pm="$pm" -v runs="$RUNS" '
	/^BenchmarkImport5MB/        { for (i = 1; i <= NF; i++) { if ($(i+1) == "ns/op") hw = $i; if ($(i+1) == "cpu-s/op") hc = $i } }
	/^BenchmarkKinOpenAPILoad5MB/ { for (i = 1; i <= NF; i++) { if ($(i+1) == "ns/op") kw = $i; if ($(i+1) == "cpu-s/op") kc = $i } }
	END {
		printf "  %-40s %7s %7s  %s\n", "", "wall s", "CPU s", "vs kin-openapi alone (wall, CPU)"
		printf "  %-40s %7.2f %7.2f  %s\n", "kin-openapi load+validate alone", kw/1e9, kc, "1.00x, 1.00x"
		printf "  %-40s %7.2f %7.2f  %.2fx, %.2fx\n", "helix import, in-process", hw/1e9, hc, hw/kw, hc/kc
		printf "  %-40s %7.2f %7.2f  %.2fx, %.2fx  (peak RSS %d MB)\n", "helix import, whole process (median of " runs ")", pw, pc, pw*1e9/kw, pc/kc, pm/1024
		printf "target < 2 s wall, whole process: %s\n", (pw < 2 ? "met" : "not met on this run")
	}'

if [[ ${HUGE:-1} != 0 ]]; then
	echo "whole process, 20 MB document..." >&2
	psql -q "$SERVER" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME" >/dev/null
	"${H[@]}" migrate up >/dev/null
	/usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "${H[@]}" manifest import "$HUGE_DOC" --by bench >/dev/null 2>"$WORK/stderr" ||
		{ cat "$WORK/stderr" "$WORK/time" >&2; exit 1; }
	read -r e u s m <"$WORK/time"
	ops=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for p in d["paths"].values() for k in p if k in ("get","put","post","delete","options","head","patch","trace")))' "$HUGE_DOC")
	tools=$(psql -qtA "$HELIX_DATABASE_URL" -c "SELECT count(*) FROM tool_manifests")
	cpu=$(echo "$u + $s" | bc -l)
	echo
	echo "helix manifest import, 20 MB document ($(stat -c %s "$HUGE_DOC") bytes, $ops operations, $tools tools), load $(cut -d' ' -f1-3 /proc/loadavg):"
	printf '  wall %.2f s, CPU %.2f s (goal <= 10: %s), peak RSS %d MB (goal <= 500: %s)\n' "$e" "$cpu" \
		"$( (($(echo "$cpu <= 10" | bc -l))) && echo met || echo not met)" $((m / 1024)) "$( ((m / 1024 <= 500)) && echo met || echo not met)"
fi
