#!/usr/bin/env bash
# A million-user night (issue 48): U users (default 1,000,000) × M memories
# (default 10; text only, or DIM-dimension embeddings with DIM=64) generated
# with SQL on a PostgreSQL cluster of its own, then the nightly
#   helix synthesize --all-users --enqueue
# worked by 2 `helix worker --once` processes, everything through PgBouncer in
# transaction mode, with Prometheus scraping both workers every 15 s. Then:
#   - the exactly-once check: every user queued in exactly one job, every job
#     completed with one ok job_runs row, every user's recorded synthesis
#     written by the run of the job that held the user, each user's patterns
#     from one run, no change marker left, no advisory lock or helix lease
#     left (exit 1 when any fails);
#   - wall time, users/s, helix CPU (GNU time of enqueue + workers) and
#     PostgreSQL CPU (the postmaster's own and its children's, reaped ones
#     included, from /proc: exact, no sampling) per user, PgBouncer's CPU;
#   - the database's growth, by table, and the statements that took the
#     database's time (pg_stat_statements);
#   - Prometheus's record: every scrape's time and the backlog curve;
#   - the queue's overhead against an in-process `synthesize --all-users
#     --concurrency WORKERS×WORKER_CONCURRENCY` of the same users on the same
#     database (their syntheses reset and their changes marked again, as
#     after the load), through the same PgBouncer (INPROC=0 skips it).
# Not part of make test. Progress on stderr; the figures also go to the
# results file (RESULTS, default /tmp/helix-million-U.txt).
#
#   scripts/bench/million.sh                 # 1,000,000 users × 10
#   scripts/bench/million.sh 10000           # a check of the script: 10,000 users
#   M=5 DIM=64 scripts/bench/million.sh 100000
# Settings (environment): M, DIM (0: text only), WORKERS (2),
# WORKER_CONCURRENCY (1), USERS_PER_JOB (unset: the default batches), CHUNK
# (users a load statement, 50000), PORT (56200: PostgreSQL; +1 PgBouncer,
# +2 Prometheus, +11.. the workers), SHARED_BUFFERS (2GB), INPROC (1),
# HELIX_BIN (a built binary), KEEP=1 (keep the cluster's directory),
# LOAD (bulk: triggers off, their rows written set-based; triggers: through
# them), SELFTEST=1 (work a job twice and forget a user: the check must fail).
# Needs: PostgreSQL server binaries, pgbouncer, prometheus, curl, python3,
# GNU time. Run as root (the cluster runs as postgres) or as a user who can
# run initdb.
# The whole script is one block: bash reads it all before running it, so
# editing or checking out the file during an hour's run does not derail it.
{
set -euo pipefail
cd "$(dirname "$0")/../.."
U=${1:-1000000}
M=${M:-10} DIM=${DIM:-0} WORKERS=${WORKERS:-2} WC=${WORKER_CONCURRENCY:-1}
CHUNK=${CHUNK:-50000} PORT=${PORT:-56200} SHARED_BUFFERS=${SHARED_BUFFERS:-2GB}
INPROC=${INPROC:-1} UPJ=${USERS_PER_JOB:-}
RESULTS=${RESULTS:-/tmp/helix-million-$U.txt}
PGPORT=$PORT BPORT=$((PORT + 1)) PROMPORT=$((PORT + 2))
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$pgbin" ] || { echo "million: no PostgreSQL server binaries (apt-get install postgresql)" >&2; exit 1; }
for t in pgbouncer prometheus curl python3 /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "million: $t is missing (apt-get install ${t##*/})" >&2; exit 1; }
done

for p in $PGPORT $BPORT $PROMPORT $(seq $((PORT + 11)) $((PORT + 10 + WORKERS))); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
    echo "million: port $p is taken (another run?): choose PORT=… (it uses PORT to PORT+2 and PORT+11 on)" >&2; exit 1
  fi
done
dir=$(mktemp -d /tmp/helix-million.XXXXXX)
chmod 755 "$dir"
as=()
[ "$(id -u)" = 0 ] && as=(runuser -u postgres --)
pids=() pg_started=
cleanup() {
  local rc=$?
  # a worker runs under GNU time: its child first
  for p in "${pids[@]}"; do pkill -TERM -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  [ -n "$pg_started" ] && "${as[@]}" "$pgbin/pg_ctl" -D "$dir/pg" -m immediate -w stop >/dev/null 2>&1 || true
  if [ -n "${KEEP:-}" ]; then echo "million: kept $dir" >&2; else rm -rf "$dir"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

: >"$RESULTS"
# say: a progress line on stderr; figure: a line of results, also on stdout
say() { echo "[$(date -u +%T)] $*" >&2; }
figure() { echo "$*" | tee -a "$RESULTS"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc -l; }
div() { echo "scale=6; $1 / $2" | bc -l; }

if [ -n "${HELIX_BIN:-}" ]; then cp "$HELIX_BIN" "$dir/helix"; else
  say "building helix"
  CGO_ENABLED=0 go build -o "$dir/helix" ./cmd/helix
fi
helix=$dir/helix

# --- PostgreSQL of our own ---------------------------------------------------
say "initdb in $dir/pg, PostgreSQL on 127.0.0.1:$PGPORT (shared_buffers $SHARED_BUFFERS, fsync off)"
mkdir -p "$dir/pg" && chmod 700 "$dir/pg"
[ "$(id -u)" = 0 ] && chown -R postgres: "$dir"
"${as[@]}" "$pgbin/initdb" -D "$dir/pg" -U postgres -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; exit 1; }
pg_started=1
"${as[@]}" "$pgbin/pg_ctl" -D "$dir/pg" -l "$dir/pg.log" -w -t 60 -o "-p $PGPORT -c listen_addresses=127.0.0.1 -c unix_socket_directories='' \
  -c max_connections=200 -c shared_buffers=$SHARED_BUFFERS -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
  -c max_wal_size=16GB -c checkpoint_timeout=1h -c maintenance_work_mem=512MB -c work_mem=32MB \
  -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all" start >/dev/null ||
  { tail -n 20 "$dir/pg.log" >&2; exit 1; }
postmaster=$(head -1 "$dir/pg/postmaster.pid")
DB=helix_million
direct="postgres://postgres@127.0.0.1:$PGPORT/$DB?sslmode=disable"
pooled="postgres://postgres@127.0.0.1:$BPORT/$DB?sslmode=disable"
psql "postgres://postgres@127.0.0.1:$PGPORT/postgres?sslmode=disable" -qc "CREATE DATABASE $DB" >/dev/null

# --- PgBouncer, transaction mode ----------------------------------------------
printf '"postgres" ""\n' >"$dir/users.txt"
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$PGPORT
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BPORT
unix_socket_dir =
auth_type = trust
auth_file = $dir/users.txt
pool_mode = transaction
ignore_startup_parameters = extra_float_digits
max_client_conn = 400
default_pool_size = 20
logfile = $dir/pgbouncer.log
INI
[ "$(id -u)" = 0 ] && chown postgres: "$dir/pgbouncer.ini" "$dir/users.txt"
pgbouncer ${as:+-u postgres} "$dir/pgbouncer.ini" >/dev/null 2>&1 &
pids+=($!)
bouncer=$!
for _ in $(seq 50); do psql "$pooled" -qAtc 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done
psql "$pooled" -qAtc 'SELECT 1' >/dev/null || { cat "$dir/pgbouncer.log" >&2; exit 1; }

export HELIX_DATABASE_URL=$pooled HELIX_DB_POOL_MODE=transaction HELIX_LOG_LEVEL=warn
HELIX_DATABASE_URL=$direct HELIX_DB_POOL_MODE=direct "$helix" migrate up >/dev/null
# where the database's time goes, by statement (pg_stat_statements)
psql "$direct" -qc "CREATE EXTENSION pg_stat_statements" >/dev/null
# statements TITLE: the statements that took most of the database's time
# since the last reset, as lines of figures
statements() {
  echo "  $1, the statements that took most of the database's time (pg_stat_statements: total ms, calls, ms a call):"
  psql "$direct" -AtF '|' -c "SELECT round(total_exec_time)::bigint, calls, round((total_exec_time / calls)::numeric, 3),
      left(regexp_replace(query, '\\s+', ' ', 'g'), 110)
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'
    ORDER BY total_exec_time DESC LIMIT ${TOP:-10}" |
    while IFS='|' read -r ms calls per q; do printf '    %8s ms %8s × %9s  %s\n' "$ms" "$calls" "$per" "$q"; done
  echo "$(psql "$direct" -Atc "SELECT format('    all: %s ms in %s calls', round(sum(total_exec_time)), sum(calls)) FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())")"
}

figure "# helix: a million-user night — $(date -u +%FT%TZ)"
figure "users $U × memories $M ($([ "$DIM" -gt 0 ] && echo "$DIM-dimension embeddings" || echo "text only, no embeddings")); $WORKERS workers × --concurrency $WC; PgBouncer transaction mode; $(nproc) cores; helix $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
figure "load at the start: $(load)"

# --- the users and their memories, with SQL ---------------------------------
# Users' ids are md5 uuids (random order, as real ids are); each user's
# memories spread over days; the content repeats a few topics so synthesis
# finds clusters. CHUNK users a transaction, for progress.
# LOAD=bulk (default) writes what the platform's row-by-row inserts would
# leave, set-based: with triggers off (session_replication_role replica),
# each chunk also writes its users' change markers (what helix's statement
# trigger on memories writes), and after the last chunk helix_memory_search
# is filled in one INSERT … SELECT with its GIN index built afterwards (what
# the per-row search trigger would write, row by row: at 10M rows that
# trigger alone costs most of an hour on 2 busy cores). LOAD=triggers inserts
# through the triggers, as the apps' writes go.
LOAD=${LOAD:-bulk}
case $LOAD in bulk | triggers) ;; *) echo "million: LOAD=$LOAD: want bulk or triggers" >&2; exit 2 ;; esac
emb=NULL
[ "$DIM" -gt 0 ] && emb="(SELECT array_agg((sin(((u + k) % 4) * 13 + d) + 0.2 * sin(u * 7 + k * 3 + d))::real) FROM generate_series(1, $DIM) d)"
say "loading $U users × $M memories, $CHUNK users a transaction, LOAD=$LOAD (load $(load))"
t0=$(now)
for ((lo = 1; lo <= U; lo += CHUNK)); do
  hi=$((lo + CHUNK - 1)); [ "$hi" -gt "$U" ] && hi=$U
  pre="" post=""
  if [ "$LOAD" = bulk ]; then
    pre="SET LOCAL session_replication_role = replica;"
    post="INSERT INTO helix_memory_changes (user_id, xid) SELECT md5('u' || u)::uuid, pg_current_xact_id() FROM generate_series($lo, $hi) u;"
  fi
  psql "$direct" -qv ON_ERROR_STOP=1 >/dev/null <<SQL
BEGIN;
$pre
INSERT INTO memories (id, user_id, type, content, embedding, emotional_valence, created_at)
SELECT md5('m' || u || '-' || k)::uuid, md5('u' || u)::uuid,
       (ARRAY['episodic', 'semantic', 'procedural'])[1 + k % 3],
       'user ' || u || ' wrote note ' || k || ' about ' || (ARRAY['coffee', 'running', 'work', 'family'])[1 + (u + k) % 4],
       $emb,
       ((k % 5) - 2) / 2.0,
       timestamptz '2026-01-01' + (u % 97) * interval '1 hour' + k * interval '1 day'
FROM generate_series($lo, $hi) u, generate_series(1, $M) k;
$post
COMMIT;
SQL
  say "  users $hi / $U loaded ($(printf '%.0f' "$(since "$t0")") s, load $(load))"
done
if [ "$LOAD" = bulk ]; then
  say "  the search index's rows, set-based, then its GIN index ($(printf '%.0f' "$(since "$t0")") s)"
  gin=$(psql "$direct" -Atc "SELECT pg_get_indexdef('helix_memory_search_tsv_idx'::regclass)")
  psql "$direct" -qv ON_ERROR_STOP=1 >/dev/null <<SQL
BEGIN;
SET LOCAL session_replication_role = replica;
DROP INDEX helix_memory_search_tsv_idx;
INSERT INTO helix_memory_search (memory_id, user_id, tsv)
SELECT id, user_id, to_tsvector((SELECT language FROM helix_search_settings), content)
FROM memories WHERE content IS NOT NULL AND btrim(content) <> '';
$gin;
COMMIT;
SQL
fi
say "VACUUM ANALYZE (as autovacuum would after the load; $(printf '%.0f' "$(since "$t0")") s)"
psql "$direct" -qc "VACUUM ANALYZE" >/dev/null
gen=$(since "$t0")
# what the triggers would have left: a search row per memory, a marker per user
read -r nmem nsearch nusers nmarked < <(psql "$direct" -Atc "SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM helix_memory_search),
  (SELECT count(DISTINCT user_id) FROM memories), (SELECT count(DISTINCT user_id) FROM helix_memory_changes)" -F ' ')
[ "$nsearch" -eq "$nmem" ] && [ "$nmarked" -eq "$nusers" ] && [ "$nusers" -eq "$U" ] ||
  { echo "million: the load left $nmem memories, $nsearch search rows, $nusers users, $nmarked users marked changed" >&2; exit 1; }
figure "$(printf 'load (LOAD=%s): %d memories of %d users in %.1f s (search rows and VACUUM ANALYZE included); database %s' \
  "$LOAD" "$nmem" "$U" "$gen" "$(psql "$direct" -Atc "SELECT pg_size_pretty(pg_database_size(current_database()))")")"

# --- CPU readings from /proc ----------------------------------------------------
hz=$(getconf CLK_TCK)
# pgcpu: CPU-seconds of the cluster so far: the postmaster's own and its
# reaped children's (utime stime cutime cstime), plus its live children's.
pgcpu() {
  local t=0 p f
  read -r -a f <"/proc/$postmaster/stat"
  t=$((f[13] + f[14] + f[15] + f[16]))
  for p in $(pgrep -P "$postmaster"); do
    read -r -a f 2>/dev/null <"/proc/$p/stat" && t=$((t + f[13] + f[14]))
  done
  echo "scale=2; $t / $hz" | bc -l
}
proccpu() { local f; read -r -a f <"/proc/$1/stat"; echo "scale=2; (${f[13]} + ${f[14]}) / $hz" | bc -l; }
# sizes: every relation of the public schema with its total size, bytes
sizes() { psql "$direct" -Atc "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1" >"$1"; }
# timed OUT CMD...: runs CMD under GNU time, its wall and CPU in OUT
timed() { local o=$1; shift; /usr/bin/time -f '%e %U %S' -o "$o" "$@"; }
cpu_of() { awk '{printf "%.2f", $2 + $3}' "$1"; }
wall_of() { awk '{printf "%.2f", $1}' "$1"; }

# --- Prometheus -----------------------------------------------------------------
targets=""
for i in $(seq "$WORKERS"); do targets+="${targets:+, }'127.0.0.1:$((PORT + 10 + i))'"; done
cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 15s
  scrape_timeout: 10s
scrape_configs:
  - job_name: helix
    static_configs:
      - targets: [$targets]
YML
prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/prom" \
  --web.listen-address="127.0.0.1:$PROMPORT" --log.level=warn >"$dir/prometheus.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf "127.0.0.1:$PROMPORT/-/ready" >/dev/null && break; sleep 0.2; done
curl -sf "127.0.0.1:$PROMPORT/-/ready" >/dev/null || { cat "$dir/prometheus.log" >&2; exit 1; }

# --- the night ----------------------------------------------------------------------
sizes "$dir/size0"
db0=$(psql "$direct" -Atc "SELECT pg_database_size(current_database())")
say "the night: synthesize --all-users --enqueue, then $WORKERS workers (load $(load))"
psql "$direct" -qAtc "SELECT pg_stat_statements_reset()" >/dev/null
night0=$(now)
pg0=$(pgcpu) b0=$(proccpu "$bouncer")
timed "$dir/t.enqueue" "$helix" synthesize --all-users --enqueue ${UPJ:+--users-per-job $UPJ} >"$dir/enqueue.out" 2>"$dir/enqueue.err" ||
  { cat "$dir/enqueue.err" >&2; exit 1; }
say "  $(cut -c1-120 "$dir/enqueue.out")… ($(wall_of "$dir/t.enqueue") s)"
jobs=$(psql "$direct" -Atc "SELECT count(*) FROM river_job WHERE kind = 'synthesize_users'")
w0=$(now)
wpids=()
for i in $(seq "$WORKERS"); do
  /usr/bin/time -f '%e %U %S' -o "$dir/t.worker$i" "$helix" worker --once --queues synthesize --concurrency "$WC" --listen "127.0.0.1:$((PORT + 10 + i))" \
    >"$dir/worker$i.out" 2>"$dir/worker$i.err" &
  wpids+=($!)
  pids+=($!)
done
# progress every 15 s until every worker has exited
while :; do
  for _ in $(seq 150); do
    alive=0
    for p in "${wpids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  [ "$alive" -eq 0 ] && break
  say "  $(psql "$direct" -Atc "SELECT string_agg(state || ' ' || n, ', ' ORDER BY state) FROM (SELECT state, count(*) n FROM river_job WHERE kind = 'synthesize_users' GROUP BY state) s") jobs; $(printf '%.0f' "$(since "$w0")") s; load $(load)"
done
failed=0
for i in "${!wpids[@]}"; do
  wait "${wpids[$i]}" || { say "worker $((i + 1)) failed:"; cat "$dir/worker$((i + 1)).err" >&2; failed=1; }
done
[ "$failed" -eq 0 ] || exit 1
night=$(since "$night0") wwall=$(since "$w0")
pg1=$(pgcpu) b1=$(proccpu "$bouncer")
statements "the night" >"$dir/statements.night"
night_pg=$(echo "$pg1 - $pg0" | bc -l) night_b=$(echo "$b1 - $b0" | bc -l)
night_cpu=$(cat "$dir"/t.enqueue "$dir"/t.worker* | awk '{s += $2 + $3} END {printf "%.2f", s}')

# SELFTEST=1 shows that the check below sees a user done twice and a user
# missed: it works the first job a second time and forgets one user's
# synthesis, so the check must fail.
if [ -n "${SELFTEST:-}" ]; then
  say "SELFTEST: working job 1 again and forgetting one user's synthesis: the check must fail"
  first=$(psql "$direct" -Atc "SELECT min(id) FROM river_job WHERE kind = 'synthesize_users'")
  "$helix" jobs retry "$first" >/dev/null
  "$helix" worker --once --queues synthesize >/dev/null 2>>"$dir/selftest.err"
  psql "$direct" -qc "DELETE FROM helix_synthesis_state WHERE user_id = (SELECT user_id FROM helix_synthesis_state ORDER BY user_id DESC LIMIT 1)" >/dev/null
fi

# --- exactly once ---------------------------------------------------------------------
say "checking every user was synthesized exactly once"
check_fail=0
# check NAME SQL: the SQL returns "ok" or what is wrong
check() {
  local r
  r=$(psql "$direct" -Atc "$2")
  if [ "$r" = ok ]; then figure "  PASS  $1"; else figure "  FAIL  $1: $r"; check_fail=1; fi
}
figure ""
figure "exactly once ($U users, $jobs synthesize_users jobs):"
check "every job completed" "SELECT CASE WHEN count(*) FILTER (WHERE state <> 'completed') = 0 AND count(*) = $jobs THEN 'ok'
  ELSE string_agg(DISTINCT state::text, ',') || ': ' || count(*) FILTER (WHERE state <> 'completed') || ' not completed' END
  FROM river_job WHERE kind = 'synthesize_users'"
check "no other job queued (no synthesize job of one user, nothing retried into another kind)" "SELECT CASE WHEN count(*) = 0 THEN 'ok' ELSE count(*) || ' jobs of kinds ' || string_agg(DISTINCT kind, ',') END
  FROM river_job WHERE kind <> 'synthesize_users' AND queue = 'synthesize'"
check "every user queued in exactly one job" "SELECT CASE WHEN count(*) = $U AND count(DISTINCT u) = $U AND (SELECT count(DISTINCT user_id) FROM memories) = $U THEN 'ok'
  ELSE count(*) || ' queued, ' || count(DISTINCT u) || ' distinct, of ' || (SELECT count(DISTINCT user_id) FROM memories) || ' users' END
  FROM river_job j, jsonb_array_elements_text(j.args->'user_ids') u WHERE j.kind = 'synthesize_users'"
check "one ok job_runs row per job, none failed, partial or left running" "SELECT CASE WHEN count(*) = $jobs AND count(*) FILTER (WHERE status <> 'ok') = 0 AND count(DISTINCT params->>'river_job_id') = $jobs THEN 'ok'
  ELSE count(*) || ' runs (' || count(*) FILTER (WHERE status <> 'ok') || ' not ok) for ' || count(DISTINCT params->>'river_job_id') || ' jobs' END
  FROM job_runs"
check "the runs synthesized $U users between them, none counted unchanged" "SELECT CASE WHEN sum((counts->>'done')::int) = $U AND coalesce(sum((counts->>'unchanged')::int), 0) = 0 THEN 'ok'
  ELSE sum((counts->>'done')::int) || ' done, ' || coalesce(sum((counts->>'unchanged')::int), 0) || ' unchanged' END
  FROM job_runs WHERE job = 'synthesize'"
# (each job's users expanded once: a join on the jobs' args would detoast a
# job's 500 ids for every one of its users)
check "every user's recorded synthesis is by the run of the job that held the user" "WITH q AS (
    SELECT j.id AS job, u::uuid AS user_id FROM river_job j, jsonb_array_elements_text(j.args->'user_ids') u WHERE j.kind = 'synthesize_users')
  SELECT CASE WHEN count(*) = $U AND count(q.user_id) = $U THEN 'ok' ELSE count(*) || ' states, ' || count(q.user_id) || ' written by their own job''s run' END
  FROM helix_synthesis_state s LEFT JOIN job_runs r ON r.id = s.job_run_id LEFT JOIN q ON q.job = (r.params->>'river_job_id')::bigint AND q.user_id = s.user_id"
check "no user has patterns from two runs" "SELECT CASE WHEN count(*) = 0 THEN 'ok' ELSE count(*) || ' users with patterns of several runs' END
  FROM (SELECT user_id FROM memory_synthesis WHERE generator = 'helix' GROUP BY user_id HAVING count(DISTINCT job_run_id) > 1) d"
check "no memory change left unsynthesized" "SELECT CASE WHEN count(*) = 0 THEN 'ok' ELSE count(*) || ' change markers left for ' || count(DISTINCT user_id) || ' users' END FROM helix_memory_changes"
check "no advisory lock held" "SELECT CASE WHEN count(*) = 0 THEN 'ok' ELSE count(*) || ' advisory locks held' END FROM pg_locks WHERE locktype = 'advisory'"
check "no helix lease left" "SELECT CASE WHEN count(*) = 0 THEN 'ok' ELSE string_agg(name || ' (' || holder || ', expires ' || expires_at || ')', ', ') END FROM helix_locks"
patterns=$(psql "$direct" -Atc "SELECT count(*) || ' patterns for ' || count(DISTINCT user_id) || ' users' FROM memory_synthesis")

# --- figures -------------------------------------------------------------------------------
sizes "$dir/size1"
db1=$(psql "$direct" -Atc "SELECT pg_database_size(current_database())")
figure ""
figure "the night ($patterns written):"
figure "$(printf '  wall %.1f s (enqueue %.1f s, workers %.1f s): %.0f users/s' "$night" "$(wall_of "$dir/t.enqueue")" "$wwall" "$(div "$U" "$night")")"
figure "$(printf '  helix CPU %.1f s = %.3f ms a user (enqueue %.2f s; workers %s)' "$night_cpu" "$(div "$night_cpu * 1000" "$U")" "$(cpu_of "$dir/t.enqueue")" \
  "$(for f in "$dir"/t.worker*; do printf '%s s ' "$(cpu_of "$f")"; done)")"
figure "$(printf '  PostgreSQL CPU %.1f s = %.3f ms a user; PgBouncer CPU %.1f s = %.3f ms a user' "$night_pg" "$(div "$night_pg * 1000" "$U")" "$night_b" "$(div "$night_b * 1000" "$U")")"
figure "  load: $(load) at the end (1, 5, 15 min; $(nproc) cores)"
# signed BYTES: +1.5M, or -24K for a table that shrank (its dead rows vacuumed)
signed() { if [ "$1" -lt 0 ]; then echo "-$(numfmt --to=iec $((-$1)))"; else echo "+$(numfmt --to=iec "$1")"; fi; }
figure "$(printf '  database growth: %s → %s (%s)' "$(numfmt --to=iec "$db0")" "$(numfmt --to=iec "$db1")" "$(signed $((db1 - db0)))")"
LC_ALL=C join "$dir/size0" "$dir/size1" -t '|' | awk -F'|' '$3 != $2 { printf "%s|%d\n", $1, $3 - $2 }' | sort -t'|' -k2,2nr | head -8 |
  while IFS='|' read -r rel d; do figure "$(printf '    %-28s %s' "$rel" "$(signed "$d")")"; done

while IFS= read -r l; do figure "$l"; done <"$dir/statements.night"

# Prometheus's record of the night: every scrape of each worker (its
# duration) and the queue figures the workers exported.
say "reading Prometheus"
sleep 1
python3 - "$PROMPORT" "$night0" "$(now)" >"$dir/prom.txt" <<'PY'
import json, sys, urllib.parse, urllib.request
port, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
# raw(q): every sample Prometheus stored for q since the night began (one a scrape)
def raw(q):
    rng = int(end - start) + 60
    u = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": f"{q}[{rng}s]", "time": end + 1})
    return json.load(urllib.request.urlopen(u))["data"]["result"]
scrapes = {}  # (instance, t) -> {column: value}
def put(q, col, key=None, scale=1):
    for s in raw(q):
        inst = s["metric"]["instance"].rsplit(":", 1)[-1]
        for t, v in s["values"]:
            scrapes.setdefault((round(float(t) - start), inst), {})[key(s["metric"]) if key else col] = float(v) * scale
put('scrape_duration_seconds{job="helix"}', "scrape", scale=1000)
put('up{job="helix"}', "up")
put('helix_queue_jobs{kind="synthesize_users"}', None, key=lambda m: m["state"])
put('helix_queue_stats_read_seconds', "read", scale=1000)
cols = [("up", "up", "{:.0f}"), ("scrape", "scrape ms", "{:.1f}"), ("read", "stats read ms", "{:.1f}"), ("available", "available", "{:.0f}"),
        ("running", "running", "{:.0f}"), ("completed", "completed", "{:.0f}")]
print("  t (s)  worker  " + "  ".join(h.rjust(13) for _, h, _ in cols))
durs = []
for (t, inst), r in sorted(scrapes.items()):
    if r.get("up") == 1:
        durs.append(r["scrape"])
    print(f"  {t:5d}  {inst:>6}  " + "  ".join((f.format(r[c]) if c in r else "-").rjust(13) for c, _, f in cols))
if durs:
    durs.sort()
    q = lambda x: durs[min(len(durs) - 1, int(x * len(durs)))]
    print(f"  {len(durs)} scrapes: median {q(0.5):.1f} ms, p95 {q(0.95):.1f} ms, max {durs[-1]:.1f} ms")
else:
    print("  no scrape during the night (shorter than Prometheus's first 15 s)")
PY
figure ""
figure "Prometheus, every 15 s (t from the enqueue; the workers' scrape durations, the backlog they exported):"
while IFS= read -r l; do figure "$l"; done <"$dir/prom.txt"

# --- the same users in-process --------------------------------------------------------
if [ "$INPROC" = 1 ]; then
  C=$((WORKERS * WC))
  say "in-process: the same users' syntheses reset, then synthesize --all-users --concurrency $C (load $(load))"
  psql "$direct" -qc "TRUNCATE memory_synthesis, helix_synthesis_state, helix_pattern_lineages, job_runs" \
    -c "INSERT INTO helix_memory_changes (user_id, xid) SELECT DISTINCT user_id, pg_current_xact_id() FROM memories" \
    -c "VACUUM ANALYZE" >/dev/null
  psql "$direct" -qAtc "SELECT pg_stat_statements_reset()" >/dev/null
  i0=$(now) pg0=$(pgcpu)
  timed "$dir/t.inproc" "$helix" synthesize --all-users --concurrency "$C" >/dev/null 2>"$dir/inproc.err" ||
    { cat "$dir/inproc.err" >&2; exit 1; }
  inwall=$(since "$i0") inpg=$(echo "$(pgcpu) - $pg0" | bc -l) incpu=$(cpu_of "$dir/t.inproc")
  statements "in-process" >"$dir/statements.inproc"
  done_in=$(psql "$direct" -Atc "SELECT count(*) FROM helix_synthesis_state")
  [ "$done_in" -eq "$U" ] || { figure "in-process run synthesized $done_in of $U users"; check_fail=1; }
  figure ""
  figure "in-process, the same $U users, --concurrency $C, after the night (load $(load) at the end):"
  figure "$(printf '  wall %.1f s: %.0f users/s; helix CPU %.1f s = %.3f ms a user; PostgreSQL CPU %.1f s = %.3f ms a user' \
    "$inwall" "$(div "$U" "$inwall")" "$incpu" "$(div "$incpu * 1000" "$U")" "$inpg" "$(div "$inpg * 1000" "$U")")"
  figure "$(printf "  the queue's overhead a user: wall %+.3f ms (%+.1f %%), helix CPU %+.3f ms (%+.1f %%), PostgreSQL CPU %+.3f ms (%+.1f %%)" \
    "$(div "($night - $inwall) * 1000" "$U")" "$(div "($night - $inwall) * 100" "$inwall")" \
    "$(div "($night_cpu - $incpu) * 1000" "$U")" "$(div "($night_cpu - $incpu) * 100" "$incpu")" \
    "$(div "($night_pg - $inpg) * 1000" "$U")" "$(div "($night_pg - $inpg) * 100" "$inpg")")"
  while IFS= read -r l; do figure "$l"; done <"$dir/statements.inproc"
fi
figure ""
figure "$([ "$check_fail" -eq 0 ] && echo "exactly once: PASS" || echo "exactly once: FAIL"); results in $RESULTS"
exit "$check_fail"
}
