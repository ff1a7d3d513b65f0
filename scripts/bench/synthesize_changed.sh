#!/usr/bin/env bash
# What `helix synthesize --all-users` costs when nothing changed: one grouped
# scan of memories that computes every user's digest and compares it with
# helix_synthesis_state. USERS users × PER memories with DIM-dimensional
# embeddings; the state is first recorded by a real --all-users run over a
# sample of SAMPLE users' data (to time the per-user work it saves), and for
# the rest with the same SQL the command's Snapshot uses.
# Prints: the re-run's wall time and users recomputed (want 0), then after
# editing 1 % of the users' memories, the re-run's users recomputed (want 1 %).
#
# Uses the Postgres server the tests use: HELIX_TEST_DATABASE_URL, else
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable.
set -euo pipefail

USERS=${USERS:-100000}
PER=${PER:-10}
DIM=${DIM:-384}
SAMPLE=${SAMPLE:-200}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
NAME=helix_bench_synth_changed_$$
DBURL=$(printf '%s' "$SERVER" | sed -E "s#^(postgres(ql)?://[^/]+)/[^?]*#\1/$NAME#")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
BIN=$WORK/helix
psql_s() { psql -X -q -v ON_ERROR_STOP=1 "$SERVER" "$@"; }
psql_d() { psql -X -q -v ON_ERROR_STOP=1 "$DBURL" "$@"; }
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }
cleanup() {
	psql_s -c "DROP DATABASE IF EXISTS $NAME WITH (FORCE)" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

(cd "$ROOT" && CGO_ENABLED=0 go build -o "$BIN" ./cmd/helix)
export HELIX_DATABASE_URL=$DBURL XDG_CONFIG_HOME=$WORK HELIX_CONFIG=
psql_s -c "CREATE DATABASE $NAME"
"$BIN" migrate up >/dev/null
ROWS=$((USERS * PER))
echo "seeding $USERS users × $PER memories ($ROWS rows, $DIM-dimensional embeddings)"
psql_d <<SQL
INSERT INTO memories (user_id, type, content, embedding, emotional_valence, created_at)
SELECT md5('u' || g % $USERS)::uuid, 'episodic', 'memory number ' || g,
       (SELECT array_agg(((g * 31 + k * 17) % 1000) / 1000.0)::real[] FROM generate_series(1, $DIM) k),
       ((g % 21) - 10) / 10.0, '2026-01-01T00:00:00Z'::timestamptz + g * interval '1 minute'
FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE memories;
SQL

echo "recording the state: a real --all-users run over $SAMPLE users' memories, then the rest set-based"
psql_d -c "CREATE TABLE held AS SELECT * FROM memories WHERE user_id NOT IN (SELECT DISTINCT user_id FROM memories ORDER BY user_id LIMIT $SAMPLE)" \
       -c "DELETE FROM memories WHERE user_id NOT IN (SELECT DISTINCT user_id FROM memories ORDER BY user_id LIMIT $SAMPLE)"
t0=$(now)
"$BIN" synthesize --all-users --output json >"$WORK/sample.json" 2>/dev/null
tsample=$(secs "$t0" "$(now)")
SETTINGS=$(psql_d -Atc "SELECT settings FROM helix_synthesis_state LIMIT 1")
psql_d <<SQL
INSERT INTO memories SELECT * FROM held;
DROP TABLE held;
INSERT INTO helix_synthesis_state (user_id, settings, memories, digest)
SELECT m.user_id, \$\$$SETTINGS\$\$, count(*),
       sum(hash_record_extended(ROW(m.id, m.content, m.embedding::real[], m.emotional_valence, m.created_at), 0))
FROM memories m WHERE m.user_id NOT IN (SELECT user_id FROM helix_synthesis_state) GROUP BY m.user_id;
VACUUM ANALYZE;
SQL

echo "re-run with no memory changes"
t0=$(now)
"$BIN" synthesize --all-users --output json >"$WORK/rerun.json" 2>/dev/null
trerun=$(secs "$t0" "$(now)")
field() { grep -o "\"$2\": *[0-9]*" "$1" | tail -1 | grep -o "[0-9]*$"; }
echo "editing one memory each of 1 % of the users"
psql_d -c "UPDATE memories SET content = content || ' (edited)' WHERE id IN (
	SELECT DISTINCT ON (user_id) id FROM memories WHERE abs(hashtext(user_id::text)) % 100 = 0 ORDER BY user_id, id)"
edited=$(psql_d -Atc "SELECT count(DISTINCT user_id) FROM memories WHERE content LIKE '%(edited)'")
"$BIN" synthesize --all-users --dry-run --output json >"$WORK/changed.json" 2>/dev/null

per_user=$(echo "$tsample / $SAMPLE" | bc -l)
echo
echo "data: $USERS users × $PER memories, $DIM dims; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'full synthesis of %d users: %.2f s (%.3f s per user; all %d users ≈ %.0f s)\n' "$SAMPLE" "$tsample" "$per_user" "$USERS" "$(echo "$per_user * $USERS" | bc -l)"
printf 're-run without changes: %.2f s, users recomputed %s (want 0), unchanged %s\n' "$trerun" "$(field "$WORK/rerun.json" users)" "$(field "$WORK/rerun.json" unchanged)"
printf 'after editing %s users: users selected %s (want %s)\n' "$edited" "$(field "$WORK/changed.json" users)" "$edited"
[ "$(field "$WORK/rerun.json" users)" = 0 ] && [ "$(field "$WORK/changed.json" users)" = "$edited" ]
