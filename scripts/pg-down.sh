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
# HELIX_PG_DATA names the one cluster to stop (as it named the one pg-up
# started); without it, the checkout's own.
if [ -n "${HELIX_PG_DATA:-}" ]; then
  dirs=("$HELIX_PG_DATA")
else
  dirs=("$PWD/.helix/pg" "/tmp/helix-pg-$(echo "$PWD" | cksum | cut -d' ' -f1)")
fi
for data in "${dirs[@]}"; do
  [ -f "$data/PG_VERSION" ] || continue
  if [ -n "$bin" ] && "${runas[@]}" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    "${runas[@]}" "$bin/pg_ctl" -D "$data" -m fast -w stop >&2
    echo "pg-down: stopped the cluster in $data" >&2
    stopped=1
  fi
done
[ "$stopped" = 1 ] || echo "pg-down: no throwaway cluster of helix's is running" >&2
