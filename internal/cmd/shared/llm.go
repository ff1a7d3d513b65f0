package shared

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/llmsynth"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/synthesis/synthstore"
)

// LLMSettings are what NewSynthesizer needs besides the configuration: the
// command's flags, as plain values.
type LLMSettings struct {
	Model         string // provider/model
	ModelUnlisted bool
	MaxCost       float64 // USD; 0: no limit
	Types         []string
	Params        synthesis.Params
	Filter        synthstore.Filter
	DryRun        bool // no key needed
}

// NewSynthesizer resolves the model against the pinned catalog (the embedded
// one when the database has none) and builds the provider from the settings
// (llm.*). A queue worker calls it once, then Synthesizer.User per user.
func NewSynthesizer(ctx context.Context, cfg *config.Config, pool *pgxpool.Pool, st LLMSettings, client *http.Client,
	now func() time.Time, warn func(string)) (*llmsynth.Synthesizer, llmsynth.ModelInfo, string, error) {
	prov, _, _ := catalog.ParseKey(st.Model)
	cat, err := pinnedCatalog(ctx, pool, prov, warn)
	if err != nil {
		return nil, llmsynth.ModelInfo{}, "", err
	}
	mi, err := llmsynth.Resolve(cat, st.Model, st.ModelUnlisted)
	if err != nil {
		return nil, mi, "", cmdutil.InputError(err)
	}
	if st.MaxCost > 0 && !mi.Prices.Known {
		return nil, mi, "", cmdutil.FlagErrorf("--max-cost needs prices, and %s has none in the pinned catalog", mi.Key)
	}
	if !mi.Prices.Known {
		warn(fmt.Sprintf("%s has no prices in the pinned catalog: its cost is reported as 0", mi.Key))
	}
	timeout, err := time.ParseDuration(cfg.String("llm.timeout"))
	if err != nil {
		return nil, mi, "", cmdutil.InputError(fmt.Errorf("llm.timeout %q: %w", cfg.String("llm.timeout"), err))
	}
	cc := *client
	cc.Timeout = 0 // the per-attempt timeout governs
	h := llmsynth.HTTP{Client: &cc, Timeout: timeout, MaxRetries: cfg.Int("llm.retries")}
	var p llmsynth.Provider
	var url string
	if prov == "anthropic" {
		base := cfg.String("llm.anthropic.base-url")
		key := cfg.String("llm.anthropic.api-key")
		if key == "" && !st.DryRun {
			return nil, mi, "", cmdutil.InputError(fmt.Errorf("no Anthropic API key: set ANTHROPIC_API_KEY (or HELIX_LLM_ANTHROPIC_API_KEY, or llm.anthropic.api-key in the config file)"))
		}
		p, url = &llmsynth.Anthropic{HTTP: h, BaseURL: base, APIKey: key}, strings.TrimRight(base, "/")+"/v1/messages"
	} else {
		base, key := cfg.String("llm."+prov+".base-url"), cfg.String("llm."+prov+".api-key")
		if base == "" {
			base, key = cfg.String("llm.openai.base-url"), cfg.String("llm.openai.api-key")
		}
		p, url = &llmsynth.OpenAI{HTTP: h, BaseURL: base, APIKey: key, Provider: prov}, strings.TrimRight(base, "/")+"/chat/completions"
	}
	maxTokens := cfg.Int("llm.max-tokens")
	if maxTokens <= 0 {
		return nil, mi, "", cmdutil.InputError(fmt.Errorf("llm.max-tokens %d: want 1 or more", maxTokens))
	}
	maxTokens = min(maxTokens, mi.Output)
	s := &llmsynth.Synthesizer{
		Provider: p, Model: mi.Model, ModelKey: mi.Key, Prices: mi.Prices, MaxTokens: maxTokens, MaxOutput: mi.Output,
		Types: st.Types, Budget: &llmsynth.Budget{Max: st.MaxCost}, Params: st.Params, Filter: st.Filter,
		Limits: llmsynth.BriefLimits(mi, maxTokens, cfg.Int("llm.max-memories"), cfg.Int("llm.max-memory-chars"), cfg.Int("llm.max-brief-chars")),
		Now:    now,
	}
	return s, mi, url, s.Init()
}

func pinnedCatalog(ctx context.Context, pool *pgxpool.Pool, provider string, warn func(string)) (catalog.Catalog, error) {
	snap, err := catalog.Pinned(ctx, pool)
	if errors.Is(err, catalog.ErrNoSnapshot) {
		warn("no pinned model catalog in the database ('helix catalog fetch' pins one): using the " + catalog.FallbackSource)
		return catalog.Fallback()
	}
	if err != nil {
		return nil, fmt.Errorf("read the pinned catalog: %w", err)
	}
	return catalog.Load(ctx, pool, snap.ID, provider)
}

// LLMOutcome is how a run of LLM work over users ended, for synthesize --llm
// and profile update alike: the error the run returns and the status its
// job_runs row records.
type LLMOutcome struct {
	Fatal  error // a rejected key, a provider gone: every user would fail alike
	Budget error // --max-cost stopped the run
	// MaxCost and Spent in USD; Done of Total units (Unit names one: "user").
	MaxCost, Spent float64
	Done, Total    int
	Unit           string
	Failed         []string // "<user>: <error>"
	FailedErrs     []error
	NotStarted     int
}

// Result is the run's status (db.RunOK, RunInterrupted, RunFailed or
// RunPartial) and error (nil when every unit was done).
func (o LLMOutcome) Result(ctx context.Context) (string, error) {
	switch {
	case ctx.Err() != nil:
		return db.RunInterrupted, ctx.Err()
	case o.Fatal != nil:
		return db.RunFailed, o.Fatal
	case o.Budget != nil:
		// the same counts as the progress lines and the report: units a
		// stop left out are not started, not failed
		msg := fmt.Sprintf("stopped by --max-cost %s after %d of %s (%d failed, %d not started), spent %s: %v",
			cmdutil.Money(o.MaxCost), o.Done, cmdutil.Count(o.Total, o.Unit, ""), len(o.Failed), o.NotStarted, cmdutil.Money(o.Spent), o.Budget)
		if len(o.Failed) > 0 {
			msg += "; failed: " + strings.Join(o.Failed, "; ")
		}
		return db.RunPartial, &cmdutil.ExitError{Code: cmdutil.ExitPartial, Kind: "partial", Err: errors.New(msg)}
	case len(o.Failed) > 0:
		return db.RunPartial, &cmdutil.PartialError{Failed: o.Failed, Total: o.Total, Errs: o.FailedErrs}
	}
	return db.RunOK, nil
}
