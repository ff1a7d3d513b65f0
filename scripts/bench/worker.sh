#!/usr/bin/env bash
# helix worker (River) against the in-process pool on the same data: U users ×
# M memories (default 100,000 × 10 = 1M rows). Prints, side by side:
#   in-process  `synthesize --all-users --concurrency 1` and `--concurrency C`
#   workers     enqueue, then 1 and 2 (WORKERS="1 2 4" for more) `helix worker
#               --once --concurrency WC` processes (WC: WORKER_CONCURRENCY, default 1);
#               USERS_PER_JOB=N enqueues N users per job (--users-per-job N;
#               unset: the default, batches by memories)
# INTERLEAVE=1 instead runs, in this order, in-process, 1 worker, 1 worker,
# in-process (all --concurrency 1, enqueue with the default flags unless
# USERS_PER_JOB; a worker run counts its enqueue), ROUNDS times (default 1),
# and prints the overhead from the means, with the load.
# with wall time and the helix processes' CPU time (user+sys, GNU time), and
# the queue's overhead per job: (1 worker − in-process, both one at a time) / U,
# in wall and in helix CPU, against the per-user work (in-process / U) at the
# same concurrency as one worker process.
# Goal: ≤ 5 %. The database server's CPU is not separated (it is shared).
# Usage: scripts/bench/worker.sh [USERS] [MEMORIES_PER_USER]   (HELIX_BIN: a built binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
U=${1:-100000} M=${2:-10}
WC=${WORKER_CONCURRENCY:-1}
UPJ=${USERS_PER_JOB:-}
UPJ_FLAG=${UPJ:+--users-per-job $UPJ}
# INTERLEAVE: the worker's own --poll-interval (1s) unless POLL="--poll-interval 100ms"
POLL=${POLL:-}
WORKERS=${WORKERS:-1 2}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
DB=helix_wbench_$$
dir=$(mktemp -d)
trap 'rm -rf "$dir"; psql "$SERVER" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1' EXIT
if [ -n "${HELIX_BIN:-}" ]; then cp "$HELIX_BIN" "$dir/helix"; else CGO_ENABLED=0 go build -o "$dir/helix" ./cmd/helix; fi
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

reset() { psql "$url" -qc "TRUNCATE memory_synthesis, job_runs, helix_synthesis_state; DELETE FROM river_job" >/dev/null; }
# timed CMD...: runs CMD under GNU time; prints "wall cpu" (seconds).
timed() {
  /usr/bin/time -f '%e %U %S' -o "$dir/t" "$@" >/dev/null 2>>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$dir/t"
}
P="--min-cluster-size 2 --min-confidence 0"
C=$(nproc); [ "$WC" -gt 1 ] && C=$WC   # the in-process pool at the workers' concurrency

if [ -n "${INTERLEAVE:-}" ]; then
  load() { cut -d' ' -f1 /proc/loadavg; }
  inproc() { reset; read -r w c < <(timed "$dir/helix" synthesize --all-users --full --concurrency 1 $P); echo "$w $c"; }
  worker() {
    reset
    # the enqueue's cost is the queue's too: counted with the worker's
    read -r ew ec < <(timed "$dir/helix" synthesize --all-users --full --enqueue $UPJ_FLAG $P)
    read -r w c < <(timed "$dir/helix" worker --once --concurrency 1 --queues synthesize $POLL)
    [ "$(psql "$url" -tAc "SELECT count(*) FROM river_job WHERE state <> 'completed'")" -eq 0 ] || { echo "not every job completed" >&2; exit 1; }
    echo "$(echo "$w + $ew" | bc -l) $(echo "$c + $ec" | bc -l) $(psql "$url" -tAc "SELECT count(*) FROM river_job")"
  }
  printf '%-34s %9s %9s %6s %s\n' "run (--concurrency 1)" "wall s" "cpu s" "load" "jobs"
  # ROUNDS=N repeats the four runs; the overhead is from the means of all
  # of them (the load moves: one round's figure is noisy), each round's too.
  : >"$dir/rounds"
  for r in $(seq "${ROUNDS:-1}"); do
    l=$(load); read -r a1 ac1 < <(inproc); printf '%-34s %9.2f %9.2f %6s\n' "in-process" "$a1" "$ac1" "$l"
    l=$(load); read -r b1 bc1 j1 < <(worker); printf '%-34s %9.2f %9.2f %6s %s\n' "worker (enqueue ${UPJ:-default})" "$b1" "$bc1" "$l" "$j1"
    l=$(load); read -r b2 bc2 j2 < <(worker); printf '%-34s %9.2f %9.2f %6s %s\n' "worker (enqueue ${UPJ:-default})" "$b2" "$bc2" "$l" "$j2"
    l=$(load); read -r a2 ac2 < <(inproc); printf '%-34s %9.2f %9.2f %6s\n' "in-process" "$a2" "$ac2" "$l"
    echo "$a1 $a2 $b1 $b2 $ac1 $ac2 $bc1 $bc2" >>"$dir/rounds"
  done
  awk -v u="$U" '{
      a += $1 + $2; b += $3 + $4; c += $5 + $6; d += $7 + $8; n += 2
      printf "round %d: queue overhead %.1f %% wall, %.1f %% helix cpu\n", NR, (($3 + $4) - ($1 + $2)) / ($1 + $2) * 100, (($7 + $8) - ($5 + $6)) / ($5 + $6) * 100
    } END {
    iw = a / n; ic = c / n; ww = b / n; wc = d / n
    printf "per-user work (in-process): %.3f ms wall, %.3f ms helix cpu\n", iw / u * 1000, ic / u * 1000
    printf "queue overhead per user (%d rounds): %.3f ms wall = %.1f %%, %.3f ms helix cpu = %.1f %% (goal <= 5 %%)\n",
      NR, (ww - iw) / u * 1000, (ww - iw) / iw * 100, (wc - ic) / u * 1000, (wc - ic) / ic * 100 }' "$dir/rounds"
  echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
reset; read -r in1 cin1 < <(timed "$dir/helix" synthesize --all-users --full --concurrency 1 $P)
reset; read -r inC cinC < <(timed "$dir/helix" synthesize --all-users --full --concurrency "$C" $P)
printf '%-40s %8.1f s wall %8.1f s cpu  %7.0f users/s\n' "in-process, concurrency 1" "$in1" "$cin1" "$(echo "$U / $in1" | bc -l)"
printf '%-40s %8.1f s wall %8.1f s cpu  %7.0f users/s\n' "in-process, concurrency $C" "$inC" "$cinC" "$(echo "$U / $inC" | bc -l)"
declare -A W CW
for n in $WORKERS; do
  reset
  read -r enq _ < <(timed "$dir/helix" synthesize --all-users --full --enqueue $UPJ_FLAG $P)
  start=$(date +%s.%N)
  pids=()
  for i in $(seq "$n"); do
    /usr/bin/time -f '%e %U %S' -o "$dir/w$i" "$dir/helix" worker --once --concurrency "$WC" --queues synthesize --poll-interval 100ms >/dev/null 2>>"$dir/err" & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || { cat "$dir/err" >&2; exit 1; }; done
  W[$n]=$(echo "$(date +%s.%N) - $start" | bc -l)
  CW[$n]=$(cat "$dir"/w* | awk '{s += $2 + $3} END {printf "%.3f", s}')
  rm -f "$dir"/w*
  done_jobs=$(psql "$url" -tAc "SELECT count(*) FROM river_job WHERE state = 'completed'")
  printf '%-40s %8.1f s wall %8.1f s cpu  %7.0f users/s  (enqueue %.1f s, %s jobs completed)\n' "$n worker(s), concurrency $WC each, ${UPJ:-default} user(s)/job" "${W[$n]}" "${CW[$n]}" "$(echo "$U / ${W[$n]}" | bc -l)" "$enq" "$done_jobs"
  [ "$(psql "$url" -tAc "SELECT count(*) FROM river_job WHERE state <> 'completed'")" -eq 0 ] || { echo "not every job completed" >&2; exit 1; }
done
first=${WORKERS%% *}
# One worker process against the in-process pool at the same concurrency.
inW=$in1 cinW=$cin1
[ "$WC" -gt 1 ] && inW=$inC cinW=$cinC
per_user=$(echo "$inW / $U * 1000" | bc -l)
per_user_cpu=$(echo "$cinW / $U * 1000" | bc -l)
overhead=$(echo "(${W[$first]} - $inW) / $U * 1000" | bc -l)
overhead_cpu=$(echo "(${CW[$first]} - $cinW) / $U * 1000" | bc -l)
printf 'per-user work (in-process, concurrency %s) %.3f ms wall, %.3f ms helix cpu\n' "$( [ "$WC" -gt 1 ] && echo "$C" || echo 1)" "$per_user" "$per_user_cpu"
printf 'queue overhead per user (%s worker, concurrency %s, %s user(s)/job): %.3f ms wall = %.1f %%, %.3f ms helix cpu = %.1f %% (goal <= 5 %%)\n' \
  "$first" "$WC" "${UPJ:-default}" "$overhead" "$(echo "$overhead / $per_user * 100" | bc -l)" "$overhead_cpu" "$(echo "$overhead_cpu / $per_user_cpu * 100" | bc -l)"
printf 'estimate for 1,000,000 users: %.0f s of worker wall at %s worker(s) × concurrency %s; %.0f s of helix cpu in all\n' \
  "$(echo "${W[$first]} / $U * 1000000" | bc -l)" "$first" "$WC" "$(echo "${CW[$first]} / $U * 1000000" | bc -l)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
