package catalog

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/tableprinter"
)

// ShowOptions are the inputs of `catalog show`.
type ShowOptions struct {
	IO           *iostreams.IOStreams
	F            *cmdutil.Factory
	Providers    []string
	Models       []string
	Capabilities []string
	MinContext   int64
	// OverridesFile is the catalog.overrides setting.
	OverridesFile string
}

// ShowResult is what show prints with --output json.
type ShowResult struct {
	// Snapshot is the pinned snapshot, nil when the embedded one was used.
	Snapshot *catalog.Snapshot `json:"snapshot"`
	Source   string            `json:"source"`
	Models   []catalog.Entry   `json:"models"`
}

// NewCmdShow lists models from the pinned snapshot with overrides applied.
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "show",
		Short: "List models of the pinned snapshot, with local overrides applied",
		Long: fmt.Sprintf(`List models from the pinned snapshot with the overrides file (the
catalog.overrides setting) applied; a value an override set is marked with *.
With no database, or no snapshot in it, the snapshot compiled into helix is
used (a warning on stderr says so).

--model takes model ids, provider/model keys or shell patterns (gpt-4*,
openai/o*). --capability keeps models that have every capability listed: %s.
--min-context keeps models whose context window is at least N tokens.

On a terminal the output is a table; off a terminal, tab-separated rows
(provider, model, context, output, input $/M, output $/M, capabilities,
status); --output json gives full descriptors and the overridden fields.

EXAMPLES
  helix catalog show --only-provider anthropic
  helix catalog show --capability tool_call,reasoning --min-context 200000
  helix catalog show --model 'openai/gpt-4o*' --output json

`, strings.Join(catalog.Capabilities(), ", ")) + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Providers = normalizeList(opts.Providers)
			opts.Capabilities = normalizeList(opts.Capabilities)
			for _, c := range opts.Capabilities {
				if !slices.Contains(catalog.Capabilities(), c) {
					return cmdutil.FlagErrorf("unknown --capability %q: use %s", c, strings.Join(catalog.Capabilities(), ", "))
				}
			}
			for _, m := range opts.Models {
				if _, err := path.Match(m, ""); err != nil {
					return cmdutil.FlagErrorf("invalid --model pattern %q: %v", m, err)
				}
			}
			if opts.MinContext < 0 {
				return cmdutil.FlagErrorf("--min-context must not be negative")
			}
			cfg, err := f.Config()
			if err != nil {
				return cmdutil.InputError(err)
			}
			opts.OverridesFile = cfg.String("catalog.overrides")
			if runF != nil {
				return runF(opts)
			}
			return showRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Providers, "only-provider", nil, "only these providers (comma-separated ids)")
	cmdutil.Alias(cmd.Flags(), "only-provider", "provider")
	_ = cmd.RegisterFlagCompletionFunc("only-provider", cmdutil.CompleteColumn(f, "model_catalog_models", "provider", false))
	cmd.Flags().StringSliceVar(&opts.Models, "model", nil, "only these models: ids, provider/model or patterns")
	cmd.Flags().StringSliceVar(&opts.Capabilities, "capability", nil, "only models with all of these capabilities")
	cmd.Flags().Int64Var(&opts.MinContext, "min-context", 0, "only models with a context window of at least N tokens")
	return cmd
}

func showRun(ctx context.Context, opts *ShowOptions) error {
	var over *catalog.Overrides
	if opts.OverridesFile != "" {
		var err error
		if over, err = catalog.LoadOverrides(opts.OverridesFile); err != nil {
			return cmdutil.InputError(fmt.Errorf("overrides %s: %w", opts.OverridesFile, err))
		}
	}
	res, cat, err := loadForShow(ctx, opts)
	if err != nil {
		return err
	}
	cat, _ = cat.Filter(opts.Providers)
	entries, unmatched, err := over.Apply(cat)
	if err != nil {
		return cmdutil.InputError(fmt.Errorf("overrides %s: %w", opts.OverridesFile, err))
	}
	if len(opts.Providers) == 0 {
		for _, u := range unmatched {
			opts.F.Logger().Warn("override matches no model in the catalog", "file", opts.OverridesFile, "entry", u)
		}
	}
	res.Models = []catalog.Entry{}
	for _, e := range entries {
		if opts.keep(&e) {
			res.Models = append(res.Models, e)
		}
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	return printModels(opts.IO, res.Models)
}

// loadForShow reads the pinned snapshot, falling back to the embedded one when
// there is no database, it is unreachable, or it holds no snapshot.
func loadForShow(ctx context.Context, opts *ShowOptions) (*ShowResult, catalog.Catalog, error) {
	res, cat, err := loadPinned(ctx, opts.F, opts.Providers)
	if err == nil || !fallbackOK(err) {
		return res, cat, err
	}
	opts.F.Logger().Warn("using the catalog compiled into helix", "source", catalog.FallbackSource, "reason", err.Error())
	if cat, err = catalog.Fallback(); err != nil {
		return nil, nil, err
	}
	return &ShowResult{Source: catalog.FallbackSource}, cat, nil
}

func loadPinned(ctx context.Context, f *cmdutil.Factory, providers []string) (*ShowResult, catalog.Catalog, error) {
	pool, err := f.DB(ctx)
	if err != nil {
		return nil, nil, err
	}
	snap, err := catalog.Pinned(ctx, pool)
	if err != nil {
		return nil, nil, err
	}
	cat, err := catalog.Load(ctx, pool, snap.ID, providers...)
	if err != nil {
		return nil, nil, err
	}
	return &ShowResult{Snapshot: &snap, Source: snap.Source}, cat, nil
}

// fallbackOK tells the errors after which the embedded snapshot is worth showing.
func fallbackOK(err error) bool {
	var ee *cmdutil.ExitError
	var pe *pgconn.PgError
	switch {
	case errors.Is(err, catalog.ErrNoSnapshot), errors.Is(err, db.ErrNoURL), db.IsUnavailable(err):
		return true
	case errors.As(err, &ee):
		return ee.Code == cmdutil.ExitUnavailable
	case errors.As(err, &pe):
		return pe.Code == "42P01" // undefined_table: migrations not applied yet
	}
	return false
}

func (o *ShowOptions) keep(e *catalog.Entry) bool {
	m := e.Descriptor
	if len(o.Models) > 0 && !slices.ContainsFunc(o.Models, func(p string) bool {
		a, _ := path.Match(p, e.Model)
		b, _ := path.Match(p, catalog.Key(e.Provider, e.Model))
		return a || b
	}) {
		return false
	}
	for _, c := range o.Capabilities {
		if !m.Supports(c) {
			return false
		}
	}
	if o.MinContext > 0 && (m.Limit == nil || m.Limit.Context == nil || *m.Limit.Context < o.MinContext) {
		return false
	}
	return true
}

func printModels(io *iostreams.IOStreams, entries []catalog.Entry) error {
	tp := tableprinter.New(io.Out, io.IsStdoutTTY())
	tp.Header("PROVIDER", "MODEL", "CONTEXT", "OUTPUT", "INPUT $/M", "OUTPUT $/M", "CAPABILITIES", "STATUS")
	overridden := false
	for i := range entries {
		e := &entries[i]
		m := e.Descriptor
		mark := func(path, v string) string {
			if e.IsOverridden(path) {
				overridden = true
				return v + "*"
			}
			return v
		}
		var ctxLen, outLen *int64
		if m.Limit != nil {
			ctxLen, outLen = m.Limit.Context, m.Limit.Output
		}
		var in, out *float64
		if m.Cost != nil {
			in, out = m.Cost.Input, m.Cost.Output
		}
		var caps []string
		for _, c := range catalog.Capabilities() {
			on := m.Supports(c)
			if !on && !e.IsOverridden(c) {
				continue
			}
			name := c
			if !on {
				name = "!" + c // an override turned it off
			}
			caps = append(caps, mark(c, name))
		}
		tp.Row(e.Provider, e.Model,
			mark("limit.context", formatInt(ctxLen)), mark("limit.output", formatInt(outLen)),
			mark("cost.input", formatFloat(in)), mark("cost.output", formatFloat(out)),
			strings.Join(caps, ","), mark("status", dash(m.Status)))
	}
	if err := tp.Render(); err != nil {
		return err
	}
	if overridden && io.IsStderrTTY() {
		cmdutil.Fprintf(io.ErrOut, "* set by the overrides file\n")
	}
	return nil
}

func formatInt(v *int64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatInt(*v, 10)
}

func formatFloat(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
