#!/usr/bin/env bash
# `helix synthesize --all-users --full` on U users × N memories of D
# dimensions (default 1,000 × 100 × 384) through a direct connection and
# through Debian's PgBouncer 1.18 in session and in transaction mode
# (configured as Supabase's: ignore_startup_parameters = extra_float_digits),
# interleaved R times (default 3): wall time, helix's CPU and the ratio to the
# direct connection, and the patterns each run wrote. (The synthetic memories
# are recent, so a run a few seconds later may place a temporal window
# differently: pattern counts can differ by a few between any two runs, on
# any path. internal/cli/paths_test.go checks equality on the demo data.)
#
#   scripts/bench/synthesize_paths.sh
#   U=200 N=100 R=5 scripts/bench/synthesize_paths.sh
# Needs the test server of HELIX_TEST_DATABASE_URL and pgbouncer (make test-deps).
set -euo pipefail
cd "$(dirname "$0")/../.."
U=${U:-1000} N=${N:-100} D=${D:-384} R=${R:-3}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
DB=helix_paths_$$
dir=$(mktemp -d)
chmod 755 "$dir"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  psql "$SERVER" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
CGO_ENABLED=0 go build -o "$dir/helix" ./cmd/helix
echo "loading $U users × $N memories of $D dimensions..." >&2
url=$(go run ./scripts/bench/synthload -server "$SERVER" -db "$DB" -users "$U" -n "$N" -d "$D")
psql "$url" -qc "VACUUM ANALYZE memories"

# PgBouncer in each mode, on free loopback ports, in front of the server.
pg_host=$(psql "$SERVER" -Atc "SELECT coalesce(inet_server_addr()::text, '127.0.0.1')" | sed 's|/.*||')
pg_port=$(psql "$SERVER" -Atc "SELECT current_setting('port')")
user=$(psql "$SERVER" -Atc "SELECT current_user")
bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
declare -A urls=([direct]=$url)
for mode in session transaction; do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  printf '"%s" ""\n' "$user" >"$dir/users.txt"
  cat >"$dir/$mode.ini" <<INI
[databases]
* = host=$pg_host port=$pg_port
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/users.txt
pool_mode = $mode
ignore_startup_parameters = extra_float_digits
max_client_conn = 200
default_pool_size = 20
logfile = $dir/$mode.log
INI
  as=(); [ "$(id -u)" = 0 ] && { chown -R postgres "$dir"; as=(-u postgres); }
  "$bin" "${as[@]}" "$dir/$mode.ini" >/dev/null 2>&1 &
  pids+=($!)
  urls[$mode]=$(echo "$url" | sed -E "s|@[^/]+/|@127.0.0.1:$port/|")
  for _ in $(seq 50); do psql "${urls[$mode]}" -qAtc 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done
done

declare -A base
for i in $(seq "$R"); do
  echo "load: $(uptime)"
  for path in direct session transaction; do
    HELIX_DATABASE_URL=${urls[$path]} /usr/bin/time -f '%e %U %S' -o "$dir/time" "$dir/helix" synthesize --all-users --full --log-format json 2>"$dir/err" >/dev/null ||
      { cat "$dir/err" >&2; exit 1; }
    read -r wall user_s sys <"$dir/time"
    [ "$path" = direct ] && base[$i]=$wall
    n=$(psql "$url" -Atc "SELECT count(*) FROM memory_synthesis")
    printf 'run %d: %-12s %6.2f s wall, %5.2f CPU-s  ratio to direct %.2f  patterns %s\n' "$i" "$path" "$wall" "$(echo "$user_s + $sys" | bc)" "$(echo "$wall / ${base[$i]}" | bc -l)" "$n"
  done
done
echo "load: $(uptime)"
echo "users: $U  memories: $((U * N))  dims: $D"
