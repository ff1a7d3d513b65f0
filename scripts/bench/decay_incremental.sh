#!/usr/bin/env bash
# Benchmark an incremental (nightly) `helix decay run` against a full one
# (`decay run --full`, today's every-row rewrite) on the same data: 1,000,000
# memories and 7,000 layers, after a full run at T0 and a day in which 1 % of
# the memories (and 1 % of the layers) were accessed. Both runs compute as of
# T1 = T0 + 1 day on two copies of one database. Goal: the incremental run
# writes <= 5 % of the rows and takes <= 5 % of the wall time of the full run,
# and leaves the same state (checked with checksums of every row's stability,
# reviewed_at, forgotten and helix_retention at T1 in both copies).
#
# Uses the Postgres server the tests use: HELIX_TEST_DATABASE_URL, else
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable. Needs psql and go.
# ROWS=100000 scripts/bench/decay_incremental.sh for a quicker look. KEEP=1
# keeps the databases (and a copy as of before the two runs, ..._pre_PID).
set -euo pipefail

ROWS=${ROWS:-1000000}
CHUNK=${CHUNK:-50000}
FORGET=${FORGET:-0.7}
T0=2026-11-01T12:00:00Z
T1=2026-11-02T12:00:00Z
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
INC=helix_bench_decay_inc_$$
FULL=helix_bench_decay_full_$$
dburl() { printf '%s' "$SERVER" | sed -E "s#^(postgres(ql)?://[^/]+)/[^?]*#\1/$1#"; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
BIN=$WORK/helix

psql_s() { psql -X -q -v ON_ERROR_STOP=1 "$SERVER" "$@"; }
psql_i() { psql -X -q -v ON_ERROR_STOP=1 "$(dburl "$INC")" "$@"; }
psql_f() { psql -X -q -v ON_ERROR_STOP=1 "$(dburl "$FULL")" "$@"; }
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }
cleanup() {
	if [ -z "${KEEP:-}" ]; then
		psql_s -c "DROP DATABASE IF EXISTS $INC WITH (FORCE)" >/dev/null 2>&1 || true
		psql_s -c "DROP DATABASE IF EXISTS $FULL WITH (FORCE)" >/dev/null 2>&1 || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

echo "building helix"
(cd "$ROOT" && CGO_ENABLED=0 go build -o "$BIN" ./cmd/helix)
export XDG_CONFIG_HOME=$WORK HELIX_CONFIG=
psql_s -c "CREATE DATABASE $INC"
HELIX_DATABASE_URL=$(dburl "$INC") "$BIN" migrate up >/dev/null

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
HELIX_DATABASE_URL=$(dburl "$INC") "$BIN" decay run --at "$T0" --forget-below "$FORGET" --batch-size "$CHUNK" >/dev/null

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
psql_s -c "CREATE DATABASE $FULL TEMPLATE $INC"
[ -n "${KEEP:-}" ] && psql_s -c "CREATE DATABASE ${INC/_inc_/_pre_} TEMPLATE $INC"
psql_f -c "VACUUM ANALYZE" -c "CHECKPOINT" >/dev/null

echo "(i) helix decay run (incremental) at $T1"
t0=$(now)
HELIX_DATABASE_URL=$(dburl "$INC") "$BIN" decay run --at "$T1" --forget-below "$FORGET" --batch-size "$CHUNK" --output json >"$WORK/i.json" 2>"$WORK/i.log"
ti=$(secs "$t0" "$(now)")
echo "(f) helix decay run --full at $T1"
t0=$(now)
HELIX_DATABASE_URL=$(dburl "$FULL") "$BIN" decay run --full --at "$T1" --forget-below "$FORGET" --batch-size "$CHUNK" --output json >"$WORK/f.json" 2>"$WORK/f.log"
tf=$(secs "$t0" "$(now)")

field() { grep -o "\"$2\":[^,}]*" "$1" | head -1 | cut -d: -f2 | tr -d '" '; }
mi=$(field "$WORK/i.json" memories); li=$(field "$WORK/i.json" layers); modei=$(field "$WORK/i.json" mode)
mf=$(field "$WORK/f.json" memories); lf=$(field "$WORK/f.json" layers); modef=$(field "$WORK/f.json" mode)
wi=$((mi + li)); wf=$((mf + lf))

# An order-independent checksum of every row's state and current retention
# (9 significant digits; helix_retention is the readers' view).
SUM="SELECT count(*) || ':' || sum(hashtext(x)::numeric) FROM (
  SELECT id || ':' || round(stability::numeric, 9) || ':' || coalesce(reviewed_at::text, '-') || ':' || forgotten
         || ':' || round(helix_retention(m, '$T1')::numeric, 9) AS x FROM memories m
  UNION ALL
  SELECT id || ':' || coalesce(decay_rate::text, '-') || ':' || forgotten || ':' || round(helix_retention(l, '$T1')::numeric, 9)
  FROM psychology_layers l) s"
ci=$(psql_i -Atc "$SUM"); cf=$(psql_f -Atc "$SUM")

pct() { echo "100 * $1 / $2" | bc -l; }
rp=$(pct "$wi" "$wf"); tp=$(pct "$ti" "$tf")
echo
echo "data: $ROWS memories + 7,000 layers; accessed since the last run: $accessed memories (+ 1 % of layers); due to cross $FORGET by T1: $due memories"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
si=$(field "$WORK/i.json" seconds); sf=$(field "$WORK/f.json" seconds)
printf '(i) %-12s %8.2f s wall (%.2f s in the run)  rows written %9d  (%d memories, %d layers)\n' "$modei" "$ti" "$si" "$wi" "$mi" "$li"
printf '(f) %-12s %8.2f s wall (%.2f s in the run)  rows written %9d  (%d memories, %d layers)\n' "$modef" "$tf" "$sf" "$wf" "$mf" "$lf"
printf 'rows written (i)/(f) = %.2f %%   goal <= 5 %%   %s\n' "$rp" "$( (($(echo "$rp <= 5" | bc))) && echo met || echo MISSED)"
printf 'wall time    (i)/(f) = %.2f %%   goal <= 5 %%   %s\n' "$tp" "$( (($(echo "$tp <= 5" | bc))) && echo met || echo MISSED)"
echo "state checksum (i) $ci"
echo "state checksum (f) $cf   $([ "$ci" = "$cf" ] && echo same || echo DIFFERENT)"
[ "$ci" = "$cf" ] && [ "$modei" = incremental ]
