#!/usr/bin/env bash
# Make a PostgreSQL server available and print its URL on stdout (logs go to stderr).
#  1. $DATABASE_URL, else $HELIX_TEST_DATABASE_URL, else the default local URL: use it if it answers.
#  2. Else start (creating it first if needed) a throwaway cluster of our own under .helix/pg,
#     trust auth, listening on 127.0.0.1:$HELIX_PG_PORT (default 55432) — as the postgres user
#     when run as root, since PostgreSQL refuses to run as root.
#  3. Else, on Debian as root, apt-get install postgresql first; else say what to install.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "pg-up: $*" >&2; }

default_url="postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
port="${HELIX_PG_PORT:-55432}"
own_url="postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable"

pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

# answers URL: true when a server accepts a query there (needs psql, from the server packages).
answers() {
  local psql
  psql="$(command -v psql || true)"
  [ -n "$psql" ] || { [ -n "$(pgbin)" ] && psql="$(pgbin)/psql"; }
  [ -n "$psql" ] && [ -x "$psql" ] || return 1
  PGCONNECT_TIMEOUT=3 "$psql" "$1" -Atqc 'select 1' >/dev/null 2>&1
}

for url in "${DATABASE_URL:-}" "${HELIX_TEST_DATABASE_URL:-}" "$default_url" "$own_url"; do
  [ -n "$url" ] || continue
  if answers "$url"; then
    echo "$url"
    exit 0
  fi
done

if [ -z "$(pgbin)" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "no PostgreSQL server binaries: installing Debian's postgresql package"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2
  else
    log "no PostgreSQL found: install the server (Debian/Ubuntu: sudo apt-get install postgresql;"
    log "macOS: brew install postgresql) or set DATABASE_URL to a server you can reach"
    exit 1
  fi
fi
bin="$(pgbin)"

data="$PWD/.helix/pg"
runas=()
if [ "$(id -u)" = 0 ]; then
  runas=(runuser -u postgres --)
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  mkdir -p "$data"
  chown postgres: "$data"
  chmod 700 "$data"
  if ! "${runas[@]}" test -w "$data"; then
    # the checkout is not reachable by the postgres user (e.g. under /root): keep the cluster in /tmp
    data="/tmp/helix-pg-$(echo "$PWD" | cksum | cut -d' ' -f1)"
    mkdir -p "$data" && chown postgres: "$data" && chmod 700 "$data"
  fi
else
  mkdir -p "$data" && chmod 700 "$data"
fi

if [ ! -f "$data/PG_VERSION" ]; then
  log "creating a throwaway cluster in $data"
  "${runas[@]}" "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --no-locale >"$data.initdb.log" 2>&1 ||
    { cat "$data.initdb.log" >&2; exit 1; }
fi
if ! "${runas[@]}" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
  log "starting it on 127.0.0.1:$port"
  "${runas[@]}" "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
    -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >&2 || { tail -n 20 "$data/server.log" >&2; exit 1; }
fi
for _ in $(seq 1 30); do
  if answers "$own_url"; then
    echo "$own_url"
    exit 0
  fi
  sleep 1
done
log "the cluster in $data did not answer on port $port; see $data/server.log"
exit 1
