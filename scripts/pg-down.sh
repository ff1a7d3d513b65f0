#!/usr/bin/env bash
# Stop the throwaway PostgreSQL cluster that scripts/pg-up.sh started (under
# .helix/pg, or /tmp/helix-pg-<checkout> when the postgres user cannot reach
# the checkout, or $HELIX_PG_DATA). A server helix did not start is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
runas=()
[ "$(id -u)" = 0 ] && runas=(runuser -u postgres --)
stopped=0
for data in ${HELIX_PG_DATA:+"$HELIX_PG_DATA"} "$PWD/.helix/pg" "/tmp/helix-pg-$(echo "$PWD" | cksum | cut -d' ' -f1)"; do
  [ -f "$data/PG_VERSION" ] || continue
  if [ -n "$bin" ] && "${runas[@]}" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    "${runas[@]}" "$bin/pg_ctl" -D "$data" -m fast -w stop >&2
    echo "pg-down: stopped the cluster in $data" >&2
    stopped=1
  fi
done
[ "$stopped" = 1 ] || echo "pg-down: no throwaway cluster of helix's is running" >&2
