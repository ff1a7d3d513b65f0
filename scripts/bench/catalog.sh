#!/usr/bin/env bash
# Times `helix catalog fetch` of the full models.dev snapshot (~3 MB, ~5,270
# models) into a scratch database, against the reference: psql loading the same
# file set-based (jsonb_each over providers and models, no typing, no checks).
# Usage: scripts/bench/catalog.sh [snapshot.json] [runs]
# Needs psql and a server at HELIX_TEST_DATABASE_URL (default: local postgres).
set -euo pipefail
file=${1:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/realworld/models.dev/api-2026-07-02.json}
runs=${2:-3}
server=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
cd "$(dirname "$0")/../.."
name=helix_bench_catalog_$$
dburl=$(echo "$server" | sed -E "s#/[^/?]*(\?|$)#/$name\1#")
bin=$(mktemp -d)/helix
trap 'psql -q "$server" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null; rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -o "$bin" ./cmd/helix
psql -q "$server" -c "CREATE DATABASE $name" >/dev/null
export HELIX_DATABASE_URL=$dburl
"$bin" migrate up >/dev/null
psql -q "$dburl" -c "CREATE TABLE ref_models (provider text, model_id text, descriptor jsonb)" >/dev/null

now() { date +%s.%N; }
best_helix=999 best_ref=999
for i in $(seq "$runs"); do
	psql -q "$dburl" -c "DELETE FROM model_catalog_snapshots; TRUNCATE ref_models" >/dev/null
	t0=$(now)
	/usr/bin/time -f '%U %S' -o "$bin.cpu" "$bin" catalog fetch --source "$file" >/dev/null
	t1=$(now)
	psql -q "$dburl" -v ON_ERROR_STOP=1 >/dev/null <<SQL
\set content \`cat $file\`
INSERT INTO ref_models SELECT p.key, m.key, m.value
FROM jsonb_each(:'content'::jsonb) p, jsonb_each(p.value->'models') m;
SQL
	t2=$(now)
	h=$(echo "$t1 - $t0" | bc) r=$(echo "$t2 - $t1" | bc)
	read -r user sys <"$bin.cpu"
	printf 'run %d: helix catalog fetch %.3fs (helix CPU %.2fs user + %.2fs sys), psql reference %.3fs\n' "$i" "$h" "$user" "$sys" "$r"
	best_helix=$(echo "if ($h < $best_helix) $h else $best_helix" | bc)
	best_ref=$(echo "if ($r < $best_ref) $r else $best_ref" | bc)
done
models=$(psql -tA "$dburl" -c "SELECT count(*) FROM model_catalog_models")
printf 'best of %d: helix %.3fs, psql %.3fs, ratio helix/psql %.2f (%s models, %s bytes; target < 2 s)\n' \
	"$runs" "$best_helix" "$best_ref" "$(echo "$best_helix / $best_ref" | bc -l)" "$models" "$(stat -c %s "$file")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared; wall times are noisy)"
