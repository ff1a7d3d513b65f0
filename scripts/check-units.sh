#!/usr/bin/env bash
# Check the systemd units in scripts/systemd with systemd-analyze verify, when
# it is installed (make test runs this). Any warning fails the check, since an
# unknown or misspelt directive is only a warning to systemd. The units name
# /usr/local/bin/helix; the copy checked here names the binary just built.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v systemd-analyze >/dev/null; then
  echo "check-units: SKIPPED: systemd-analyze not installed (Debian: apt-get install systemd)" >&2
  exit 0
fi
bin="$PWD/${1:-bin/helix}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp scripts/systemd/*.service scripts/systemd/*.timer "$dir/"
sed -i "s#/usr/local/bin/helix#$bin#" "$dir"/*
out=$(systemd-analyze verify "$dir"/* 2>&1) || { echo "$out" >&2; exit 1; }
if [ -n "$out" ]; then echo "$out" >&2; exit 1; fi
echo "check-units: $(ls "$dir" | wc -l) units verified" >&2
