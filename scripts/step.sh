#!/usr/bin/env bash
# step.sh NAME WHAT CMD [ARGS...]: run one step of make test and say on stderr
# what it does when it starts and how long it took when it ends, so that
# steps run side by side (make -j) each say where they are.
set -uo pipefail
name="$1" what="$2"; shift 2
start=$(date +%s)
echo "== $name: $what" >&2
"$@"; rc=$?
if [ "$rc" = 0 ]; then
  echo "== $name: done in $(( $(date +%s) - start )) s" >&2
else
  echo "== $name: FAILED after $(( $(date +%s) - start )) s (exit $rc)" >&2
fi
exit "$rc"
