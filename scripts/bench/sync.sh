#!/usr/bin/env bash
# Throughput of helix sync reconcile on N pending changes (default 100,000):
# one reconciler, then two started at once on separate connection pools (as
# two hosts would). The benchmark fails unless the two process every change
# exactly once and reach the single reconciler's states.
# There is no reference tool for this job: the ratio printed is two
# reconcilers against one on the same input.
#
#   scripts/bench/sync.sh            # 100,000 changes
#   N=20000 scripts/bench/sync.sh
# Needs the test server of HELIX_TEST_DATABASE_URL (as make test does).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-100000}
out=$(HELIX_BENCH_SYNC_N=$N go test -run '^$' -bench 'BenchmarkReconcile$' -benchtime 1x -timeout 30m ./internal/syncer)
echo "$out" | grep -E 'Benchmark|reconciler [12]:'
one=$(echo "$out" | awk '/reconcilers=1/ {for (i=1;i<=NF;i++) if ($i=="changes/s") print $(i-1)}')
two=$(echo "$out" | awk '/reconcilers=2/ {for (i=1;i<=NF;i++) if ($i=="changes/s") print $(i-1)}')
echo "changes: $N"
echo "one reconciler:  $one changes/s"
echo "two reconcilers: $two changes/s (ratio $(awk -v a="$two" -v b="$one" 'BEGIN {printf "%.2f", a/b}'))"
