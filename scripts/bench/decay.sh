#!/usr/bin/env bash
# Benchmark `helix decay run` on a fresh database of 1,000,000 memories against
#   (b) the same maths as one pure-SQL UPDATE (the floor for what Postgres can do),
#   (c) a row-at-a-time UPDATE loop like the old design, on a 20,000-row sample, extrapolated,
#   (d) the alternative design: ids and inputs out, values back in with COPY, then UPDATE ... FROM.
# Goal: (a)/(b) <= 1.5 and (c)/(a) >= 50. Also sends SIGTERM to a second
# `decay run` over the 1,000,000 rows and checks exit 130, whole chunks, and a resuming run.
#
# Uses the Postgres server the tests use: HELIX_TEST_DATABASE_URL, else
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable. Needs psql and go.
# ROWS=100000 scripts/bench/decay.sh for a quicker look.
set -euo pipefail

ROWS=${ROWS:-1000000}
SAMPLE=${SAMPLE:-20000}
CHUNK=${CHUNK:-50000}
AT=2026-11-01T12:00:00Z
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
NAME=helix_bench_decay_$$
# The bench database sits on the same server, named $NAME.
DBURL=$(printf '%s' "$SERVER" | sed -E "s#^(postgres(ql)?://[^/]+)/[^?]*#\1/$NAME#")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
BIN=$WORK/helix

psql_s() { psql -X -q -v ON_ERROR_STOP=1 "$SERVER" "$@"; }
psql_d() { psql -X -q -v ON_ERROR_STOP=1 "$DBURL" "$@"; }
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }
fmt() { printf '%.2f' "$1"; }
cleanup() {
	psql_s -c "DROP DATABASE IF EXISTS $NAME WITH (FORCE)" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

echo "building helix"
(cd "$ROOT" && CGO_ENABLED=0 go build -o "$BIN" ./cmd/helix)
export HELIX_DATABASE_URL=$DBURL XDG_CONFIG_HOME=$WORK HELIX_CONFIG=
psql_s -c "CREATE DATABASE $NAME"
"$BIN" migrate up >/dev/null

echo "seeding $ROWS memories (1,000 users; a third recalled; a quarter with a stability)"
psql_d <<SQL
INSERT INTO memories (user_id, type, content, created_at, last_accessed, access_count, stability, difficulty)
SELECT md5((g % 1000)::text)::uuid, 'episodic', 'memory number ' || g,
       '2026-01-01T00:00:00Z'::timestamptz + (g % 300) * interval '1 day' + (g % 86400) * interval '1 second',
       CASE WHEN g % 3 = 0 THEN '2026-01-01T00:00:00Z'::timestamptz + (g % 300 + g % 7) * interval '1 day' END,
       CASE WHEN g % 3 = 0 THEN 1 + g % 4 ELSE 0 END,
       CASE WHEN g % 4 = 0 THEN 1 + g % 60 END,
       CASE WHEN g % 5 = 0 THEN 1 + g % 9 END
FROM generate_series(1, $ROWS) g;
INSERT INTO psychology_layers (user_id, layer_number, layer_name, last_updated)
SELECT md5(u::text)::uuid, n, 'layer ' || n, '2026-10-01T00:00:00Z'
FROM generate_series(0, 999) u, generate_series(1, 7) n;
-- (b), (c) and (d) get their own copies in the same physical order.
CREATE TABLE memories_sql (LIKE memories INCLUDING ALL);
INSERT INTO memories_sql SELECT * FROM memories;
CREATE TABLE memories_copy (LIKE memories INCLUDING ALL);
INSERT INTO memories_copy SELECT * FROM memories;
VACUUM ANALYZE;
CHECKPOINT;
SQL

# The maths of internal/decay (FSRS-6, default weights), with the constants
# inlined: FACTOR = 0.9^(1/-0.1542) - 1, e^w8, w9, w10, S0 = w2, D0 = w4 - e^(2 w5) + 1.
F=0.98034649441347970; D=-0.1542; EW8=$(echo 'e(1.8722)' | bc -l); W9=0.1666; W10=0.796; S0=2.3065; D0=2.118103970459015
NEW="(last_accessed > coalesce(reviewed_at, created_at) AND last_accessed <= '$AT'::timestamptz)"
SP="coalesce(stability, $S0)"
RREC="power(1 + $F * greatest(date_part('epoch', last_accessed - coalesce(reviewed_at, created_at)), 0) / 86400 / $SP, $D)"
SNEW="CASE WHEN $NEW THEN $SP * (1 + $EW8 * (11 - coalesce(difficulty, $D0)) * power($SP, -$W9) * (exp($W10 * (1 - $RREC)) - 1)) ELSE $SP END"
REF="CASE WHEN $NEW THEN last_accessed ELSE coalesce(reviewed_at, created_at) END"
RET="power(1 + $F * greatest(date_part('epoch', '$AT'::timestamptz - $REF), 0) / 86400 / ($SNEW), $D)"
SET="stability = $SNEW, difficulty = coalesce(difficulty, $D0), reviewed_at = CASE WHEN $NEW THEN last_accessed ELSE reviewed_at END,
     retention = $RET, decayed_at = '$AT'"

echo "(a) helix decay run --batch-size $CHUNK"
t0=$(now)
"$BIN" decay run --at "$AT" --batch-size "$CHUNK" 2>"$WORK/a.log"
ta=$(secs "$t0" "$(now)")

echo "(b) one pure-SQL UPDATE"
t0=$(now)
psql_d -c "UPDATE memories_sql SET $SET"
tb=$(secs "$t0" "$(now)")

diff=$(psql_d -Atc "SELECT max(abs(a.retention - b.retention)) + max(abs(a.stability - b.stability))
	FROM memories a JOIN memories_sql b USING (id)")
echo "    max |(a) - (b)| over retention and stability: $diff"

echo "(c) row-at-a-time UPDATE loop, $SAMPLE rows, one statement and commit each"
psql_d -Atc "SELECT format('UPDATE memories_sql SET %s WHERE id = %L;', \$\$$SET\$\$, id) FROM memories_sql ORDER BY random() LIMIT $SAMPLE" >"$WORK/c.sql"
t0=$(now)
psql_d -f "$WORK/c.sql" >/dev/null
tc_sample=$(secs "$t0" "$(now)")
tc=$(echo "$tc_sample * $ROWS / $SAMPLE" | bc -l)

echo "(d) COPY out, COPY into a temporary table, UPDATE ... FROM (the Go+COPY design, without its Go)"
psql_d -c "VACUUM memories_copy" >/dev/null
t0=$(now)
psql_d -c "\\copy (SELECT id, $SNEW, coalesce(difficulty, $D0), CASE WHEN $NEW THEN last_accessed ELSE reviewed_at END, $RET FROM memories_copy) TO '$WORK/d.tsv'"
psql_d <<SQL
CREATE TEMP TABLE d (id uuid, stability float8, difficulty float8, reviewed_at timestamptz, retention float8);
\\copy d FROM '$WORK/d.tsv'
UPDATE memories_copy m SET stability = d.stability, difficulty = d.difficulty, reviewed_at = d.reviewed_at,
       retention = d.retention, decayed_at = '$AT' FROM d WHERE m.id = d.id;
SQL
td=$(secs "$t0" "$(now)")

rate() { echo "$ROWS / $1" | bc -l; }
echo
echo "rows: $ROWS memories (+ 7,000 layers in (a)); machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '(a) helix decay run      %8.2f s  %10.0f rows/s\n' "$ta" "$(rate "$ta")"
printf '(b) one SQL UPDATE       %8.2f s  %10.0f rows/s\n' "$tb" "$(rate "$tb")"
printf '(c) row at a time        %8.2f s  %10.0f rows/s  (%s rows in %.2f s, extrapolated)\n' "$tc" "$(rate "$tc")" "$SAMPLE" "$tc_sample"
printf '(d) COPY + UPDATE FROM   %8.2f s  %10.0f rows/s\n' "$td" "$(rate "$td")"
ab=$(echo "$ta / $tb" | bc -l); ca=$(echo "$tc / $ta" | bc -l); da=$(echo "$td / $ta" | bc -l)
echo "(a)/(b) = $(fmt "$ab")   goal <= 1.5   $( (( $(echo "$ab <= 1.5" | bc) )) && echo met || echo MISSED)"
echo "(c)/(a) = $(fmt "$ca")   goal >= 50    $( (( $(echo "$ca >= 50" | bc) )) && echo met || echo MISSED)"
echo "(d)/(a) = $(fmt "$da")   (> 1: updating in place beats shipping rows out and back)"

echo
echo "SIGTERM during decay run over $ROWS rows"
psql_d -c "UPDATE memories SET decayed_at = NULL" -c "VACUUM memories" >/dev/null
"$BIN" decay run --at "$AT" --batch-size "$CHUNK" 2>"$WORK/sigterm.log" &
pid=$!
until [ "$(psql_d -Atc "SELECT count(*) FROM decay_progress WHERE last_id IS NOT NULL")" != 0 ]; do sleep 0.05; done
kill -TERM "$pid"
set +e; wait "$pid"; code=$?; set -e
done_rows=$(psql_d -Atc "SELECT count(*) FROM memories WHERE decayed_at IS NOT NULL")
echo "    exit $code (want 130); $done_rows rows written = $((done_rows / CHUNK)) whole chunks + $((done_rows % CHUNK)) rows (want 0)"
"$BIN" decay run --at "$AT" --batch-size "$CHUNK" --output json 2>/dev/null | grep -E '"(memories|resumed_from)"' | sed 's/^/    /'
left=$(psql_d -Atc "SELECT count(*) FROM memories WHERE decayed_at IS NULL")
echo "    rows left after the resuming run: $left (want 0)"
[ "$code" = 130 ] && [ $((done_rows % CHUNK)) = 0 ] && [ "$left" = 0 ]
