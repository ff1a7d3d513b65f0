// Package llmsynth asks a language model for the platform's four
// psychological pattern types (emotional patterns, prospective selves,
// relational dynamics, narrative themes), grounded in helix's statistical
// synthesis, scrubbed of secrets, validated, budgeted and stored per user.
package llmsynth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/scrub"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/synthesis/synthstore"
)

// Synthesizer holds what every user of a run shares. User is the per-user
// unit of work: the in-process --all-users loop and a queue worker both call it.
type Synthesizer struct {
	Provider  Provider
	Model     string // the provider's model id
	ModelKey  string // provider/model, as recorded
	Prices    Prices
	MaxTokens int // first attempt; doubled once on a max_tokens stop, up to MaxOutput
	MaxOutput int // the model's output limit from the catalog
	Types     []string
	Budget    *Budget
	Params    synthesis.Params
	Filter    synthstore.Filter
	Limits    Limits
	Now       func() time.Time

	validator *Validator
}

// Init compiles the answer schema; call it once before User.
func (s *Synthesizer) Init() error {
	v, err := NewValidator(s.Types)
	if err != nil {
		return fmt.Errorf("compile the answer schema: %w", err)
	}
	s.validator = v
	if s.Budget == nil {
		s.Budget = &Budget{}
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	return nil
}

// UserResult is one user's outcome.
type UserResult struct {
	UserID          uuid.UUID    `json:"user_id"`
	Memories        int          `json:"memories"`
	Quoted          int          `json:"memories_sent"`
	BriefSHA256     string       `json:"brief_sha256"`
	Reused          bool         `json:"reused"`
	Calls           int          `json:"calls"`
	Usage           Usage        `json:"usage"`
	CostUSD         float64      `json:"cost_usd"`
	Scrubbed        scrub.Counts `json:"scrubbed"`
	DroppedEvidence int          `json:"dropped_evidence"`
	DroppedPatterns int          `json:"dropped_patterns"`
	Patterns        []Pattern    `json:"patterns"`
	StoredPatterns  int          `json:"stored_patterns"`
	Error           string       `json:"error,omitempty"`
}

// Prepared is a user's brief and first request, before anything is sent.
type Prepared struct {
	Memories int
	Brief    Brief
	Request  Request
}

// Prepare reads the user's memories, runs the statistical synthesis and
// builds the scrubbed brief and the request that would carry it.
func (s *Synthesizer) Prepare(ctx context.Context, q db.Querier, user uuid.UUID) (*Prepared, error) {
	ms, err := synthstore.Load(ctx, q, user, s.Filter)
	if err != nil {
		return nil, fmt.Errorf("read memories: %w", err)
	}
	pats, err := synthesis.Analyze(ctx, ms, s.Params)
	if err != nil {
		return nil, fmt.Errorf("statistical synthesis: %w", err)
	}
	var g *Grounding
	if slices.Contains(s.Types, FullSynthesis) {
		if g, err = loadGrounding(ctx, q, user); err != nil {
			return nil, fmt.Errorf("read lineages and patterns: %w", err)
		}
	}
	b := BuildBriefWith(ms, pats, s.Types, s.ModelKey, s.Limits, g)
	return &Prepared{Memories: len(ms), Brief: b, Request: Request{
		Model: s.Model, System: SystemPrompt, SchemaName: toolName, Schema: Schema(s.Types, true),
		MaxTokens: s.MaxTokens, Messages: []Message{{Role: "user", Text: b.Text}},
	}}, nil
}

// User synthesizes one user: prepare the brief; reuse the stored result when
// a brief with the same hash was answered before (no call); else call the
// model (one repair round-trip for an invalid answer, one larger max_tokens
// for a cut one), check the evidence and replace the user's helix rows of
// these types in one transaction with the usage record. A failed user still
// records what its calls cost. ErrBudget (wrapped) means the call was not made.
func (s *Synthesizer) User(ctx context.Context, q db.Querier, user uuid.UUID, runID *int64) (UserResult, error) {
	return s.UserComplete(ctx, q, user, runID, nil)
}

// UserComplete is User with complete run inside the transaction that writes
// the user's patterns (or records a reused result), before it commits: a
// queue worker completes its job there. It is not called when the user has
// nothing to interpret or the user fails.
func (s *Synthesizer) UserComplete(ctx context.Context, q db.Querier, user uuid.UUID, runID *int64, complete func(ctx context.Context, tx pgx.Tx) error) (UserResult, error) {
	r := UserResult{UserID: user, Patterns: []Pattern{}}
	p, err := s.Prepare(ctx, q, user)
	if err != nil {
		return r, err
	}
	r.Memories, r.Quoted, r.BriefSHA256, r.Scrubbed = p.Memories, p.Brief.Memories, p.Brief.SHA256, p.Brief.Scrubbed
	if p.Brief.Memories == 0 {
		return r, nil // nothing to interpret, nothing sent
	}
	row := usageRow{RunID: runID, User: user, Model: s.ModelKey, Brief: p.Brief.SHA256, Types: s.Types, Scrub: p.Brief.Scrubbed}
	done, n, err := storedResult(ctx, q, user, p.Brief.SHA256)
	if err != nil {
		return r, fmt.Errorf("look up the stored result: %w", err)
	}
	if done {
		r.Reused, r.StoredPatterns = true, n
		row.Status, row.Found = "reused", n
		if complete != nil {
			return r, db.InTx(ctx, q, func(tx pgx.Tx) error {
				if err := insertUsage(ctx, tx, row, s.Now()); err != nil {
					return err
				}
				return complete(ctx, tx)
			})
		}
		return r, insertUsage(ctx, q, row, s.Now())
	}

	ps, err := s.converse(ctx, p, &r)
	row.Calls, row.Usage, row.Cost, row.Dropped = r.Calls, r.Usage, r.CostUSD, r.DroppedEvidence
	if err != nil {
		if r.Calls > 0 { // money was spent: keep the record
			msg := err.Error()
			row.Status, row.Err = "failed", &msg
			if uerr := insertUsage(context.WithoutCancel(ctx), q, row, s.Now()); uerr != nil {
				err = errors.Join(err, fmt.Errorf("record usage: %w", uerr))
			}
		}
		return r, err
	}
	r.Patterns, r.StoredPatterns = ps, len(ps)
	row.Status, row.Found = "ok", len(ps)
	if err := replace(ctx, q, row, ps, s.Now(), complete); err != nil {
		return r, fmt.Errorf("write memory_patterns: %w", err)
	}
	return r, nil
}

// converse runs the calls for one user and returns the checked patterns.
func (s *Synthesizer) converse(ctx context.Context, p *Prepared, r *UserResult) ([]Pattern, error) {
	req := p.Request
	repaired, extended := false, false
	for {
		resp, err := s.call(ctx, req, r)
		if err != nil {
			return nil, err
		}
		if resp.StopReason == StopMaxTokens {
			// A cut answer is not parsed: its JSON is truncated by construction.
			if extended || req.MaxTokens*2 > s.MaxOutput {
				return nil, fmt.Errorf("the answer was cut at max_tokens %d (stop_reason %s): raise llm.max-tokens or ask for fewer --types", req.MaxTokens, resp.RawStop)
			}
			extended = true
			req.MaxTokens *= 2
			continue
		}
		ps, dropIDs, dropPats, perr := s.validator.ParseWith(resp.JSON, p.Brief.IDs, p.Brief.Lineages)
		if perr == nil {
			r.DroppedEvidence, r.DroppedPatterns = dropIDs, dropPats
			return ps, nil
		}
		if repaired {
			return nil, fmt.Errorf("answer still invalid after one repair: %w", perr)
		}
		repaired = true
		req.Messages = append(append([]Message(nil), req.Messages...), repairTurn(resp, perr)...)
	}
}

func repairTurn(resp *Response, perr error) []Message {
	fix := fmt.Sprintf("That answer was not valid: %v. Answer again, with JSON that matches the schema exactly and nothing else.", perr)
	if resp.ToolUseID != "" { // Anthropic: a tool_use must be answered by its tool_result
		input := resp.JSON
		if !json.Valid(input) {
			input = json.RawMessage(`{}`)
		}
		return []Message{{Role: "assistant", ToolUseID: resp.ToolUseID, ToolInput: input},
			{Role: "user", ToolUseID: resp.ToolUseID, Text: fix, IsError: true}}
	}
	return []Message{{Role: "assistant", Text: string(resp.JSON)}, {Role: "user", Text: fix}}
}

// call reserves the call's worst-case cost, sends it and settles the budget.
func (s *Synthesizer) call(ctx context.Context, req Request, r *UserResult) (*Response, error) {
	body, err := s.Provider.Body(req)
	if err != nil {
		return nil, err
	}
	est := s.Prices.Estimate(EstimateTokens(body), req.MaxTokens)
	if err := s.Budget.Reserve(est); err != nil {
		return nil, err
	}
	resp, err := s.Provider.Complete(ctx, req)
	if err != nil {
		s.Budget.Settle(est, 0)
		return nil, err
	}
	cost := s.Prices.Cost(resp.Usage)
	s.Budget.Settle(est, cost)
	r.Calls++
	r.Usage = r.Usage.Add(resp.Usage)
	r.CostUSD += cost
	if o, ok := ctx.Value(usageKey{}).(UsageObserver); ok {
		u := resp.Usage
		o.LLMUsage(s.ModelKey, u.Input, u.Output, u.CacheRead, u.CacheWrite, cost)
	}
	return resp, nil
}

// UsageObserver sees the tokens and cost of every call made with a context
// carrying it (WithUsageObserver): `helix worker`'s metrics.
type UsageObserver interface {
	LLMUsage(model string, input, output, cacheRead, cacheWrite int64, usd float64)
}

type usageKey struct{}

// WithUsageObserver returns ctx carrying o for the calls made with it.
func WithUsageObserver(ctx context.Context, o UsageObserver) context.Context {
	return context.WithValue(ctx, usageKey{}, o)
}
