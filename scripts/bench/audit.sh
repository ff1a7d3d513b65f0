#!/usr/bin/env bash
# The audit hash chain's cost (issue 46), in one run:
#  1. append, cold: the database time of RUNS real `helix skill exec` runs (a
#     registry wasm skill, one skill_executions row each; every run is a new
#     PostgreSQL session) with the chain trigger on and off, interleaved over
#     ROUNDS rounds: the chain's share of an execution's own database time
#     (goal <= 5 %). Database time is pg_stat_database.active_time of the
#     bench's own database: the time its backends spent executing statements
#     (PostgreSQL 14+), counted when each helix process's session ends;
#  2. append, warm: the same execution's statements (resolve the skill, read
#     its signature, insert the run) WARM times on one connection with
#     prepared statements (pgbench -M prepared), as a worker, `mcp serve` or
#     a pooled connection runs them, trigger on and off, interleaved;
#  3. verify: `helix audit verify --table skill_executions` over ROWS chained
#     rows (bulk-appended in 10,000-row statements), rows/s.
#
# A new session's first append parses, plans and compiles the trigger, and
# loads PL/pgSQL unless the server preloads it (Supabase does:
# shared_preload_libraries has plpgsql); the script prints the server's
# setting. Needs Go, pgbench and a PostgreSQL server on this machine
# (HELIX_TEST_DATABASE_URL, default the test server); say the load (printed)
# with the figures.
# Usage: scripts/bench/audit.sh [RUNS] [ROUNDS] [ROWS] [WARM]   (default 100 3 1000000 2000)
#        HELIX_BIN=path: use that helix (built from this tree) instead of building one
#        AUDIT_BENCH_POOLER=postgres://USER@HOST:PORT: run the executions (part 1)
#        through that PgBouncer (in front of the same server, any database), as
#        through Supabase's poolers: a run gets a server connection an earlier
#        run warmed
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${1:-100}
ROUNDS=${2:-3}
ROWS=${3:-1000000}
WARM=${4:-2000}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:55432/postgres?sslmode=disable}
DBNAME=helix_bench_audit_$$
WORK=$(mktemp -d)
trap 'psql -q "$SERVER" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

H=${HELIX_BIN:-$WORK/helix} # HELIX_BIN: a helix already built from this tree
if [ -z "${HELIX_BIN:-}" ]; then
	echo "building helix..." >&2
	CGO_ENABLED=0 go build -o "$H" ./cmd/helix
fi
psql -q "$SERVER" -c "CREATE DATABASE $DBNAME" >/dev/null
DB=${SERVER%/*}/$DBNAME
[[ $SERVER == *\?* ]] && DB=$DB?${SERVER#*\?}
export HELIX_DATABASE_URL=$DB HELIX_SKILL_CACHE_DIR="$WORK/cache"
EXEC_URL=$DB FLUSH=1 # a session's statistics are written as it ends
if [ -n "${AUDIT_BENCH_POOLER:-}" ]; then
	EXEC_URL=$AUDIT_BENCH_POOLER/$DBNAME
	[[ $SERVER == *\?* ]] && EXEC_URL=$EXEC_URL?${SERVER#*\?}
	FLUSH=11 # a pooled server connection stays: an idle backend writes its statistics within 10 s
fi
"$H" migrate up >/dev/null
"$H" skill add testdata/skills/echo.wasm --name echo >/dev/null
"$H" skill exec echo --input '{}' >/dev/null # warm the compilation cache

active() { psql -Atq "$DB" -c "SELECT active_time FROM pg_stat_database WHERE datname = current_database()"; }
execs() { # RUNS executions; prints their database time in ms
	local before after
	before=$(active)
	for _ in $(seq "$RUNS"); do HELIX_DATABASE_URL=$EXEC_URL "$H" skill exec echo --input '{"a":1}' >/dev/null; done
	sleep "$FLUSH"
	after=$(active)
	echo "$after - $before" | bc -l
}
trigger() { psql -q "$DB" -c "ALTER TABLE skill_executions $1 TRIGGER helix_audit_chain"; }
# what one execution sends (internal/skill), on one warm connection, WARM times
skill=$(psql -Atq "$DB" -c "SELECT id FROM helix_skills WHERE name = 'echo'")
cat > "$WORK/warm.sql" <<SQL
SELECT id, name, version, engine, sha256, params::text, capabilities, coalesce(timeout_ms, 0), coalesce(memory_bytes, 0),
	coalesce(output_bytes, 0), created_at, user_id, NOT enabled, usage_count, last_used_at FROM helix_skills
	WHERE name = 'echo' AND (user_id IS NULL) ORDER BY (user_id IS NULL), created_at DESC, id DESC LIMIT 1;
SELECT signature, principal, fingerprint FROM helix_skill_signatures WHERE skill_id = $skill;
WITH e AS (
	INSERT INTO skill_executions (skill_id, skill_name, skill_version, skill_sha256, engine, input_sha256, status, started_at,
		duration_ms, output, limits, client, scrubbed, cpu_ms, peak_rss_bytes)
	VALUES ($skill, 'echo', '1', md5('echo'), 'wasm', md5(random()::text), 'ok', now(), 0.42, '{"a":1}', '{"timeout_ms":30000}',
		'bench', '{}', 0.3, 1048576)
	RETURNING id, skill_id, started_at
), used AS (
	UPDATE helix_skills s SET usage_count = s.usage_count + 1, last_used_at = greatest(s.last_used_at, e.started_at)
	FROM e WHERE s.id = e.skill_id
)
SELECT id FROM e;
SQL
warm() { # WARM executions on one connection; prints their database time in ms
	local before after
	before=$(active)
	pgbench -n -M prepared -c 1 -t "$WARM" -f "$WORK/warm.sql" "$DB" >"$WORK/pgbench.log" 2>&1 || { cat "$WORK/pgbench.log" >&2; exit 1; }
	sleep 1
	after=$(active)
	echo "$after - $before" | bc -l
}

echo "server: $(psql -Atq "$DB" -c "SELECT version()" | cut -d' ' -f1-2); shared_preload_libraries: '$(psql -Atq "$DB" -c "SHOW shared_preload_libraries")'"
echo "load: $(uptime | sed 's/.*load average: //')"
if [ -n "${AUDIT_BENCH_POOLER:-}" ]; then
	echo "pooled: one helix skill exec through $AUDIT_BENCH_POOLER (server connections kept warm)"
else
	echo "cold: one helix skill exec = one new session"
fi
printf '%-6s %14s %14s %8s\n' round "db ms chain" "db ms none" share
on_sum=0 off_sum=0
for r in $(seq "$ROUNDS"); do
	trigger ENABLE
	on=$(execs)
	trigger DISABLE
	off=$(execs)
	trigger ENABLE
	printf '%-6s %14.1f %14.1f %7.1f%%\n' "$r" "$on" "$off" "$(echo "($on - $off) * 100 / $off" | bc -l)"
	on_sum=$(echo "$on_sum + $on" | bc -l) off_sum=$(echo "$off_sum + $off" | bc -l)
done
printf 'append, CLI: %d executions a round; database time per execution %.3f ms chained, %.3f ms not: the chain adds %.1f %%\n' "$RUNS" \
	"$(echo "$on_sum / ($RUNS * $ROUNDS)" | bc -l)" "$(echo "$off_sum / ($RUNS * $ROUNDS)" | bc -l)" \
	"$(echo "($on_sum - $off_sum) * 100 / $off_sum" | bc -l)"
echo "load: $(uptime | sed 's/.*load average: //')"
echo "warm: $WARM executions' statements on one connection (pgbench -M prepared)"
printf '%-6s %14s %14s %8s\n' round "db ms chain" "db ms none" share
on_sum=0 off_sum=0
for r in $(seq "$ROUNDS"); do
	trigger ENABLE
	on=$(warm)
	trigger DISABLE
	off=$(warm)
	trigger ENABLE
	printf '%-6s %14.1f %14.1f %7.1f%%\n' "$r" "$on" "$off" "$(echo "($on - $off) * 100 / $off" | bc -l)"
	on_sum=$(echo "$on_sum + $on" | bc -l) off_sum=$(echo "$off_sum + $off" | bc -l)
done
printf 'append, warm: database time per execution %.4f ms chained, %.4f ms not: the chain adds %.4f ms, %.1f %%\n' \
	"$(echo "$on_sum / ($WARM * $ROUNDS)" | bc -l)" "$(echo "$off_sum / ($WARM * $ROUNDS)" | bc -l)" \
	"$(echo "($on_sum - $off_sum) / ($WARM * $ROUNDS)" | bc -l)" "$(echo "($on_sum - $off_sum) * 100 / $off_sum" | bc -l)"
echo "load: $(uptime | sed 's/.*load average: //')"
# the unchained rows written with the trigger off are out of the chain: start the verify part afresh
psql -q "$DB" -c "DELETE FROM skill_executions WHERE chain_seq IS NULL"

echo "appending $ROWS chained rows..." >&2
start=$(date +%s.%N)
left=$ROWS
while [ "$left" -gt 0 ]; do
	n=$(( left < 10000 ? left : 10000 ))
	psql -q "$DB" -c "INSERT INTO skill_executions (skill_name, skill_sha256, engine, user_id, input_sha256, status, started_at, duration_ms, output, limits)
		SELECT 'bench', md5(g::text), 'wasm', gen_random_uuid(), md5(g::text), 'ok', now(), random() * 10, '{\"n\":' || g || '}', '{\"timeout_ms\":30000}'
		FROM generate_series(1, $n) g"
	left=$(( left - n ))
done
append=$(echo "$(date +%s.%N) - $start" | bc -l)
rows=$(psql -Atq "$DB" -c "SELECT count(*) FROM skill_executions")
start=$(date +%s.%N)
"$H" audit verify --table skill_executions >/dev/null
verify=$(echo "$(date +%s.%N) - $start" | bc -l)
printf 'bulk append: %d rows in %.1f s (%.0f rows/s)\n' "$ROWS" "$append" "$(echo "$ROWS / $append" | bc -l)"
printf 'verify: %d rows in %.1f s (%.0f rows/s)\n' "$rows" "$verify" "$(echo "$rows / $verify" | bc -l)"
echo "load: $(uptime | sed 's/.*load average: //')"
