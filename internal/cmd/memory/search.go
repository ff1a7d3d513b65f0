package memory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/embed"
	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/search"
	"github.com/helixhq/helix/internal/tableprinter"
)

// SearchOptions are the inputs of `memory search`.
type SearchOptions struct {
	IO         *iostreams.IOStreams
	JSON       bool
	Config     func() (*config.Config, error)
	DB         func(ctx context.Context) (*pgxpool.Pool, error)
	HTTPClient func() (*http.Client, error)
	Logger     func() *slog.Logger

	Query  string
	UserID cmdutil.UserID
	Limit  int
	Mode   string
	Model  string // "": embed.model if set, else the model that made the user's embeddings

	user uuid.UUID
}

// NewCmdSearch builds `helix memory search`.
func NewCmdSearch(f *cmdutil.Factory, runF func(*SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{IO: f.IOStreams, Config: f.Config, DB: f.DB, HTTPClient: f.HTTPClient, Logger: f.Logger}
	cmd := &cobra.Command{
		Use:   "search QUERY --user-id UUID",
		Short: "Find a user's memories by full text, by embedding, or both",
		Long: `Find a user's memories for QUERY.

  text    PostgreSQL full-text search: the query's words, stemmed in the index's
          language (helix memory reindex --language), any of them matching,
          ranked by ts_rank normalised by length. Uses the GIN index of
          helix_memory_search, which a trigger keeps in step with memories.
  vector  the query is embedded by the configured provider (embed.base-url,
          --model) and compared by cosine similarity with the user's
          embeddings made by that model (or of unrecorded origin) and of the
          same dimension; the others are skipped and counted. The model is
          --model, else embed.model when it is set, else the model that made
          most of the user's embeddings (what helix embed --model used), else
          text-embedding-3-small. Brute force over the user's rows for real[],
          pgvector's <=> for a vector column.
  hybrid  both, fused by reciprocal rank fusion (score = sum of 1/(60+rank)
          over the sides that found the memory; each side ranks its top
          max(100, 4×limit)). The default. With no provider configured it is
          text only; if the provider fails it falls back to text with a warning.

With --output json every result carries its fused score and each side's rank
and score (ts_rank, cosine similarity). No results is not an error (exit 0).

EXAMPLES
  helix memory search "sourdough starter" --user-id 6f1c…
  helix memory search "when did I feel anxious about work" --user-id 6f1c… --mode vector --limit 5
  helix memory search "dentist" --user-id 6f1c… --mode text -o json

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = args[0]
			opts.JSON = f.Global.JSON()
			if !opts.UserID.Given {
				return cmdutil.FlagErrorf("--user-id is required: the user whose memories to search")
			}
			opts.user = opts.UserID.ID
			switch {
			case strings.TrimSpace(opts.Query) == "":
				return cmdutil.FlagErrorf("the query is empty")
			case search.CheckQuery(opts.Query) != nil:
				return cmdutil.FlagErrorf("%v", search.CheckQuery(opts.Query))
			case opts.Limit < 1 || opts.Limit > 1000:
				return cmdutil.FlagErrorf("invalid --limit %d: use 1 to 1000", opts.Limit)
			case opts.Mode != search.Hybrid && opts.Mode != search.Text && opts.Mode != search.Vector:
				return cmdutil.FlagErrorf("invalid --mode %q: use hybrid, text or vector", opts.Mode)
			}
			if runF != nil {
				return runF(opts)
			}
			return searchRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	cmdutil.UserIDVar(fl, &opts.UserID, "the user whose memories to search (UUID, required)")
	fl.IntVar(&opts.Limit, "limit", 10, "most results")
	fl.StringVar(&opts.Mode, "mode", search.Hybrid, "hybrid, text or vector")
	fl.StringVar(&opts.Model, "model", "", "embedding model of the query and of the embeddings compared (default: embed.model if set, else the model that made the user's embeddings)")
	_ = cmd.RegisterFlagCompletionFunc("mode", cmdutil.CompleteWords(search.Hybrid, search.Text, search.Vector))
	_ = cmd.MarkFlagRequired("user-id")
	return cmd
}

// queryEmbedder adapts the embeddings client to search.Embedder.
type queryEmbedder struct{ c *embed.Client }

func (q queryEmbedder) Embed(ctx context.Context, in []string) ([][]float32, error) {
	v, _, err := q.c.Embed(ctx, in)
	return v, err
}

func searchRun(ctx context.Context, opts *SearchOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	var e search.Embedder
	var hc *http.Client
	if opts.Mode != search.Text {
		if hc, err = opts.HTTPClient(); err != nil {
			return err
		}
		if c := shared.EmbedClient(cfg, hc, ""); c == nil && opts.Mode == search.Vector {
			return cmdutil.InputError(search.ErrNoProvider)
		}
	}
	pool, err := opts.DB(ctx)
	if err != nil {
		return err
	}
	model := opts.Model
	if model == "" && !cfg.IsSet("embed.model") && hc != nil {
		// helix embed --model is remembered in the rows it wrote
		if model, err = search.RecordedModel(ctx, pool, opts.user); err != nil {
			return err
		}
	}
	if model == "" {
		model = shared.EmbedModel(cfg)
	}
	if hc != nil {
		if c := shared.EmbedClient(cfg, hc, model); c != nil {
			e = queryEmbedder{c}
		}
	}
	p := search.Params{User: opts.user, Query: opts.Query, Mode: opts.Mode, Limit: opts.Limit, Model: model}
	rep, err := search.Search(ctx, pool, e, p)
	if err != nil && opts.Mode == search.Hybrid && e != nil && ctx.Err() == nil && isProviderErr(err) {
		opts.Logger().Warn("embeddings provider failed: text results only", "err", err)
		rep, err = search.Search(ctx, pool, nil, p)
	}
	if err != nil {
		return err // a provider unavailable is exit 4 by its own class
	}
	switch {
	case rep.VectorEmpty != "":
		// a hybrid search that was text only must not pass for hybrid
		opts.Logger().Warn("vector search found nothing: "+rep.VectorEmpty, "mode", rep.Mode)
	case rep.SkippedOtherModel+rep.SkippedDimension > 0:
		opts.Logger().Info("vector search skipped embeddings", "other_model", rep.SkippedOtherModel, "other_dimension", rep.SkippedDimension)
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, rep)
	}
	tp := tableprinter.New(opts.IO.Out, opts.IO.IsStdoutTTY())
	tp.Header("RANK", "SCORE", "TEXT", "VECTOR", "CREATED", "ID", "CONTENT")
	for i, r := range rep.Results {
		side := func(s *search.Side) string {
			if s == nil {
				return "-"
			}
			return fmt.Sprintf("#%d %.3f", s.Rank, s.Score)
		}
		content := ""
		if r.Content != nil {
			content = oneLine(*r.Content, 80)
		}
		at := "-"
		if r.CreatedAt != nil {
			at = cmdutil.FormatTime(*r.CreatedAt)
		}
		tp.Row(strconv.Itoa(i+1), fmt.Sprintf("%.4f", r.Score), side(r.Text), side(r.Vector), at, r.ID.String(), content)
	}
	if len(rep.Results) > 0 {
		if err := tp.Render(); err != nil {
			return err
		}
	}
	cmdutil.Fprintf(opts.IO.ErrOut, "%d results (%s)\n", len(rep.Results), rep.Mode)
	return nil
}

func isProviderErr(err error) bool {
	var api *httpretry.APIError
	return errors.Is(err, httpretry.ErrUnavailable) || errors.As(err, &api) || strings.Contains(err.Error(), "embed the query")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
