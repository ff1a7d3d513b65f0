#!/usr/bin/env bash
# A desktop user's job behind the nightly batch (issue 44): BATCH users
# (default 2,000) queued by `synthesize --all-users --enqueue --users-per-job 1`
# (River priority 3), one `helix worker --concurrency 1` working them; once
# it is into the batch, one more user's job is enqueued with
# `synthesize --user-id U --enqueue` and waited for with `helix jobs wait`.
# Reported: how many batch jobs finished before the user's job and the
# user's wait in seconds, for the default priority (1) and, as the
# reference in the same run, --priority 3 (first queued, first fetched: the
# order before priorities). Goal: fewer than 10 % of the batch before it.
#
# Uses HELIX_TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable.
# Needs go and psql. HELIX_BIN=path uses a binary already built.
set -euo pipefail

BATCH=${BATCH:-2000}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
dburl() { printf '%s' "$SERVER" | sed -E "s#^(postgres(ql)?://[^/]+)/[^?]*#\1/$1#"; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
DBS=()
WORKER=
cleanup() {
  [ -n "$WORKER" ] && kill "$WORKER" 2>/dev/null && wait "$WORKER" 2>/dev/null || true
  for d in "${DBS[@]}"; do psql -X -q "$SERVER" -c "DROP DATABASE IF EXISTS $d" >/dev/null 2>&1 || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
BIN=${HELIX_BIN:-}
if [ -z "$BIN" ]; then
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$WORK/helix" ./cmd/helix)
  BIN=$WORK/helix
fi
uid() { printf '00000000-0000-4000-8000-%012d' "$1"; }

round() { # $1: --priority of the user's job ("" for the default)
  local db=helix_bench_prio_$$_${1:-default} url id before wait_s
  DBS+=("$db")
  psql -X -q -v ON_ERROR_STOP=1 "$SERVER" -c "CREATE DATABASE $db" >/dev/null
  url=$(dburl "$db")
  export DATABASE_URL=$url
  "$BIN" migrate up >/dev/null 2>&1
  psql -X -q -v ON_ERROR_STOP=1 "$url" -c "INSERT INTO memories (user_id, type, content, embedding, created_at)
    SELECT ('00000000-0000-4000-8000-' || lpad(u::text, 12, '0'))::uuid, 'semantic', 'note ' || m,
      ARRAY[random(), random(), random(), random()]::real[], now() - m * interval '1 hour'
    FROM generate_series(1, $BATCH) u, generate_series(1, 3) m" >/dev/null
  "$BIN" synthesize --all-users --enqueue --users-per-job 1 >/dev/null
  psql -X -q -v ON_ERROR_STOP=1 "$url" -c "INSERT INTO memories (user_id, type, content, embedding)
    SELECT '$(uid $((BATCH + 1)))', 'semantic', 'note ' || m, ARRAY[random(), random(), random(), random()]::real[]
    FROM generate_series(1, 3) m" >/dev/null
  "$BIN" worker --queues synthesize --concurrency 1 --poll-interval 100ms 2>/dev/null &
  WORKER=$!
  until [ "$(psql -X -qAt "$url" -c "SELECT count(*) FROM river_job WHERE state = 'completed'")" -gt 0 ]; do sleep 0.1; done
  local t0 t1
  t0=$(date +%s.%N)
  id=$("$BIN" synthesize --user-id "$(uid $((BATCH + 1)))" --enqueue ${1:+--priority $1} -o json | sed -E 's/.*"jobs":\[\{"id":([0-9]+).*/\1/')
  "$BIN" jobs wait "$id" >/dev/null 2>&1
  t1=$(date +%s.%N)
  kill "$WORKER"; wait "$WORKER" 2>/dev/null || true; WORKER=
  before=$(psql -X -qAt "$url" -c "SELECT count(*) FROM river_job b, river_job u
    WHERE u.id = $id AND b.id <> u.id AND b.kind = 'synthesize' AND b.finalized_at <= u.finalized_at")
  wait_s=$(echo "$t1 - $t0" | bc)
  printf '%-22s %6d of %d batch jobs ran before it; waited %.1f s\n' "priority ${1:-default (1)}" "$before" "$BATCH" "$wait_s"
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
round ""
round 3
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
