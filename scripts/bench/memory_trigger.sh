#!/usr/bin/env bash
# What helix's change-marking triggers on memories (migration 00170) cost the
# platform's own writes: pgbench runs C clients (default 8) inserting one
# memory per transaction, and, in a second script, inserting one and
# updating its content in the same transaction, for T seconds (default 10)
# each, all clients writing the SAME user (the worst case for contention:
# a design that kept one counter row per user would serialise them) and
# then each client its own user; with helix's triggers enabled and disabled,
# interleaved (on, off, on, off). Prints transactions per second and mean
# latency of each, and the ratio on/off.
#
#   scripts/bench/memory_trigger.sh
#   C=16 T=20 scripts/bench/memory_trigger.sh
# Uses the test server (HELIX_TEST_DATABASE_URL); needs pgbench.
set -euo pipefail
cd "$(dirname "$0")/../.."
C=${C:-8} T=${T:-10}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
NAME=helix_bench_trigger_$$
DBURL=$(printf '%s' "$SERVER" | sed -E "s#^(postgres(ql)?://[^/]+)/[^?]*#\1/$NAME#")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; psql -X -q "$SERVER" -c "DROP DATABASE IF EXISTS $NAME WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
CGO_ENABLED=0 go build -o "$WORK/helix" ./cmd/helix
psql -X -q "$SERVER" -c "CREATE DATABASE $NAME"
HELIX_DATABASE_URL=$DBURL HELIX_CONFIG= XDG_CONFIG_HOME=$WORK "$WORK/helix" migrate up >/dev/null 2>&1

# :client_id is 0..C-1; the same user for all, or one per client
for who in same own; do
	user="'00000000-0000-4000-8000-000000000000'::uuid"
	[ "$who" = own ] && user="('00000000-0000-4000-8000-' || lpad(:client_id::text, 12, '0'))::uuid"
	cat >"$WORK/insert-$who.sql" <<SQL
INSERT INTO memories (id, user_id, type, content, embedding, emotional_valence, created_at)
VALUES (gen_random_uuid(), $user, 'episodic', 'a memory written by the app', ARRAY[0.1, 0.2, 0.3]::real[], 0.5, now());
SQL
	id="('00000000-0000-4000-a000-' || lpad((:client_id * 100000000 + :r)::text, 12, '0'))::uuid"
	cat >"$WORK/edit-$who.sql" <<SQL
\\set r random(1, 99999999)
BEGIN;
INSERT INTO memories (id, user_id, type, content, embedding, emotional_valence, created_at)
VALUES ($id, $user, 'episodic', 'first', ARRAY[0.1, 0.2, 0.3]::real[], 0.5, now())
ON CONFLICT (id) DO NOTHING;
UPDATE memories SET content = 'edited' WHERE id = $id;
COMMIT;
SQL
done
triggers() {
	for t in insert update delete truncate; do
		psql -X -q "$DBURL" -c "ALTER TABLE memories $1 TRIGGER helix_memory_changes_$t"
	done
}
bench() { # bench FILE: "tps latency_ms"
	pgbench -n -c "$C" -j 2 -T "$T" -f "$1" "$DBURL" 2>/dev/null |
		awk '/latency average/ { l = $4 } /^tps/ { t = $3 } END { print t, l }'
}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $C clients, $T s each"
for f in insert-same insert-own edit-same edit-own; do
	for state in ENABLE DISABLE ENABLE DISABLE; do
		triggers "$state"
		read -r tps lat < <(bench "$WORK/$f.sql")
		echo "$f $state $tps $lat" >>"$WORK/res"
		printf '%-12s triggers %-8s %9.1f tps  %7.2f ms mean latency\n' "$f" "${state,,}d" "$tps" "$lat"
	done
done
awk '{ k = $1; if ($2 == "ENABLE") { on[k] += $3 } else { off[k] += $3 } } END {
	for (k in on) printf "%-12s with triggers / without: %.3f of the throughput\n", k, on[k] / off[k] }' "$WORK/res" | sort
echo "markers written: $(psql -X -Atc 'SELECT count(*) FROM helix_memory_changes' "$DBURL") for $(psql -X -Atc 'SELECT count(*) FROM memories' "$DBURL") memories; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
