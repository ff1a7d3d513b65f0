#!/usr/bin/env bash
# The database time of one read of the queue figures (helix_queue_jobs,
# helix_queue_oldest_available_age_seconds, jobs stats) on a river_job in
# the shapes of issue 48, against River's count by state in the same run:
# BenchmarkRead (internal/queuestats) fills river_job with one INSERT …
# SELECT generate_series of ROWS rows — eight kinds interleaved over every
# state (97 % completed), a retryable backlog of 15,000 jobs written
# together, about 300 completed jobs of a rare kind, 7 % of the table
# available in a queue no worker serves — then VACUUM ANALYZE, and reads
# the figures 50 times as a worker does (queuestats.Reader: the finalized
# states' groups counted again 4 a read), one every 250 ms, while another
# connection changes 500 jobs a second as River does (fetch, complete,
# insert). It prints p50 and p95 of the database time and of the backend's
# CPU, the worst error of any figure against count(*), the probes the
# estimates took, river_job's all-visible pages before and after, and
# River's GROUP BY state (median of 5) and a Read of everything (what a
# scrape read before the Reader; 10), both interleaved with the reads.
# Goal: p95 ≤ 50 ms at 5,000,000 rows. The machine is shared: the load is
# printed beside. HELIX_BENCH_QUEUE_CLEAR_VM=P: about P % of the pages not
# all-visible before the reads (100: the worst case for index-only scans).
# Usage: scripts/bench/queuestats.sh [ROWS]   (default 5000000; 2-5 min)
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${HELIX_TEST_DATABASE_URL:?set HELIX_TEST_DATABASE_URL to a PostgreSQL server helix may create databases on}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
HELIX_BENCH_QUEUE_ROWS=${1:-5000000} go test -count=1 -run '^$' -bench '^BenchmarkRead$' -benchtime 50x -timeout 60m ./internal/queuestats/
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
