#!/usr/bin/env bash
# Install Stoplight Prism (npm @stoplight/prism-cli) under .helix/prism for the
# tests that check every request `helix tool exec` sends against real OpenAPI
# documents (internal/toolexec: TestPrismAcceptsRequests). Idempotent, quick
# when present; installs Node.js from Debian first when npm is missing.
set -euo pipefail
# make test runs the installs side by side: one apt-get at a time (dpkg's lock).
apt_get() { if command -v flock >/dev/null; then flock /tmp/helix-apt.lock apt-get "$@"; else apt-get "$@"; fi; }
cd "$(dirname "$0")/.."
DIR=.helix/prism
VERSION=${PRISM_VERSION:-5.14.2}
if [[ -x $DIR/node_modules/.bin/prism ]] && grep -q "\"version\": \"$VERSION\"" "$DIR/node_modules/@stoplight/prism-cli/package.json" 2>/dev/null; then
	exit 0
fi
if ! command -v npm >/dev/null; then
	apt_get update -qq && DEBIAN_FRONTEND=noninteractive apt_get install -y -qq nodejs npm >&2
fi
mkdir -p "$DIR"
[[ -f $DIR/package.json ]] || echo '{"private": true}' >"$DIR/package.json"
echo "installing @stoplight/prism-cli@$VERSION under $DIR..." >&2
npm install --prefix "$DIR" --no-audit --no-fund "@stoplight/prism-cli@$VERSION" >&2
