#!/usr/bin/env bash
# Peak memory (RSS) and time of `helix synthesize` for one user with N
# memories of D dimensions (default 50,000 × 1,536; the target is < 1 GiB).
# Usage: scripts/bench/synthesize_rss.sh [N] [D]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-50000} D=${2:-1536}
SERVER=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
DB=helix_rss_$$
dir=$(mktemp -d)
trap 'rm -rf "$dir"; psql "$SERVER" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null' EXIT
CGO_ENABLED=0 go build -o "$dir/helix" ./cmd/helix
echo "loading $N memories of $D dimensions..." >&2
url=$(go run ./scripts/bench/synthload -server "$SERVER" -db "$DB" -n "$N" -d "$D")
HELIX_DATABASE_URL=$url /usr/bin/time -v "$dir/helix" synthesize --user-id 99999999-9999-4999-8999-999999999999 \
  >"$dir/out.txt" 2>"$dir/time.txt" || { cat "$dir/time.txt" >&2; exit 1; }
rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/time.txt")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$dir/time.txt")
printf 'n=%s d=%s patterns=%s peak_rss=%.0f MiB wall=%s (limit 1024 MiB)\n' "$N" "$D" "$(wc -l <"$dir/out.txt")" "$(echo "$rss / 1024" | bc -l)" "$wall"
[ "$rss" -lt $((1024 * 1024)) ]
