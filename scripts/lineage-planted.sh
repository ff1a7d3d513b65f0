#!/usr/bin/env bash
# Patterns over time on planted data (issue 45): a user with 4 topic
# clusters; `helix synthesize`; 10 % more memories on 3 of the topics, the
# 4th topic's memories deleted, a 5th topic added; `helix synthesize` again.
# Prints each semantic cluster's lineage after each run with the topic most
# of its members belong to: the 3 persisting topics keep their lineage ids
# (persisting or growing), the 4th is ended, the 5th is new.
# (TestLineagePlanted in internal/synthesis/synthstore runs 20 such plantings.)
#
#   scripts/lineage-planted.sh               # a fresh database on the test server
#   SEED=7 scripts/lineage-planted.sh
#   URL=postgres://…/db scripts/lineage-planted.sh   # a migrated database of your own
#
# Uses the Postgres server the tests use (HELIX_TEST_DATABASE_URL, else
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable).
set -euo pipefail
cd "$(dirname "$0")/.."
SEED=${SEED:-1} URL=${URL:-} USER_ID=${USER_ID:-45454545-4545-4545-8545-454545454545}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
WORK=$(mktemp -d)
NAME=helix_lineage_planted_$$
if [ -n "$URL" ]; then
	trap 'rm -rf "$WORK"' EXIT
else
	trap 'rm -rf "$WORK"; psql -X -q "$SERVER" -c "DROP DATABASE IF EXISTS $NAME WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
	psql -X -q "$SERVER" -c "CREATE DATABASE $NAME"
	URL=$(printf '%s' "$SERVER" | sed -E "s#/[^/?]*(\?|$)#/$NAME\1#")
fi
go build -o "$WORK/helix" ./cmd/helix
go run ./scripts/lineageplant -user "$USER_ID" -seed "$SEED" -out "$WORK"
export HELIX_DATABASE_URL=$URL XDG_CONFIG_HOME=$WORK HELIX_CONFIG=
H="$WORK/helix"
"$H" migrate up >/dev/null
psql -X -q "$URL" -c "CREATE TEMP TABLE t (id uuid, topic int)" -c "\copy t FROM '$WORK/topics.tsv'" \
	-c "CREATE TABLE IF NOT EXISTS lineage_planted_topics (id uuid PRIMARY KEY, topic int)" \
	-c "INSERT INTO lineage_planted_topics SELECT * FROM t ON CONFLICT DO NOTHING"
show() {
	echo "== $1"
	psql -X -q "$URL" -v user="$USER_ID" <<'SQL'
SELECT l.id AS lineage, l.status, l.runs_seen, l.size,
       (SELECT mode() WITHIN GROUP (ORDER BY t.topic) FROM unnest(s.memory_ids) m JOIN lineage_planted_topics t ON t.id = m) AS topic
FROM helix_pattern_lineages l LEFT JOIN memory_synthesis s ON s.id = l.pattern_id
WHERE l.user_id = :'user' AND l.kind = 'semantic_cluster'
ORDER BY l.status = 'ended', topic, l.first_seen_at;
SQL
}
"$H" import memories "$WORK/before.jsonl" >/dev/null
"$H" synthesize --user-id "$USER_ID" >/dev/null
show "after the first run (4 topics)"
psql -X -q "$URL" -c "DELETE FROM memories WHERE id IN ($(sed "s/.*/'&'/" "$WORK/deleted.txt" | paste -sd,))"
"$H" import memories "$WORK/added.jsonl" >/dev/null
"$H" synthesize --user-id "$USER_ID" >/dev/null
show "after the second run (topics 0-2 grown by 10 %, topic 3 deleted, topic 4 new)"
