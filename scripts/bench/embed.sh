#!/usr/bin/env bash
# helix embed over N memories of one user (default 10,000; fortunes and
# generated sentences) against a local OpenAI-compatible server
# (scripts/bench/embedserver, 1,536 dimensions as text-embedding-3-small,
# optional per-request latency): wall time, memories per second, requests;
# then a re-run, which must send nothing.
# Usage: scripts/bench/embed.sh [n] [server-delay]   e.g. embed.sh 10000 50ms
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-10000} delay=${2:-0s}
server=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
name=helix_bench_embed_$$
dburl=$(echo "$server" | sed -E "s#/[^/?]*(\?|$)#/$name\1#")
dir=$(mktemp -d)
srv=
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; psql -q "$server" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null 2>&1; rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/helix" ./cmd/helix
go build -o "$dir/embedserver" ./scripts/bench/embedserver
"$dir/embedserver" -dim 1536 -delay "$delay" >"$dir/addr" &
srv=$!
for _ in $(seq 50); do [ -s "$dir/addr" ] && break; sleep 0.1; done
addr=$(head -1 "$dir/addr")
psql -q "$server" -c "CREATE DATABASE $name" >/dev/null
export HELIX_DATABASE_URL=$dburl HELIX_EMBED_BASE_URL=http://$addr/v1 HELIX_EMBED_MODEL=bench-1536
"$dir/helix" migrate up >/dev/null
U=5f0c7e52-0000-4000-8000-000000000018
psql -q "$dburl" -v ON_ERROR_STOP=1 -c "INSERT INTO memories (user_id, type, content, created_at)
  SELECT '$U', 'episodic', 'Memory ' || i || ': ' || (ARRAY['walked the dog by the river','met Sam for coffee and talked about the move','finished the quarterly report late','the sourdough starter doubled overnight','felt anxious before the dentist','ran eight miles at an easy pace'])[1 + i % 6] || ' ' || md5(i::text),
         now() - i * interval '1 minute' FROM generate_series(1, $n) i" >/dev/null
echo "helix embed: $n memories, 1,536 dimensions, local server (delay $delay per request); load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
now() { date +%s.%N; }
for conc in 1 4; do
  psql -q "$dburl" -c "UPDATE memories SET embedding = NULL, embedding_model = NULL, embedding_dim = NULL" >/dev/null
  before=$(curl -s "http://$addr/stats")
  t0=$(now)
  /usr/bin/time -f '%M' -o "$dir/rss" "$dir/helix" embed --user-id $U --concurrency $conc -o json >"$dir/out.json" 2>/dev/null
  t1=$(now)
  after=$(curl -s "http://$addr/stats")
  s=$(echo "$t1 - $t0" | bc)
  req=$(( $(echo "$after" | cut -d' ' -f1) - $(echo "$before" | cut -d' ' -f1) ))
  printf 'concurrency %d: %.2fs, %.0f memories/s, %d requests, peak RSS %d MiB\n' "$conc" "$s" "$(echo "$n / $s" | bc -l)" "$req" "$(( $(cat "$dir/rss") / 1024 ))"
done
before=$(curl -s "http://$addr/stats")
t0=$(now); "$dir/helix" embed --user-id $U -o json >"$dir/rerun.json" 2>/dev/null; t1=$(now)
after=$(curl -s "http://$addr/stats")
printf 're-run: %.2fs, %d requests sent, embedded %s\n' "$(echo "$t1 - $t0" | bc)" \
  "$(( $(echo "$after" | cut -d' ' -f1) - $(echo "$before" | cut -d' ' -f1) ))" \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["embedded"])' "$dir/rerun.json")"
psql -Atq "$dburl" -c "SELECT 'rows with a 1536-dimension embedding by bench-1536: ' || count(*) FROM memories WHERE embedding_model = 'bench-1536' AND cardinality(embedding::real[]) = 1536"
