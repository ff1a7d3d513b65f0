#!/usr/bin/env bash
# Regenerates the trimmed catalog snapshots from the full models.dev files:
# the test fixtures (providers chosen so that, between the two dates, models
# are added, removed and changed, and whole providers appear and disappear)
# and the fallback snapshot embedded in the binary (major providers, newest file).
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/realworld/models.dev}
cd "$(dirname "$0")/../.."
fixture='openai anthropic google groq mistral xai deepseek friendli chutes inceptron evroc neuralwatt synthetic umans-ai firepass sakana subconscious'
fallback='openai anthropic google google-vertex mistral deepseek xai groq cohere amazon-bedrock azure togetherai fireworks-ai perplexity'
pick() { jq -c --arg ids "$1" 'with_entries(select(.key as $k | ($ids | split(" ") | index($k))))' "$2"; }
for d in 2026-06-14 2026-07-02; do
	pick "$fixture" "$src/api-$d.json" >"testdata/catalog/api-$d.json"
done
pick "$fallback" "$src/api-2026-07-02.json" >internal/catalog/fallback.json
ls -l testdata/catalog/api-*.json internal/catalog/fallback.json
