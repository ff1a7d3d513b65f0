#!/usr/bin/env bash
# Benchmark `helix manifest import` on a 5 MB OpenAPI document (the OpenAI
# description plus renamed copies of it, built by the benchmark) against the
# reference: kin-openapi alone loading and validating the same document.
# The import includes parsing, reference checks, validation, building and
# compiling every tool's parameters schema, and recording all tools in
# PostgreSQL (HELIX_TEST_DATABASE_URL) in one transaction. Target: < 2 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${COUNT:-3}
out=$(go test -run '^$' -bench 'Import5MB|KinOpenAPILoad5MB' -benchtime "${count}x" ./internal/manifest/)
echo "$out" | grep -E '^Benchmark'
helix=$(echo "$out" | awk '/^BenchmarkImport5MB/ {print $3}')
kin=$(echo "$out" | awk '/^BenchmarkKinOpenAPILoad5MB/ {print $3}')
awk -v h="$helix" -v k="$kin" 'BEGIN {
	printf "helix manifest import: %.2f s per 5 MB document (target < 2 s: %s)\n", h/1e9, (h < 2e9 ? "met" : "NOT met")
	printf "kin-openapi load+validate alone: %.2f s; helix/kin ratio %.2f\n", k/1e9, h/k
}'
