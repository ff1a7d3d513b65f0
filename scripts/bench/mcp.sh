#!/usr/bin/env bash
# A tool call and a memory search over one warm stdio MCP session (helix mcp
# serve, driven by scripts/bench/mcpbench with the official Go SDK client)
# against one helix process per call (helix tool exec, helix memory search),
# side by side in one run. The tool is an approved HTTP tool calling GET
# /ping on a local server; the memories are N (default 10,000) rows of one
# user. Prints p50 and p95 over RUNS calls (default 1,000) of the warm session
# and PROC_RUNS (default RUNS) processes; goal: warm <= 1/10 of a process.
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
VACUUM ANALYZE memories;
SQL
echo "$n memories of one user; $runs warm calls, $proc_runs processes per measure; load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
now() { date +%s%N; }
stats() { sort -n | awk '{a[NR]=$1} END {printf "p50 %8.2f ms   p95 %8.2f ms   (n %d)\n", a[int((NR+1)/2)]/1e6, a[int(NR*0.95+0.999)]/1e6, NR}'; }
serve=("$dir/helix" mcp serve --user-id $U --allow-private)
printf '%-28s ' "mcp warm: bench.ping"
"$dir/mcpbench" -n "$runs" -tool bench.ping -- "${serve[@]}" | stats
printf '%-28s ' "process: helix tool exec"
for r in $(seq "$proc_runs"); do
  t0=$(now); "$dir/helix" tool exec bench.ping --allow-private >/dev/null 2>&1; echo $(( $(now) - t0 ))
done | stats
printf '%-28s ' "mcp warm: memory_search"
"$dir/mcpbench" -n "$runs" -tool memory_search -args '{"query": "sourdough bread", "mode": "text"}' -- "${serve[@]}" | stats
printf '%-28s ' "process: helix memory search"
for r in $(seq "$proc_runs"); do
  t0=$(now); "$dir/helix" memory search "sourdough bread" --user-id $U --mode text >/dev/null 2>&1; echo $(( $(now) - t0 ))
done | stats
echo "tool_executions rows: $(psql -Atq "$dburl" -c "SELECT client, count(*) FROM tool_executions GROUP BY 1 ORDER BY 1" | tr '\n' ' ')"
