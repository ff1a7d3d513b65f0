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
EXEC_URL=$DB
if [ -n "${AUDIT_BENCH_POOLER:-}" ]; then
	EXEC_URL=$AUDIT_BENCH_POOLER/$DBNAME
	[[ $SERVER == *\?* ]] && EXEC_URL=$EXEC_URL?${SERVER#*\?}
fi
"$H" migrate up >/dev/null
"$H" skill add testdata/skills/echo.wasm --name echo >/dev/null
"$H" skill exec echo --input '{}' >/dev/null # warm the compilation cache

active() { psql -Atq "$DB" -c "SELECT active_time FROM pg_stat_database WHERE datname = current_database()"; }
# The server's CPU time: when the server runs on this machine and its
# postmaster is readable, the CPU time of the backends it reaped (cutime +
# cstime of /proc/PID/stat, in clock ticks). Unlike active_time (wall time
# while executing) it hardly grows when other processes load the machine;
# it counts every backend that ends, so use a server of your own (with
# autovacuum off, whose workers would count too).
PM=$(head -1 "$(psql -Atq "$DB" -c "SHOW data_directory")/postmaster.pid" 2>/dev/null || true)
[ -n "$PM" ] && [ -r "/proc/$PM/stat" ] || PM=
TICK=$(getconf CLK_TCK)
cpu() { if [ -n "$PM" ]; then awk -v t="$TICK" '{print ($16 + $17) * 1000 / t}' "/proc/$PM/stat"; else echo 0; fi; }
# end the bench database's other sessions (a pooler's server connections):
# their statistics are written and their CPU time reaped
ends() {
	psql -Atq "$DB" -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()" >/dev/null
	sleep 1
}
measure() { # runs "$@"; prints the database time and the server CPU time it took, in ms
	local a c
	a=$(active) c=$(cpu)
	"$@"
	ends
	echo "$(echo "$(active) - $a" | bc -l) $(echo "$(cpu) - $c" | bc -l)"
}
execs() { # RUNS executions, each a helix process
	for _ in $(seq "$RUNS"); do HELIX_DATABASE_URL=$EXEC_URL "$H" skill exec echo --input '{"a":1}' >/dev/null; done
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
warm() { # WARM executions on one connection
	pgbench -n -M prepared -c 1 -t "$WARM" -f "$WORK/warm.sql" "$DB" >"$WORK/pgbench.log" 2>&1 || { cat "$WORK/pgbench.log" >&2; exit 1; }
}
# ROUNDS rounds of "$1" with the chain on and off; prints a line a round and
# the totals, per execution of $2 executions a round
compare() {
	local r on off a_on=0 a_off=0 c_on=0 c_off=0
	printf '%-6s %12s %12s %8s %12s %12s %8s\n' round "db ms chain" "db ms none" share "cpu ms chain" "cpu ms none" share
	for r in $(seq "$ROUNDS"); do
		trigger ENABLE
		read -r -a on <<<"$(measure "$1")"
		trigger DISABLE
		read -r -a off <<<"$(measure "$1")"
		trigger ENABLE
		printf '%-6s %12.1f %12.1f %7.1f%% %12.0f %12.0f %7.1f%%\n' "$r" "${on[0]}" "${off[0]}" "$(pct "${on[0]}" "${off[0]}")" \
			"${on[1]}" "${off[1]}" "$(pct "${on[1]}" "${off[1]}")"
		a_on=$(echo "$a_on + ${on[0]}" | bc -l) a_off=$(echo "$a_off + ${off[0]}" | bc -l)
		c_on=$(echo "$c_on + ${on[1]}" | bc -l) c_off=$(echo "$c_off + ${off[1]}" | bc -l)
	done
	local n=$(($2 * ROUNDS))
	printf '  database time per execution %.4f ms chained, %.4f ms not: the chain adds %.4f ms, %.1f %%\n' \
		"$(echo "$a_on / $n" | bc -l)" "$(echo "$a_off / $n" | bc -l)" "$(echo "($a_on - $a_off) / $n" | bc -l)" "$(pct "$a_on" "$a_off")"
	if [ -n "$PM" ]; then
		printf '  server CPU per execution %.4f ms chained, %.4f ms not: the chain adds %.4f ms, %.1f %%\n' \
			"$(echo "$c_on / $n" | bc -l)" "$(echo "$c_off / $n" | bc -l)" "$(echo "($c_on - $c_off) / $n" | bc -l)" "$(pct "$c_on" "$c_off")"
	fi
	echo "  load: $(uptime | sed 's/.*load average: //')"
}
pct() { if [ "$(echo "$2 > 0" | bc -l)" = 1 ]; then echo "($1 - $2) * 100 / $2" | bc -l; else echo 0; fi; }

echo "server: $(psql -Atq "$DB" -c "SELECT version()" | cut -d' ' -f1-2); shared_preload_libraries: '$(psql -Atq "$DB" -c "SHOW shared_preload_libraries")'; autovacuum $(psql -Atq "$DB" -c "SHOW autovacuum"); server CPU $([ -n "$PM" ] && echo "measured (postmaster $PM)" || echo "not measured (not a local server)")"
echo "load: $(uptime | sed 's/.*load average: //')"
if [ -n "${AUDIT_BENCH_POOLER:-}" ]; then
	echo "append, CLI through $AUDIT_BENCH_POOLER: $RUNS helix skill exec a round (server connections kept warm)"
else
	echo "append, CLI: $RUNS helix skill exec a round, each a new session"
fi
compare execs "$RUNS"
echo "append, warm: $WARM executions' statements a round on one connection (pgbench -M prepared)"
compare warm "$WARM"
# the unchained rows written with the trigger off are out of the chain: start the verify part afresh
psql -q "$DB" -c "DELETE FROM skill_executions WHERE chain_seq IS NULL"

echo "appending $ROWS chained rows..." >&2
start=$(date +%s.%N) c=$(cpu)
left=$ROWS
while [ "$left" -gt 0 ]; do
	n=$(( left < 10000 ? left : 10000 ))
	psql -q "$DB" -c "INSERT INTO skill_executions (skill_name, skill_sha256, engine, user_id, input_sha256, status, started_at, duration_ms, output, limits)
		SELECT 'bench', md5(g::text), 'wasm', gen_random_uuid(), md5(g::text), 'ok', now(), random() * 10, '{\"n\":' || g || '}', '{\"timeout_ms\":30000}'
		FROM generate_series(1, $n) g"
	left=$(( left - n ))
done
append=$(echo "$(date +%s.%N) - $start" | bc -l)
sleep 0.5
appendcpu=$(echo "$(cpu) - $c" | bc -l)
rows=$(psql -Atq "$DB" -c "SELECT count(*) FROM skill_executions")
start=$(date +%s.%N)
"$H" audit verify --table skill_executions >/dev/null
verify=$(echo "$(date +%s.%N) - $start" | bc -l)
printf 'bulk append: %d rows in %.1f s (%.0f rows/s); server CPU %.4f ms a row\n' "$ROWS" "$append" "$(echo "$ROWS / $append" | bc -l)" "$(echo "$appendcpu / $ROWS" | bc -l)"
printf 'verify: %d rows in %.1f s (%.0f rows/s)\n' "$rows" "$verify" "$(echo "$rows / $verify" | bc -l)"
echo "load: $(uptime | sed 's/.*load average: //')"
