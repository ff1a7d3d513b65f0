#!/usr/bin/env bash
# Regenerates internal/decay/testdata/fsrs6_ts_fsrs.json, the FSRS-6 states
# that internal/decay's replay test checks helix against, with the reference
# implementation ts-fsrs (npm), installed under .helix/node (git-ignored).
# Needs node and npm. Usage: scripts/fsrs/reference.sh [ts-fsrs version]
set -euo pipefail
cd "$(dirname "$0")/../.."
version=${1:-5.4.2}
dir=.helix/node
mkdir -p "$dir"
if [ "$(node -p "try { require('./$dir/node_modules/ts-fsrs/package.json').version } catch { '' }")" != "$version" ]; then
  npm install --prefix "$dir" --silent --no-audit --no-fund --no-save "ts-fsrs@$version" >&2
fi
TS_FSRS_DIR="$PWD/$dir" node scripts/fsrs/reference.mjs >internal/decay/testdata/fsrs6_ts_fsrs.json.tmp
mv internal/decay/testdata/fsrs6_ts_fsrs.json.tmp internal/decay/testdata/fsrs6_ts_fsrs.json
echo "wrote internal/decay/testdata/fsrs6_ts_fsrs.json with ts-fsrs $version" >&2
