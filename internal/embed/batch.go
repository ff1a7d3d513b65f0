package embed

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/helixhq/helix/internal/httpretry"
)

// Embedder sends one request's worth of inputs.
type Embedder interface {
	Embed(ctx context.Context, inputs []string) ([][]float32, Usage, error)
}

// BatchOptions size the requests.
type BatchOptions struct {
	BatchSize      int // inputs per request
	BatchTokens    int // estimated tokens per request
	MaxInputTokens int // an input estimated longer is cut before it is sent
	Concurrency    int // requests in flight
	// WantDim, when > 0, is the dimension every vector must have: the first
	// answer that disagrees stops the run before more requests are sent.
	WantDim     int
	WantAgainst string // what WantDim comes from, for the error
	// OnBatch is called after each successful request with the number of inputs it embedded.
	OnBatch func(n int)
}

// Stats count what a run sent.
type Stats struct {
	Requests  int `json:"requests"`
	Tokens    int `json:"tokens"`    // as the server reported them
	Truncated int `json:"truncated"` // inputs cut to fit the model (before sending or after a 400)
	Split     int `json:"split"`     // requests split in two after the server said an input was too long
}

// EstimateTokens over-estimates the tokens of s: one per three bytes. BPE
// tokenizers give about four bytes of English per token, and about one token
// per CJK character, which is three bytes in UTF-8.
func EstimateTokens(s string) int { return (len(s) + 2) / 3 }

// cut shortens s to at most n bytes without splitting a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// minInput is the shortest cut input: below it a server that still says
// "too long" is not complaining about length.
const minInput = 16

// All embeds texts and returns one vector per text, in order. Texts are sent
// in batches of at most BatchSize inputs and BatchTokens estimated tokens,
// Concurrency requests at a time. A text estimated above MaxInputTokens is
// cut to that length before it is sent. When the server still answers that an
// input is too long (HTTP 400/413 naming the context length), the batch is
// split in two and each half sent again; a single text that is too long is cut
// to half its length until the server takes it. Any other error stops the run.
func All(ctx context.Context, e Embedder, texts []string, o BatchOptions) ([][]float32, Stats, error) {
	o.BatchSize = max(o.BatchSize, 1)
	o.Concurrency = max(o.Concurrency, 1)
	inputs := make([]string, len(texts))
	// wasCut marks inputs sent shorter than their text; each index belongs
	// to one request at a time, so no lock is needed.
	wasCut := make([]bool, len(texts))
	var st Stats
	for i, t := range texts {
		inputs[i] = t
		if o.MaxInputTokens > 0 && EstimateTokens(t) > o.MaxInputTokens {
			inputs[i] = cut(t, o.MaxInputTokens*3)
			wasCut[i] = true
		}
	}
	type span struct{ lo, hi int }
	var spans []span
	lo, tokens := 0, 0
	for i, t := range inputs {
		n := EstimateTokens(t)
		if i > lo && (i-lo >= o.BatchSize || (o.BatchTokens > 0 && tokens+n > o.BatchTokens)) {
			spans = append(spans, span{lo, i})
			lo, tokens = i, 0
		}
		tokens += n
	}
	if lo < len(inputs) {
		spans = append(spans, span{lo, len(inputs)})
	}

	out := make([][]float32, len(texts))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var requests, usage, split atomic.Int64
	var dim atomic.Int64
	dim.Store(int64(o.WantDim))
	against := o.WantAgainst
	if against == "" {
		against = "the first answer"
	}

	var send func(lo, hi int) error
	send = func(lo, hi int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		requests.Add(1)
		vecs, u, err := e.Embed(ctx, inputs[lo:hi])
		var api *httpretry.APIError
		if errors.As(err, &api) && TooLong(api) {
			if hi-lo > 1 {
				split.Add(1)
				mid := (lo + hi) / 2
				if err := send(lo, mid); err != nil {
					return err
				}
				return send(mid, hi)
			}
			if len(inputs[lo]) > minInput {
				inputs[lo] = cut(inputs[lo], len(inputs[lo])/2)
				wasCut[lo] = true
				return send(lo, hi)
			}
		}
		if err != nil {
			return err
		}
		usage.Add(int64(u.TotalTokens))
		d := int64(len(vecs[0]))
		if !dim.CompareAndSwap(0, d) {
			if want := dim.Load(); want != d {
				return &DimensionError{Got: int(d), Want: int(want), Against: against}
			}
		}
		copy(out[lo:hi], vecs)
		if o.OnBatch != nil {
			o.OnBatch(hi - lo)
		}
		return nil
	}

	jobs := make(chan span)
	var wg sync.WaitGroup
	for range min(o.Concurrency, max(len(spans), 1)) {
		wg.Go(func() {
			for s := range jobs {
				if err := send(s.lo, s.hi); err != nil {
					cancel(err)
				}
			}
		})
	}
	for _, s := range spans {
		if ctx.Err() != nil {
			break
		}
		jobs <- s
	}
	close(jobs)
	wg.Wait()
	st.Requests = int(requests.Load())
	st.Tokens = int(usage.Load())
	for _, c := range wasCut {
		if c {
			st.Truncated++
		}
	}
	st.Split = int(split.Load())
	if err := context.Cause(ctx); err != nil {
		return nil, st, err
	}
	return out, st, nil
}
