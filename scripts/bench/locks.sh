#!/usr/bin/env bash
# The cost of taking and releasing one user's lock, on U users (default
# 10,000), side by side in one run: the session advisory lock helix took per
# user before issue 28 vs the transaction lock it takes now (inside the
# user's write transaction) vs a lease in helix_locks (what jobs hold) —
# through a direct connection, and through Debian's PgBouncer in session and
# in transaction mode (the advisory lock is not run through the transaction
# pooler: it is not safe there). Go benchmark: internal/db BenchmarkUserLock.
#
#   scripts/bench/locks.sh            # 10,000 users
#   U=2000 scripts/bench/locks.sh
# Needs the test server of HELIX_TEST_DATABASE_URL and pgbouncer (make test-deps).
set -euo pipefail
cd "$(dirname "$0")/../.."
U=${U:-10000}
export HELIX_TEST_DATABASE_URL=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
echo "load: $(uptime)"
go test -run '^$' -bench '^BenchmarkUserLock$' -benchtime "${U}x" -count 1 ./internal/db/ |
  awk -v u="$U" '/^BenchmarkUserLock/ { sub(/^BenchmarkUserLock\//, "", $1); sub(/-[0-9]+$/, "", $1);
    printf "%-32s %8.3f ms per user  %8.2f s for %d users\n", $1, $3 / 1e6, $3 * u / 1e9, u }'
echo "load: $(uptime)"
