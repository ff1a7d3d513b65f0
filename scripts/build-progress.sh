#!/usr/bin/env bash
# build-progress.sh WHAT CMD [ARGS...]: run a Go build command (go build -v
# or make build GOFLAGS=-v) and say on stderr what it is doing while it runs:
# the packages compiled and modules downloaded so far and the time, every
# second on a terminal (one line, rewritten) and every
# $HELIX_PROGRESS_EVERY seconds (default 15) otherwise. A first build on a
# loaded machine compiles for many minutes: it must not look hung.
# On failure the build's own output is shown.
set -uo pipefail
what="$1"; shift
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
start=$(date +%s)
every="${HELIX_PROGRESS_EVERY:-15}"
tty=0; [ -t 2 ] && { tty=1; every=1; }
count() {
  pkgs=$(grep -cE '^[A-Za-z0-9_./~-]+$' "$log" || true)
  mods=$(grep -c '^go: downloading' "$log" || true)
}
n() { if [ "$1" = 1 ]; then echo "1 $2"; else echo "$1 $2s"; fi; }
say() {
  count
  local msg="$what: $(n "$pkgs" package) compiled"
  [ "$mods" = 0 ] || msg="$msg, $(n "$mods" module) downloaded"
  msg="$msg, $(( $(date +%s) - start )) s"
  if [ "$tty" = 1 ]; then printf '\r%s ' "$msg" >&2; else echo "$msg" >&2; fi
}
"$@" >"$log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  sleep "$every" & wait $! 2>/dev/null
  kill -0 "$pid" 2>/dev/null && say
done
wait "$pid"; rc=$?
count
[ "$tty" = 1 ] && printf '\r' >&2
if [ "$rc" != 0 ]; then
  cat "$log" >&2
  echo "$what: failed after $(( $(date +%s) - start )) s (exit $rc)" >&2
  exit "$rc"
fi
if [ "$pkgs" = 0 ]; then
  echo "$what: up to date ($(( $(date +%s) - start )) s)" >&2
else
  echo "$what: done, $(n "$pkgs" package) compiled in $(( $(date +%s) - start )) s" >&2
fi
