#!/usr/bin/env bash
# Overhead of composite skills, whole process: `helix skill run` of a 10-step
# chain of the smallest wasm skill (testdata/composite/chain10.yaml, steps of
# testdata/skills/echo.wasm), warm compiled-module cache, median of N runs. Compared in
# the same run with one `helix skill exec` of the same skill (the floor of any
# helix process running a skill) and with ten of them in a row (the chain done
# by hand). Goal (issue 6): the chain ≤ 150 ms.
#
# usage: scripts/bench/composite.sh [RUNS]   (default 30)
# Needs PostgreSQL: HELIX_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres);
# a scratch database is created and dropped.
set -euo pipefail
runs=${1:-30}
root=$(cd "$(dirname "$0")/../.." && pwd)
server=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
work=$(mktemp -d)
db=helix_bench_composite_$$
trap 'psql "$server" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

(cd "$root" && CGO_ENABLED=0 go build -o "$work/helix" ./cmd/helix)
psql "$server" -qc "CREATE DATABASE $db" >/dev/null
export HELIX_DATABASE_URL=$(echo "$server" | sed -E "s#/[^/?]+(\?|$)#/$db\1#")
export XDG_CACHE_HOME=$work/cache
helix=$work/helix
"$helix" migrate up >/dev/null

chain="$root/testdata/composite/chain10.yaml"
echo="$root/testdata/skills/echo.wasm"
# Warm the compiled-module cache and check the outputs once.
out=$("$helix" skill run "$chain" --input '{"n": 1}' --output json)
echo "$out" | grep -q '"status": "ok"' || { echo "chain10 failed: $out" >&2; exit 1; }
"$helix" skill exec "$echo" --input '{"n": 1}' >/dev/null

# median_ms CMD...: runs CMD $N (default $runs) times, prints the median wall time in ms.
median_ms() {
  local times=() n=${N:-$runs}
  for ((i = 0; i < n; i++)); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f", m/1000}'
}
ten_execs() { for i in 1 2 3 4 5 6 7 8 9 10; do "$helix" skill exec "$echo" --input '{"n": 1}' >/dev/null; done; }

chain_ms=$(median_ms "$helix" skill run "$chain" --input '{"n": 1}')
one_ms=$(median_ms "$helix" skill exec "$echo" --input '{"n": 1}')
ten_ms=$(N=$(( runs / 3 > 3 ? runs / 3 : 3 )) median_ms ten_execs)

echo "runs: $runs (median, whole process, warm cache, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
printf '%-46s %8s ms\n' "helix skill run chain10 (10 wasm steps)" "$chain_ms" \
  "helix skill exec echo.wasm (1 skill)" "$one_ms" "10 x helix skill exec echo.wasm" "$ten_ms"
awk -v c="$chain_ms" -v o="$one_ms" -v t="$ten_ms" 'BEGIN {
  printf "chain10 / one exec: %.2fx   chain10 / ten execs: %.2fx   per extra step: %.1f ms\n", c/o, c/t, (c-o)/9
  printf "goal chain10 <= 150 ms: %s\n", (c <= 150 ? "met" : "NOT met") }'
