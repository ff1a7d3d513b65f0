#!/usr/bin/env bash
# helix worker (River) against the in-process pool on the same data: U users ×
# M memories (default 100,000 × 10 = 1M rows). Prints, side by side:
#   in-process  `synthesize --all-users --concurrency 1` and `--concurrency C`
#   workers     enqueue, then 1, 2 and 4 `helix worker --once --concurrency 1`
# and the queue's overhead per job: (1 worker − in-process, both one at a
# time) / U, against the per-user work (in-process / U). Goal: ≤ 5 %.
# Usage: scripts/bench/worker.sh [USERS] [MEMORIES_PER_USER]
set -euo pipefail
cd "$(dirname "$0")/../.."
U=${1:-100000} M=${2:-10}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
DB=helix_wbench_$$
dir=$(mktemp -d)
trap 'rm -rf "$dir"; psql "$SERVER" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null' EXIT
CGO_ENABLED=0 go build -o "$dir/helix" ./cmd/helix
psql "$SERVER" -qc "CREATE DATABASE $DB" >/dev/null
url=$(python3 -c 'import sys,urllib.parse as u; p=u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/"+sys.argv[2])))' "$SERVER" "$DB")
export DATABASE_URL=$url HELIX_DB_MAX_CONNS=16
"$dir/helix" migrate up >/dev/null
echo "cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg); loading $U users × $M memories..." >&2
psql "$url" -qc "INSERT INTO memories (id, user_id, type, content, emotional_valence, created_at)
  SELECT md5('m' || u || '-' || k)::uuid, md5('u' || u)::uuid,
         (ARRAY['episodic', 'semantic', 'procedural'])[1 + k % 3],
         'user ' || u || ' wrote note ' || k || ' about ' || (ARRAY['coffee', 'running', 'work', 'family'])[1 + (u + k) % 4],
         ((k % 5) - 2) / 2.0,
         timestamptz '2026-01-01' + (u % 97) * interval '1 hour' + k * interval '1 day'
  FROM generate_series(1, $U) u, generate_series(1, $M) k; ANALYZE memories"

reset() { psql "$url" -qc "TRUNCATE memory_synthesis, job_runs; DELETE FROM river_job" >/dev/null; }
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>>"$dir/err" || { cat "$dir/err" >&2; exit 1; }; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
P="--min-cluster-size 2 --min-confidence 0"

reset; in1=$(secs "$dir/helix" synthesize --all-users --concurrency 1 $P)
C=$(nproc)
reset; inC=$(secs "$dir/helix" synthesize --all-users --concurrency "$C" $P)
printf '%-34s %8.1f s  %7.0f users/s\n' "in-process, concurrency 1" "$in1" "$(echo "$U / $in1" | bc -l)"
printf '%-34s %8.1f s  %7.0f users/s\n' "in-process, concurrency $C" "$inC" "$(echo "$U / $inC" | bc -l)"
declare -A W
for n in 1 2 4; do
  reset
  enq=$(secs "$dir/helix" synthesize --all-users --enqueue $P)
  start=$(date +%s.%N)
  pids=()
  for _ in $(seq "$n"); do
    "$dir/helix" worker --once --concurrency 1 --poll-interval 100ms >/dev/null 2>>"$dir/err" & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  W[$n]=$(echo "$(date +%s.%N) - $start" | bc -l)
  done_jobs=$(psql "$url" -tAc "SELECT count(*) FROM river_job WHERE state = 'completed'")
  printf '%-34s %8.1f s  %7.0f users/s  (enqueue %.1f s, %s jobs completed)\n' "$n worker(s), concurrency 1 each" "${W[$n]}" "$(echo "$U / ${W[$n]}" | bc -l)" "$enq" "$done_jobs"
  [ "$done_jobs" -eq "$U" ] || { echo "not every job completed" >&2; exit 1; }
done
per_user=$(echo "$in1 / $U * 1000" | bc -l)
overhead=$(echo "(${W[1]} - $in1) / $U * 1000" | bc -l)
printf 'per-user work %.3f ms; queue overhead per job %.3f ms = %.1f %% (goal <= 5 %%)\n' "$per_user" "$overhead" "$(echo "$overhead / $per_user * 100" | bc -l)"
printf 'estimate for 1,000,000 users: %.0f s with one worker process at concurrency 1, /N for N cores of workers\n' "$(echo "${W[1]} / $U * 1000000" | bc -l)"
