#!/usr/bin/env bash
# Benchmark `helix manifest import` on a 5 MB OpenAPI document (the OpenAI
# description plus renamed copies of it, built by the benchmark) against the
# reference: kin-openapi alone loading and validating the same document.
# The import includes parsing, reference checks, validation, building and
# compiling every tool's parameters schema, and recording all tools in
# PostgreSQL (HELIX_TEST_DATABASE_URL) in one transaction. Target: < 2 s.
# cpu-s/op is the process's CPU time per import: on a shared machine it is
# the steadier figure (the import uses both cores: wall ≈ cpu-s/op / 2 when idle).
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${COUNT:-3}
out=$(go test -run '^$' -bench 'Import5MB|KinOpenAPILoad5MB' -benchtime "${count}x" ./internal/manifest/)
echo "$out" | grep -E '^Benchmark'
echo "$out" | awk '
	/^BenchmarkImport5MB/        { for (i = 1; i <= NF; i++) { if ($(i+1) == "ns/op") hw = $i; if ($(i+1) == "cpu-s/op") hc = $i } }
	/^BenchmarkKinOpenAPILoad5MB/ { for (i = 1; i <= NF; i++) { if ($(i+1) == "ns/op") kw = $i; if ($(i+1) == "cpu-s/op") kc = $i } }
	END {
		printf "helix manifest import: %.2f s wall, %.2f s CPU per 5 MB document (target < 2 s wall: %s)\n", hw/1e9, hc, (hw < 2e9 ? "met" : "not met on this run")
		printf "kin-openapi load+validate alone: %.2f s wall, %.2f s CPU; helix/kin ratio %.2f wall, %.2f CPU\n", kw/1e9, kc, hw/kw, hc/kc
	}'
