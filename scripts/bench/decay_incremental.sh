#!/usr/bin/env bash
# Benchmark an incremental (nightly) `helix decay run` against a full one
# (`decay run --full`, every row rewritten) on the same data: 1,000,000
# memories and 7,000 layers (ROWS), after a full run at T0 and a day in which
# 1 % of the memories (and 1 % of the layers) were accessed. Every run
# computes as of T1 = T0 + 1 day on its own copy of that database, in the
# order incremental, full, full, incremental (interleaved: a load that
# changes during the script weighs on both). Each run is reported in wall
# time, helix's CPU (user + system, /usr/bin/time) and PostgreSQL's CPU (the
# utime + stime of the run's backends, sampled from /proc every 50 ms until
# they exit: the last 50 ms of a backend can be missed), and in rows
# written. Goal: the incremental run takes <= 5 % of the full run's wall
# time and PostgreSQL CPU and writes <= 5 % of its rows, and leaves the same
# state (checked with checksums of every row's stability, reviewed_at,
# forgotten and helix_retention at T1 in an incremental and a full copy).
#
# Uses the Postgres server the tests use: HELIX_TEST_DATABASE_URL, else
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable, and reads its
# backends' /proc entries, so it must run on the database's host. Needs psql,
# go, bc and /usr/bin/time. ROWS=200000 scripts/bench/decay_incremental.sh for
# a quicker look, HELIX_BIN=path a binary already built. KEEP=1 keeps the databases (the copy as of before the runs
# is ..._pre_PID).
set -euo pipefail

ROWS=${ROWS:-1000000}
CHUNK=${CHUNK:-50000}
FORGET=${FORGET:-0.7}
T0=2026-11-01T12:00:00Z
T1=2026-11-02T12:00:00Z
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
PRE=helix_bench_decay_pre_$$
RUNS="i1 f1 f2 i2"
dburl() { printf '%s' "$SERVER" | sed -E "s#^(postgres(ql)?://[^/]+)/[^?]*#\1/$1#"; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
BIN=$WORK/helix

psql_s() { psql -X -q -v ON_ERROR_STOP=1 "$SERVER" "$@"; }
psql_d() { local d=$1; shift; psql -X -q -v ON_ERROR_STOP=1 "$(dburl "$d")" "$@"; }
psql_i() { psql_d "$PRE" "$@"; }
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }
cleanup() {
	if [ -z "${KEEP:-}" ]; then
		for d in $PRE $(for r in $RUNS; do printf '%s ' "helix_bench_decay_${r}_$$"; done); do
			psql_s -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null 2>&1 || true
		done
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

if [ -n "${HELIX_BIN:-}" ]; then
	BIN=$HELIX_BIN
else
	echo "building helix"
	(cd "$ROOT" && CGO_ENABLED=0 go build -o "$BIN" ./cmd/helix)
fi
export XDG_CONFIG_HOME=$WORK HELIX_CONFIG=
psql_s -c "CREATE DATABASE $PRE"
HELIX_DATABASE_URL=$(dburl "$PRE") "$BIN" migrate up >/dev/null

echo "seeding $ROWS memories (1,000 users; a third recalled before; a quarter with a stability) and 7,000 layers"
psql_i <<SQL
INSERT INTO memories (user_id, type, content, created_at, last_accessed, access_count, stability, difficulty)
SELECT md5((g % 1000)::text)::uuid, 'episodic', 'memory number ' || g,
       '2026-01-01T00:00:00Z'::timestamptz + (g % 300) * interval '1 day' + (g % 86400) * interval '1 second',
       CASE WHEN g % 3 = 0 THEN '2026-01-01T00:00:00Z'::timestamptz + (g % 300 + g % 7) * interval '1 day' END,
       CASE WHEN g % 3 = 0 THEN 1 + g % 4 ELSE 0 END,
       CASE WHEN g % 4 = 0 THEN 1 + g % 60 END,
       CASE WHEN g % 5 = 0 THEN 1 + g % 9 END
FROM generate_series(1, $ROWS) g;
INSERT INTO psychology_layers (user_id, layer_number, layer_name, last_updated)
SELECT md5(u::text)::uuid, n, 'layer ' || n, '2026-10-01T00:00:00Z'::timestamptz + (u % 30) * interval '1 day'
FROM generate_series(0, 999) u, generate_series(1, 7) n;
VACUUM ANALYZE;
SQL

echo "night 0: full run at $T0 (--forget-below $FORGET)"
HELIX_DATABASE_URL=$(dburl "$PRE") "$BIN" decay run --at "$T0" --forget-below "$FORGET" --batch-size "$CHUNK" >/dev/null
# A day passes, and autovacuum with it: the full run left a dead version of
# every row. Whether autovacuum had got to them before the platform's
# updates below decided where those put the new versions (into the freed
# space, scattered over the table, or together at its end), and so how many
# pages a nightly run touches: 2.8 to 7 % of a full run's time in the run
# between otherwise identical runs of this script. Vacuumed, as a day would.
psql_i -c "VACUUM ANALYZE" >/dev/null

echo "the platform's day: 1 % of the memories and 1 % of the layers accessed between T0 and T1"
psql_i <<SQL
UPDATE memories SET last_accessed = '$T0'::timestamptz + (abs(hashtext(id::text)) % 86400) * interval '1 second',
                    access_count = access_count + 1
WHERE abs(hashtext(id::text || 'night')) % 100 = 0;
UPDATE psychology_layers SET last_updated = '$T0'::timestamptz + interval '3 hours'
WHERE abs(hashtext(id::text || 'night')) % 100 = 0;
VACUUM ANALYZE;
CHECKPOINT;
SQL
accessed=$(psql_i -Atc "SELECT count(*) FROM memories WHERE last_accessed > '$T0'")
due=$(psql_i -Atc "SELECT count(*) FROM memories WHERE forget_at <= '$T1'")
for r in $RUNS; do
	psql_s -c "CREATE DATABASE helix_bench_decay_${r}_$$ TEMPLATE $PRE"
	psql_d "helix_bench_decay_${r}_$$" -c "VACUUM ANALYZE" >/dev/null
done

# pgcpu DB OUT: until killed, sample the CPU ticks of every backend of DB
# (whose process title names it) and write their sum in seconds to OUT.
pgcpu() {
	local db=$1 out=$2 hz pid f
	hz=$(getconf CLK_TCK)
	declare -A ticks=()
	trap 'sum=0; for pid in "${!ticks[@]}"; do sum=$((sum + ticks[$pid])); done; echo "scale=3; $sum / $hz" | bc >"$out"; exit 0' TERM
	while :; do
		for pid in $(pgrep -f "^postgres: .* $db " || true); do
			if read -r -a f 2>/dev/null <"/proc/$pid/stat"; then
				ticks[$pid]=$((f[13] + f[14]))
			fi
		done
		sleep 0.05
	done
}

# run NAME FLAGS...: one helix decay run on NAME's copy as of T1.
run() {
	local r=$1 db=helix_bench_decay_${1}_$$ t0 sampler
	shift
	psql_s -c CHECKPOINT >/dev/null
	pgcpu "$db" "$WORK/$r.pg" &
	sampler=$!
	t0=$(now)
	HELIX_DATABASE_URL=$(dburl "$db") /usr/bin/time -f "%U %S" -o "$WORK/$r.cpu" \
		"$BIN" decay run --at "$T1" --forget-below "$FORGET" --batch-size "$CHUNK" --output json "$@" >"$WORK/$r.json" 2>"$WORK/$r.log"
	secs "$t0" "$(now)" >"$WORK/$r.wall"
	sleep 0.2 # the backends exit once helix has closed its connections
	kill -TERM "$sampler"
	wait "$sampler" || true
	echo "($r) $(cut -c1-6 "$WORK/$r.wall") s wall, load $(cut -d' ' -f1 /proc/loadavg)"
}
echo "runs as of $T1, interleaved: incremental, full, full, incremental"
run i1
run f1 --full
run f2 --full
run i2

field() { grep -o "\"$2\":[^,}]*" "$1" | head -1 | cut -d: -f2 | tr -d '" '; }

# An order-independent checksum of every row's state and current retention
# (9 significant digits; helix_retention is the readers' view).
SUM="SELECT count(*) || ':' || sum(hashtext(x)::numeric) FROM (
  SELECT id || ':' || round(stability::numeric, 9) || ':' || coalesce(reviewed_at::text, '-') || ':' || forgotten
         || ':' || round(helix_retention(m, '$T1')::numeric, 9) AS x FROM memories m
  UNION ALL
  SELECT id || ':' || coalesce(decay_rate::text, '-') || ':' || forgotten || ':' || round(helix_retention(l, '$T1')::numeric, 9)
  FROM psychology_layers l) s"
ci=$(psql_d "helix_bench_decay_i1_$$" -Atc "$SUM"); cf=$(psql_d "helix_bench_decay_f1_$$" -Atc "$SUM")

echo
echo "data: $ROWS memories + 7,000 layers; accessed since the last run: $accessed memories (+ 1 % of layers); due to cross $FORGET by T1: $due memories"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
printf '%-4s %-12s %9s %9s %9s %9s %9s\n' run mode "wall s" "in-run s" "helix s" "pg s" rows
for r in $RUNS; do
	m=$(field "$WORK/$r.json" memories); l=$(field "$WORK/$r.json" layers)
	read -r u sy <"$WORK/$r.cpu"
	printf '%-4s %-12s %9.2f %9.2f %9.2f %9.2f %9d\n' "$r" "$(field "$WORK/$r.json" mode)" "$(cat "$WORK/$r.wall")" \
		"$(field "$WORK/$r.json" seconds)" "$(echo "$u + $sy" | bc)" "$(cat "$WORK/$r.pg")" $((m + l))
	eval "rows_$r=$((m + l)) wall_$r=$(cat "$WORK/$r.wall") run_$r=$(field "$WORK/$r.json" seconds) helix_$r=$(echo "$u + $sy" | bc) pg_$r=$(cat "$WORK/$r.pg")"
done
# ratio A B: 100 * (A_i1 + A_i2) / (A_f1 + A_f2), in %
ratio() { echo "100 * ($(eval echo "\$${1}_i1 + \$${1}_i2")) / ($(eval echo "\$${1}_f1 + \$${1}_f2"))" | bc -l; }
verdict() { (($(echo "$1 <= 5" | bc))) && echo met || echo MISSED; }
echo "incremental / full (the two of each summed):"
for k in rows wall run pg helix; do
	case $k in
	rows) what="rows written      " ;; wall) what="wall time         " ;; run) what="time in the run   " ;;
	pg) what="PostgreSQL CPU    " ;; helix) what="helix CPU         " ;;
	esac
	v=$(ratio $k)
	if [ "$k" = helix ]; then
		printf '%s %6.2f %%\n' "$what" "$v"
	else
		printf '%s %6.2f %%   goal <= 5 %%   %s\n' "$what" "$v" "$(verdict "$v")"
	fi
done
echo "state checksum (i1) $ci"
echo "state checksum (f1) $cf   $([ "$ci" = "$cf" ] && echo same || echo DIFFERENT)"
[ "$ci" = "$cf" ] && [ "$(field "$WORK/i1.json" mode)" = incremental ] && [ "$(field "$WORK/i2.json" mode)" = incremental ]
