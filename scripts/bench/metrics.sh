#!/usr/bin/env bash
# The cost of helix worker's queue figures (helix_queue_jobs, oldest
# available age) on a large river_job, side by side with River's own
# count-by-state query (JobCountByAllStates: SELECT state, count(*) FROM
# river_job GROUP BY state, what riverui runs).
# For each size (default 100,000 and 5,000,000 rows), one INSERT … SELECT
# generate_series fills river_job with a fleet's mix: 93.5 % completed,
# 1 % discarded, 0.5 % cancelled, 3 % available (a backlog), 1 % retryable,
# 0.5 % scheduled, 0.5 % running, over nine kinds; then VACUUM ANALYZE
# (what autovacuum does after such an insert). Retryable and scheduled jobs
# are due in an hour and running ones started now, so the worker's River
# leader leaves them be. Prints per size:
#   scrape    GET /metrics of `helix worker --listen` that reads the figures
#             (the cache expired: a scrape every 5.5 s), median of 5 and max;
#   db        helix_queue_stats_read_seconds of those scrapes (the queries'
#             time, round trips included), median;
#   cached    GET /metrics within the 5 s cache, median of 5;
#   river     River's count by state through psql, median of 5 (and max).
# Goal: scrape ≤ 50 ms at 5,000,000 rows. The machine is shared: the load
# is printed beside the figures.
# Usage: scripts/bench/metrics.sh [ROWS...]   (HELIX_BIN: a built binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZES=${*:-100000 5000000}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
DB=helix_mbench_$$
dir=$(mktemp -d)
wpid=
cleanup() {
  [ -n "$wpid" ] && kill "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
  rm -rf "$dir"; psql "$SERVER" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
if [ -n "${HELIX_BIN:-}" ]; then cp "$HELIX_BIN" "$dir/helix"; else CGO_ENABLED=0 go build -o "$dir/helix" ./cmd/helix; fi
url=$(python3 -c 'import sys,urllib.parse as u; p=u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/"+sys.argv[2])))' "$SERVER" "$DB")
export DATABASE_URL=$url
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
maxof() { sort -n | tail -1; }
# ms CMD...: wall milliseconds of CMD
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }

printf '%-10s %12s %12s %12s %12s %16s  %s\n' rows "scrape med" "scrape max" "db med" "cached med" "river GROUP BY" load
for n in $SIZES; do
  psql "$SERVER" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
  "$dir/helix" migrate up >/dev/null
  echo "loading $n river_job rows (load: $(cut -d' ' -f1-3 /proc/loadavg))..." >&2
  psql "$url" -q >/dev/null <<SQL
INSERT INTO river_job (kind, queue, state, args, max_attempts, attempt, priority, created_at, scheduled_at, attempted_at, finalized_at)
SELECT (ARRAY['synthesize','synthesize_users','synthesize_llm','embed','decay','voice_transcribe','sync_reconcile','manifest_import','schedule_fire'])[1 + i % 9],
       (ARRAY['synthesize','synthesize','llm','embed','decay','voice','sync','manifest','schedule'])[1 + i % 9],
       st::river_job_state, '{}', 25, CASE WHEN st IN ('available', 'scheduled') THEN 0 ELSE 1 END, 1,
       t, CASE WHEN st IN ('scheduled', 'retryable') THEN now() + interval '1 hour' ELSE t END,
       CASE WHEN st = 'running' THEN now() WHEN st NOT IN ('available', 'scheduled') THEN t END,
       CASE WHEN st IN ('completed', 'discarded', 'cancelled') THEN t + interval '1 second' END
FROM (SELECT i, now() - (($n - i) * interval '10 ms') AS t,
             CASE WHEN i % 1000 < 935 THEN 'completed' WHEN i % 1000 < 945 THEN 'discarded'
                  WHEN i % 1000 < 950 THEN 'cancelled' WHEN i % 1000 < 980 THEN 'available'
                  WHEN i % 1000 < 990 THEN 'retryable' WHEN i % 1000 < 995 THEN 'scheduled' ELSE 'running' END AS st
      FROM generate_series(1, $n) i) g;
VACUUM ANALYZE river_job;
SQL
  # A worker of a queue with no jobs: it reads the figures, works nothing.
  HELIX_LOG_LEVEL=warn "$dir/helix" worker --queues catalog --listen "127.0.0.1:$port" 2>>"$dir/err" & wpid=$!
  for _ in $(seq 100); do curl -sf "127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
  curl -sf "127.0.0.1:$port/metrics" >/dev/null   # warm: connections, prepared statements
  scrape=() db=() cached=()
  for _ in 1 2 3 4 5; do
    sleep 5.5
    s=$(date +%s%N); curl -sf "127.0.0.1:$port/metrics" >"$dir/m"; e=$(date +%s%N)
    scrape+=($(( (e - s) / 1000000 )))
    db+=("$(awk '/^helix_queue_stats_read_seconds /{printf "%.1f", $2 * 1000}' "$dir/m")")
    cached+=("$(ms curl -sf "127.0.0.1:$port/metrics")")
  done
  grep -q 'helix_queue_jobs{kind="synthesize",queue="synthesize",state="available"}' "$dir/m" || { echo "no backlog figure in /metrics" >&2; cat "$dir/err" >&2; exit 1; }
  kill "$wpid"; wait "$wpid" || true; wpid=
  # River's query, timed by psql in one session (no process start counted).
  q=(); for _ in 1 2 3 4 5; do q+=(-c "SELECT state, count(*) FROM river_job GROUP BY state"); done
  river=($(psql "$url" -qAt -c '\timing on' "${q[@]}" | awk '/^Time:/ {printf "%.0f\n", $2}'))
  printf '%-10s %9s ms %9s ms %9s ms %9s ms %10s ms (max %s)  %s\n' "$n" \
    "$(printf '%s\n' "${scrape[@]}" | median)" "$(printf '%s\n' "${scrape[@]}" | maxof)" \
    "$(printf '%s\n' "${db[@]}" | median)" "$(printf '%s\n' "${cached[@]}" | median)" \
    "$(printf '%s\n' "${river[@]}" | median)" "$(printf '%s\n' "${river[@]}" | maxof)" "$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "  at $n rows, helix's figures (~: estimated) against exact counts, and the worst error on a kind of 1,000 jobs or more:" >&2
  psql "$url" -qAt -F ' ' -c "SELECT state, kind, count(*) FROM river_job GROUP BY 1, 2" >"$dir/exact"
  awk '
    FNR == NR { ex[$1" "$2] = $3; es[$1] += $3; next }
    /^helix_queue_jobs_estimated\{/ { match($0, /state="[a-z]+"/); st = substr($0, RSTART+7, RLENGTH-8); est[st] = $2; next }
    /^helix_queue_jobs\{/ {
      match($0, /state="[a-z]+"/); st = substr($0, RSTART+7, RLENGTH-8)
      match($0, /kind="[a-z_]*"/); k = substr($0, RSTART+6, RLENGTH-7)
      hs[st] += $2; hk[st" "k] += $2
    }
    END {
      for (key in ex) { split(key, p, " "); if (ex[key] < 1000) continue; e = (hk[key] - ex[key]) / ex[key] * 100; if (e < 0) e = -e; if (e > worst[p[1]]) worst[p[1]] = e }
      for (st in es) printf "    %-10s helix %s%-9d exact %-9d worst kind %.1f %%\n", st, (est[st] == 1 ? "~" : ""), hs[st], es[st], worst[st]
    }' "$dir/exact" "$dir/m" | sort >&2
done
