#!/usr/bin/env bash
# A tool call and a memory search over one warm stdio MCP session (helix mcp
# serve, driven by scripts/bench/mcpbench with the official Go SDK client)
# against one helix process per call (helix tool exec, helix memory search),
# interleaved in one run (a process after every RUNS/PROC_RUNS warm calls),
# so that both sides see the same load. The tool is an approved HTTP tool
# calling GET /ping on a local server; the memories are N (default 10,000)
# rows of one user, 2,000 of which match the query. Prints p50 and p95 over
# RUNS calls (default 1,000) of the warm session and PROC_RUNS (default RUNS)
# processes, their ratio, and CPU per call (helix and PostgreSQL backends,
# from /proc); goal: warm <= 1/10 of a process.
# Usage: scripts/bench/mcp.sh [runs] [proc_runs] [n]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-1000} proc_runs=${2:-$runs} n=${3:-10000}
server=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
name=helix_bench_mcp_$$
dburl=$(echo "$server" | sed -E "s#/[^/?]*(\?|$)#/$name\1#")
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; psql -q "$server" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null 2>&1; rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$dir/helix" ./cmd/helix
go build -o "$dir/mcpbench" ./scripts/bench/mcpbench
psql -q "$server" -c "CREATE DATABASE $name" >/dev/null
export HELIX_DATABASE_URL=$dburl HELIX_EMBED_BASE_URL= HELIX_EMBED_API_KEY= OPENAI_API_KEY= HELIX_LOG_LEVEL=warn XDG_CONFIG_HOME=$dir
"$dir/helix" migrate up >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$dir/mcpbench" -http 127.0.0.1:$port & pid=$!
cat >"$dir/ping.yaml" <<YAML
name: bench.ping
version: 1.0.0
description: answers pong
entrypoint: {http: {method: GET, url: "http://127.0.0.1:$port/ping"}}
parameters: {type: object}
permissions: {network: ["127.0.0.1:$port"], timeout: 10s}
YAML
"$dir/helix" manifest import "$dir/ping.yaml" >/dev/null 2>&1
"$dir/helix" tool approve bench.ping@1.0.0 --by bench >/dev/null 2>&1
U=5f0c7e52-0000-4000-8000-000000000035
psql -q "$dburl" -v ON_ERROR_STOP=1 >/dev/null <<SQL
INSERT INTO memories (id, user_id, type, content, created_at)
SELECT gen_random_uuid(), '$U', 'episodic', 'memory ' || g || ' about ' || (ARRAY['sourdough bread','the dentist','a long run','music practice','work deadlines'])[1 + g % 5], now() - g * interval '1 minute'
FROM generate_series(1, $n) g;
VACUUM ANALYZE memories; VACUUM ANALYZE helix_memory_search;
SQL
echo "$n memories of one user; $runs warm calls and $proc_runs processes per measure, interleaved; load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
stats() { sort -n | awk '{a[NR]=$1} END {printf "p50 %8.2f ms   p95 %8.2f ms   (n %d)\n", a[int((NR+1)/2)]/1e6, a[int(NR*0.95+0.999)]/1e6, NR}'; }
p50() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
serve=("$dir/helix" mcp serve --user-id $U --allow-private)
# measure NAME TOOL ARGS PROC_ARGV_JSON: one mcpbench run, warm calls and
# processes interleaved, so that both see the same load.
measure() {
  local out=$dir/$1.out
  "$dir/mcpbench" -n "$runs" -proc-n "$proc_runs" -db "$dburl" -tool "$2" -args "$3" -proc "$4" -- "${serve[@]}" >"$out"
  printf '%-30s ' "mcp warm: $2"; awk '$1 == "mcp" {print $2}' "$out" | stats
  printf '%-30s ' "process: $5"; awk '$1 == "proc" {print $2}' "$out" | stats
  local m p; m=$(awk '$1 == "mcp" {print $2}' "$out" | p50); p=$(awk '$1 == "proc" {print $2}' "$out" | p50)
  awk -v m="$m" -v p="$p" -v n="$runs" -v pn="$proc_runs" '
    $1 == "cpu" {c[$2] = $3}
    END {printf "%-30s p50 ratio 1/%.1f; CPU per call: mcp helix %.2f ms + pg %.2f ms, process helix %.2f ms + pg <= %.2f ms (exited backends, other sessions included)\n",
      "", p / m, 1000 * c["mcp-helix"] / n, 1000 * c["mcp-pg"] / n, 1000 * c["proc-helix"] / pn, 1000 * c["exited-pg"] / pn}' "$out"
}
measure ping bench.ping '{}' "[\"$dir/helix\", \"tool\", \"exec\", \"bench.ping\", \"--allow-private\"]" "helix tool exec"
measure search memory_search '{"query": "sourdough bread", "mode": "text"}' \
  "[\"$dir/helix\", \"memory\", \"search\", \"sourdough bread\", \"--user-id\", \"$U\", \"--mode\", \"text\"]" "helix memory search"
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tool_executions rows: $(psql -Atq "$dburl" -c "SELECT coalesce(client, 'cli'), count(*) FROM tool_executions GROUP BY 1 ORDER BY 1" | tr '\n' ' ')"
echo "memory_search audit rows: $(psql -Atq "$dburl" -c "SELECT client, status, count(*) FROM helix_memory_search_calls GROUP BY 1, 2 ORDER BY 1, 2" | tr '\n' ' ')"
