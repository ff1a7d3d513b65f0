#!/usr/bin/env bash
# Throughput of helix sync reconcile on N pending changes (default 100,000):
# one reconciler, then two started at once on separate connection pools (as
# two hosts would), then one with --concurrency 2 (two walks in one
# process). The benchmark fails unless every run processes each change
# exactly once and reaches the single reconciler's states.
# There is no reference tool for this job: the ratio printed is two
# reconcilers against one on the same input. With BASE=<git revision> the
# same benchmark also runs on that revision, interleaved with this tree's,
# R times each (default 1), for a before/after on the same machine load;
# the ratios of all rounds and their median close the output.
# Besides changes/s it prints the CPU seconds of the client and of its
# database backends, which the load of a shared machine inflates far less.
#
#   scripts/bench/sync.sh            # 100,000 changes
#   N=20000 R=3 BASE=main scripts/bench/sync.sh
#   BATCH=1000 scripts/bench/sync.sh # batches of 1,000 (default: the command's)
# With BASE, BATCH applies to both trees (default 5000 then: a revision
# before 2026-11-26 has no default of its own).
# Needs the test server of HELIX_TEST_DATABASE_URL (as make test does).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-100000} R=${R:-1} BASE=${BASE:-} BATCH=${BATCH:-}
[ -n "$BASE" ] && BATCH=${BATCH:-5000}
bench() { # dir label
  local out one two conc
  out=$(cd "$1" && HELIX_BENCH_SYNC_N=$N HELIX_BENCH_SYNC_BATCH=$BATCH go test -run '^$' -bench 'BenchmarkReconcile$' -benchtime 1x -timeout 60m ./internal/syncer)
  echo "$out" | grep -E 'reconciler [12]:' | sed "s/^/$2 /"
  one=$(echo "$out" | grep -E 'reconcilers=1-[0-9]+ ')
  two=$(echo "$out" | grep -E 'reconcilers=2-[0-9]+ ')
  conc=$(echo "$out" | grep -E 'reconcilers=1/concurrency=2-[0-9]+ ' || true)
  f() { echo "$1" | awk -v u="$2" '{for (i=1;i<=NF;i++) if ($i==u) print $(i-1)}'; }
  local ratio
  ratio=$(awk -v a="$(f "$two" changes/s)" -v b="$(f "$one" changes/s)" 'BEGIN {printf "%.2f", a/b}')
  echo "$ratio" >>"$ratios/$(echo "$2" | tr -c 'a-zA-Z0-9\n' _)"
  printf '%s  one reconciler:  %8.0f changes/s  (client %s CPU-s, database %s CPU-s, machine %s%% busy)\n' "$2" "$(f "$one" changes/s)" "$(f "$one" client-cpu-s)" "$(f "$one" db-cpu-s)" "$(f "$one" machine-busy-%)"
  printf '%s  two reconcilers: %8.0f changes/s  (client %s CPU-s, database %s CPU-s, machine %s%% busy)  ratio %s\n' "$2" "$(f "$two" changes/s)" "$(f "$two" client-cpu-s)" "$(f "$two" db-cpu-s)" "$(f "$two" machine-busy-%)" "$ratio"
  if [ -n "$conc" ]; then
    printf '%s  one reconciler, --concurrency 2: %8.0f changes/s  (client %s CPU-s, database %s CPU-s)\n' "$2" "$(f "$conc" changes/s)" "$(f "$conc" client-cpu-s)" "$(f "$conc" db-cpu-s)"
  fi
}
base=""
ratios=$(mktemp -d)
trap 'rm -rf "$ratios" ${base:+"$base"}' EXIT
if [ -n "$BASE" ]; then
  base=$(mktemp -d)
  git archive "$BASE" | tar -x -C "$base"
  # the base revision's reconciler, measured by this tree's benchmark
  cp internal/syncer/bench_test.go "$base/internal/syncer/"
fi
echo "changes: $N, batch: ${BATCH:-default (syncer.DefaultBatch)}"
for i in $(seq "$R"); do
  echo "load: $(uptime)"
  [ -n "$base" ] && bench "$base" "base($BASE)"
  bench . "this tree"
done
echo "load: $(uptime)"
for f in "$ratios"/*; do
  printf 'two reconcilers / one, %s: %s (median of %d)\n' "$(basename "$f" | tr _ ' ' | sed 's/ *$//')" \
    "$(sort -n "$f" | tr '\n' ' ' | sed 's/ $//')" "$(wc -l <"$f")"
  sort -n "$f" | awk '{a[NR]=$1} END {printf "  median %.2f\n", a[int((NR+1)/2)]}'
done
