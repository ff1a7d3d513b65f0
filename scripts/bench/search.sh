#!/usr/bin/env bash
# helix memory search over N memories of one user (default 100,000: the
# Debian fortunes corpus cycled, each copy numbered), whole process each time
# (start, config, connect, query, print), against the floor: a plain psql
# full-text query over the same GIN index (also a whole psql process).
# Prints median and p95 over RUNS queries per measure (default 100).
# Needs fortunes (apt-get install fortunes fortunes-min) and a PostgreSQL.
# Usage: scripts/bench/search.sh [n] [runs]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-100000} runs=${2:-100}
[ -d /usr/share/games/fortunes ] || { echo "install fortunes (apt-get install fortunes fortunes-min)" >&2; exit 2; }
server=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
name=helix_bench_search_$$
dburl=$(echo "$server" | sed -E "s#/[^/?]*(\?|$)#/$name\1#")
dir=$(mktemp -d)
trap 'psql -q "$server" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null 2>&1; rm -rf "$dir"' EXIT
# built as the release is (.goreleaser.yaml, make build): a stripped binary
# starts ~4.5 ms faster here (helix version, median of 40 interleaved runs)
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$dir/helix" ./cmd/helix
psql -q "$server" -c "CREATE DATABASE $name" >/dev/null
export HELIX_DATABASE_URL=$dburl HELIX_EMBED_BASE_URL= HELIX_EMBED_API_KEY= OPENAI_API_KEY=
"$dir/helix" migrate up >/dev/null
U=5f0c7e52-0000-4000-8000-000000000018
# one fortune per line, tabs and newlines flattened
for f in /usr/share/games/fortunes/*; do
  case $f in *.dat|*.u8) continue;; esac
  [ -f "$f" ] && awk 'BEGIN{RS="\n%\n"} {gsub(/[\t\n\\]+/, " "); if (length($0) > 0) print}' "$f"
done >"$dir/fortunes.txt"
psql -q "$dburl" -v ON_ERROR_STOP=1 <<SQL >/dev/null
CREATE TEMP TABLE f (i serial, t text);
\copy f (t) FROM '$dir/fortunes.txt' WITH (FORMAT text)
INSERT INTO memories (user_id, type, content, created_at)
SELECT '$U', 'episodic', f.t || ' (' || g || ')', now() - g * interval '1 minute'
FROM generate_series(1, $n) g JOIN f ON f.i = 1 + g % (SELECT count(*) FROM f);
VACUUM ANALYZE memories; VACUUM ANALYZE helix_memory_search;
SQL
echo "$(psql -Atq "$dburl" -c "SELECT count(*) FROM helix_memory_search WHERE user_id = '$U'") indexed memories for one user; load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
queries=(computer love "science fiction" "the meaning of life" politics food "good programmer" medicine "money and happiness" war dog "time flies" "linux kernel" god music sports "human nature" "women and men" truth "a long day at work")
now() { date +%s%N; }
stats() { sort -n | awk '{a[NR]=$1} END {printf "median %6.1f ms   p95 %6.1f ms   (min %.1f, max %.1f)\n", a[int((NR+1)/2)]/1e6, a[int(NR*0.95+0.999)]/1e6, a[1]/1e6, a[NR]/1e6}'; }
for i in 1 2 3; do "$dir/helix" memory search "warm up" --user-id $U --mode text >/dev/null 2>&1; done
for measure in helix-text psql-floor psql-select1 helix-text psql-floor psql-select1; do
  for r in $(seq "$runs"); do
    q=${queries[$(( r % ${#queries[@]} ))]}
    t0=$(now)
    if [ $measure = psql-select1 ]; then
      psql -Atq "$dburl" -c "SELECT 1" >/dev/null
    elif [ $measure = helix-text ]; then
      "$dir/helix" memory search "$q" --user-id $U --mode text --limit 10 -o json >/dev/null 2>&1
    else
      echo "SELECT s.memory_id, ts_rank(s.tsv, q, 1) r FROM helix_memory_search s, websearch_to_tsquery('english', :'q') q WHERE s.user_id = '$U' AND s.tsv @@ q ORDER BY r DESC LIMIT 10" |
        psql -Atq "$dburl" -v q="$q" >/dev/null
    fi
    echo $(( $(now) - t0 ))
  done | { printf '%-12s ' $measure; stats; }
done
if [ -n "${EXPLAIN:-}" ]; then
  for q in "${queries[@]}"; do
    printf '%-22s ' "$q"
    psql -Atq "$dburl" -v q="$q" <<SQL | grep 'Execution Time'
EXPLAIN (ANALYZE, TIMING OFF) SELECT s.memory_id, ts_rank(s.tsv, tq.q, 1) r
FROM helix_memory_search s, (SELECT string_agg(quote_literal(l), ' | ')::tsquery q FROM unnest(tsvector_to_array(to_tsvector('english', :'q'))) l) tq
WHERE s.user_id = '$U' AND s.tsv @@ tq.q ORDER BY r DESC, s.memory_id LIMIT 10;
SQL
  done
fi
echo "psql-select1 is psql starting, connecting and running SELECT 1: the part of the floor that is not the query"
echo "note: the floor ANDs the query's words (websearch_to_tsquery) and reads no content; helix ORs them (ranks more rows) and reads the results' rows"
