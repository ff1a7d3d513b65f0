package llmsynth

import (
	"errors"
	"fmt"
	"sync"

	"github.com/helixhq/helix/internal/catalog"
)

// Prices are USD per million tokens, from the pinned catalog.
type Prices struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
	Known      bool    `json:"known"` // false: the model has no price (unlisted or free)
}

// PricesOf reads a catalog model's prices. A missing cache price is the
// input price: that is what the provider bills when it does not discount.
func PricesOf(m *catalog.Model) Prices {
	if m == nil || m.Cost == nil || m.Cost.Input == nil || m.Cost.Output == nil {
		return Prices{}
	}
	p := Prices{Input: *m.Cost.Input, Output: *m.Cost.Output, Known: true}
	p.CacheRead, p.CacheWrite = p.Input, p.Input
	if m.Cost.CacheRead != nil {
		p.CacheRead = *m.Cost.CacheRead
	}
	if m.Cost.CacheWrite != nil {
		p.CacheWrite = *m.Cost.CacheWrite
	}
	return p
}

// Cost of a usage in USD.
func (p Prices) Cost(u Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
		float64(u.CacheRead)*p.CacheRead + float64(u.CacheWrite)*p.CacheWrite) / 1e6
}

// Estimate is the most a call can cost: every input token at the dearer of
// the input and cache-write prices, and the full max_tokens of output.
func (p Prices) Estimate(inputTokens, maxTokens int) float64 {
	return (float64(inputTokens)*max(p.Input, p.CacheWrite) + float64(maxTokens)*p.Output) / 1e6
}

// EstimateTokens over-counts the tokens of a request body: about three bytes
// a token, where English runs at about four.
func EstimateTokens(body []byte) int { return len(body)/3 + 1 }

// ErrBudget is returned before a call that could take the run over --max-cost.
var ErrBudget = errors.New("budget exhausted")

// Budget is a run's spending, shared by the workers of one run.
type Budget struct {
	Max float64 // USD; 0: no limit

	mu       sync.Mutex
	settled  *sync.Cond
	spent    float64
	reserved float64
	inFlight int
}

// Reserve sets est aside for a call, or returns ErrBudget when spending it
// could exceed Max. While other calls are in flight it waits for them to
// settle (they usually cost less than reserved) before it decides, so that
// concurrency never stops a run earlier than running one call at a time would.
func (b *Budget) Reserve(est float64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.settled == nil {
		b.settled = sync.NewCond(&b.mu)
	}
	for b.Max > 0 && b.spent+b.reserved+est > b.Max {
		if b.inFlight == 0 {
			return fmt.Errorf("%w: $%.6f spent, the next call could cost up to $%.6f, over --max-cost $%.6f", ErrBudget, b.spent, est, b.Max)
		}
		b.settled.Wait()
	}
	b.reserved += est
	b.inFlight++
	return nil
}

// Settle replaces a reservation by what the call cost.
func (b *Budget) Settle(est, cost float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reserved -= est
	b.spent += cost
	b.inFlight--
	if b.settled != nil {
		b.settled.Broadcast()
	}
}

// Spent is what the run's calls have cost so far.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}
