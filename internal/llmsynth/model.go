package llmsynth

import (
	"fmt"

	"github.com/helixhq/helix/internal/catalog"
)

// DefaultModel is --model's default: a small model with tool use and prompt caching.
const DefaultModel = "anthropic/claude-haiku-4-5"

// UnlistedContext is the context window assumed for a model the catalog
// lacks: small enough for a local 8k model.
const UnlistedContext = 8192

// ModelInfo is what a run needs to know of its model.
type ModelInfo struct {
	Key        string // provider/model
	Provider   string
	Model      string
	Listed     bool
	Capability string
	Prices     Prices
	Context    int
	Output     int
}

// Capability is what the wire format needs of a model: Anthropic answers
// through a forced tool call, OpenAI-compatible servers through a JSON-schema
// response format.
func Capability(provider string) string {
	if provider == "anthropic" {
		return "tool_call"
	}
	return "structured_output"
}

// Resolve finds key (provider/model) in the pinned catalog and checks its
// capability. With unlisted, a model the catalog lacks (or one without the
// capability) is allowed, without prices.
func Resolve(cat catalog.Catalog, key string, unlisted bool) (ModelInfo, error) {
	prov, model, ok := catalog.ParseKey(key)
	if !ok {
		return ModelInfo{}, fmt.Errorf("invalid model %q: want PROVIDER/MODEL", key)
	}
	mi := ModelInfo{Key: key, Provider: prov, Model: model, Capability: Capability(prov), Context: UnlistedContext, Output: 4096}
	var m *catalog.Model
	if p := cat[prov]; p != nil {
		m = p.Models[model]
	}
	if m == nil {
		if !unlisted {
			return mi, fmt.Errorf("model %s is not in the pinned catalog: pick one from 'helix catalog show --provider %s', or pass --model-unlisted", key, prov)
		}
		return mi, nil
	}
	if !m.Supports(mi.Capability) && !unlisted {
		return mi, fmt.Errorf("model %s lacks %s in the pinned catalog, which --llm needs with provider %s: pick another model, or pass --model-unlisted", key, mi.Capability, prov)
	}
	mi.Listed, mi.Prices = true, PricesOf(m)
	if m.Limit != nil && m.Limit.Context != nil && *m.Limit.Context > 0 {
		mi.Context = int(*m.Limit.Context)
		if m.Limit.Input != nil && *m.Limit.Input > 0 {
			mi.Context = int(*m.Limit.Input)
		}
	}
	if m.Limit != nil && m.Limit.Output != nil && *m.Limit.Output > 0 {
		mi.Output = int(*m.Limit.Output)
	}
	return mi, nil
}

// BriefLimits fits a brief into the model's context: what is left after the
// system prompt, the schema and twice max_tokens (the larger retry), at three
// characters a token, capped by maxChars.
func BriefLimits(mi ModelInfo, maxTokens, maxMemories, maxMemoryChars, maxChars int) Limits {
	room := (mi.Context - 2*maxTokens - 3000) * 3
	return Limits{MaxMemories: maxMemories, MaxMemoryChars: maxMemoryChars, MaxChars: max(min(maxChars, room), 2000)}
}
