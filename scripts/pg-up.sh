#!/usr/bin/env bash
# Make a PostgreSQL server available for make test / demo / bench / fuzz and
# print its URL on stdout. Every line on stderr says which server is used and
# why, before it is used.
#  1. $HELIX_TEST_DATABASE_URL when set: that server, by your choice. It must
#     answer (no silent fallback to another server).
#  2. Else helix's own throwaway cluster: under .helix/pg ($HELIX_PG_DATA),
#     trust auth, fsync off, on 127.0.0.1:$HELIX_PG_PORT (default 55432, or
#     the next free port when another server has it), created and started
#     when needed (as the postgres user when run as root); make pg-down stops it.
#     Any other server, the system's on 5432 included, is never used unless
#     you choose it in step 1: tests create and drop databases.
#  3. Without server binaries, on Debian as root, apt-get install postgresql
#     first; else say what to install.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "pg-up: $*" >&2; }

pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
# shown() is a URL with its password masked.
shown() { echo "$1" | sed -E 's#(//[^:/@]*):[^@/]*@#\1:***@#'; }
# answers URL: true when a server accepts a query there (needs psql, from the server packages).
answers() {
  local psql
  psql="$(command -v psql || true)"
  [ -n "$psql" ] || { [ -n "$(pgbin)" ] && psql="$(pgbin)/psql"; }
  [ -n "$psql" ] && [ -x "$psql" ] || return 1
  PGCONNECT_TIMEOUT=3 "$psql" "$1" -Atqc 'select 1' >/dev/null 2>&1
}
# listening PORT: true when something accepts TCP connections on 127.0.0.1:PORT.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if [ -n "${HELIX_TEST_DATABASE_URL:-}" ]; then
  if answers "$HELIX_TEST_DATABASE_URL"; then
    log "using $(shown "$HELIX_TEST_DATABASE_URL") (from HELIX_TEST_DATABASE_URL)"
    echo "$HELIX_TEST_DATABASE_URL"
    exit 0
  fi
  log "HELIX_TEST_DATABASE_URL=$(shown "$HELIX_TEST_DATABASE_URL") does not answer: start that server,"
  log "or unset HELIX_TEST_DATABASE_URL to use helix's own throwaway cluster"
  exit 1
fi
if [ -n "${DATABASE_URL:-}" ]; then
  log "DATABASE_URL is set but not used here: tests create and drop databases. To use its server, set HELIX_TEST_DATABASE_URL too"
fi
if listening 5432; then
  log "a PostgreSQL server listens on 127.0.0.1:5432 (not helix's): not used. To use it, set HELIX_TEST_DATABASE_URL to its URL"
fi

if [ -z "$(pgbin)" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "no PostgreSQL server binaries: installing Debian's postgresql package"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2
  else
    log "no PostgreSQL found: install the server (Debian/Ubuntu: sudo apt-get install postgresql;"
    log "macOS: brew install postgresql) or set HELIX_TEST_DATABASE_URL to a server you can reach"
    exit 1
  fi
fi
bin="$(pgbin)"

data="${HELIX_PG_DATA:-$PWD/.helix/pg}"
runas=()
if [ "$(id -u)" = 0 ]; then
  runas=(runuser -u postgres --)
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  mkdir -p "$data"
  chown postgres: "$data"
  chmod 700 "$data"
  if ! "${runas[@]}" test -w "$data"; then
    if [ -n "${HELIX_PG_DATA:-}" ]; then
      log "HELIX_PG_DATA=$data is not writable by the postgres user"
      exit 1
    fi
    # the checkout is not reachable by the postgres user (e.g. under /root): keep the cluster in /tmp
    data="/tmp/helix-pg-$(echo "$PWD" | cksum | cut -d' ' -f1)"
    mkdir -p "$data" && chown postgres: "$data" && chmod 700 "$data"
  fi
else
  mkdir -p "$data" && chmod 700 "$data"
fi

if [ ! -f "$data/PG_VERSION" ]; then
  log "creating helix's throwaway cluster in $data (initdb)"
  "${runas[@]}" "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --no-locale >"$data.initdb.log" 2>&1 ||
    { cat "$data.initdb.log" >&2; exit 1; }
fi

port=""
if "${runas[@]}" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
  port="$(sed -n 4p "$data/postmaster.pid" 2>/dev/null || true)"
  if [ -n "${HELIX_PG_PORT:-}" ] && [ "$HELIX_PG_PORT" != "$port" ]; then
    if listening "$HELIX_PG_PORT"; then
      log "HELIX_PG_PORT=$HELIX_PG_PORT is taken by another server; helix's cluster stays on $port. Choose a free HELIX_PG_PORT"
      exit 1
    fi
    log "helix's cluster runs on port $port; restarting it on HELIX_PG_PORT=$HELIX_PG_PORT"
    "${runas[@]}" "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
    port=""
  fi
fi
if [ -z "$port" ]; then
  if [ -n "${HELIX_PG_PORT:-}" ]; then
    port="$HELIX_PG_PORT"
    if listening "$port"; then
      log "HELIX_PG_PORT=$port is taken by another server (not helix's cluster in $data): choose a free"
      log "HELIX_PG_PORT, or set HELIX_TEST_DATABASE_URL to that server's URL to use it"
      exit 1
    fi
  else
    port=55432
    while listening "$port"; do
      [ "$port" -lt 55452 ] || { log "ports 55432-55452 are all taken: set HELIX_PG_PORT to a free port"; exit 1; }
      log "port $port is taken by another server (not helix's): trying $((port + 1)) (HELIX_PG_PORT chooses)"
      port=$((port + 1))
    done
  fi
  log "starting helix's throwaway cluster ($data) on 127.0.0.1:$port"
  "${runas[@]}" "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
    -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null || { tail -n 20 "$data/server.log" >&2; exit 1; }
fi
own_url="postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable"
for _ in $(seq 1 30); do
  if answers "$own_url"; then
    log "using helix's throwaway cluster $own_url (data in $data; make pg-down stops it)"
    echo "$own_url"
    exit 0
  fi
  sleep 1
done
log "the cluster in $data did not answer on port $port; see $data/server.log"
exit 1
