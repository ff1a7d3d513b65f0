package llmsynth

import (
	"context"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/llmsynth/llmtest"
)

type usageSeen struct {
	model                  string
	in, out, cRead, cWrite int64
	usd                    float64
	calls                  int
}

func (u *usageSeen) LLMUsage(model string, in, out, cRead, cWrite int64, usd float64) {
	u.model, u.in, u.out, u.cRead, u.cWrite, u.usd = model, in, out, cRead, cWrite, usd
	u.calls++
}

// TestUsageObserver: a call made with WithUsageObserver reports its
// tokens and its cost at the model's prices.
func TestUsageObserver(t *testing.T) {
	s := llmtest.NewAnthropic(t, testKey, func(llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Body: llmtest.AnthropicToolUse(toolName, llmtest.Answer(Types, "m1"), usage)}
	})
	var waits []time.Duration
	syn := &Synthesizer{Provider: anthropicClient(s, testKey, &waits), Model: "claude-haiku-4-5", ModelKey: "anthropic/claude-haiku-4-5",
		Prices: Prices{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25, Known: true}, Types: Types}
	if err := syn.Init(); err != nil {
		t.Fatal(err)
	}
	seen := &usageSeen{}
	var r UserResult
	if _, err := syn.call(WithUsageObserver(context.Background(), seen), request(), &r); err != nil {
		t.Fatal(err)
	}
	want := (1000*1 + 200*5 + 300*0.1 + 50*1.25) / 1e6
	if seen.calls != 1 || seen.model != "anthropic/claude-haiku-4-5" || seen.in != 1000 || seen.out != 200 ||
		seen.cRead != 300 || seen.cWrite != 50 || seen.usd != want || r.CostUSD != want {
		t.Errorf("observed %+v (result cost %v), want 1000/200/300/50 tokens and %v USD", seen, r.CostUSD, want)
	}
}
