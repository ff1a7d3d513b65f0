#!/usr/bin/env bash
# Install the Debian packages tests run as real services or tools, when a
# command of theirs is missing (make test runs this; quick when present).
# Each line of NEEDS is "command package".
set -euo pipefail
# make test runs the installs side by side: one apt-get at a time (dpkg's lock).
apt_get() { if command -v flock >/dev/null; then flock /tmp/helix-apt.lock apt-get "$@"; else apt-get "$@"; fi; }
NEEDS=(
  "promtool prometheus"   # worker /metrics: promtool check metrics, a real Prometheus scraping
  "prometheus prometheus"
  "pgbouncer pgbouncer"   # internal/pgtest.Bouncer: PgBouncer 1.18 in session and transaction mode
  "ssh-keygen openssh-client" # signed skills: keys and signatures made by ssh-keygen -Y sign
  "espeak-ng espeak-ng"   # internal/voice/voicetest: real speech for the VAD and denoise tests
  "sox sox"               # internal/voice/voicetest: noise, resampling and trimming of that speech
  "/usr/bin/time time"    # internal/skill TestJSCPULimit: GNU time around the JavaScript child
  "unshare util-linux"    # internal/skill TestSSRFNamespace: its own network and mount namespace
  "ip iproute2"           # the same test: the metadata and private addresses on its lo
)
PATH="$PATH:/usr/sbin:/sbin" # pgbouncer lives in /usr/sbin
missing=()
for n in "${NEEDS[@]}"; do
  read -r cmd pkg <<<"$n"
  command -v "$cmd" >/dev/null || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "test-deps: installing ${missing[*]}" >&2
  apt_get update -qq >&2
  # The package's own service is not wanted: tests start Prometheus themselves.
  DEBIAN_FRONTEND=noninteractive apt_get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
  echo "test-deps: missing ${missing[*]}: install them (Debian: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
