package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/tableprinter"
)

// VerifyOptions are the inputs of `catalog verify`.
type VerifyOptions struct {
	IO     *iostreams.IOStreams
	F      *cmdutil.Factory
	Source string
	Net    NetOptions
}

// VerifyResult is the comparison of upstream with the pinned snapshot.
type VerifyResult struct {
	Snapshot    catalog.Snapshot `json:"snapshot"`
	Source      string           `json:"source"`
	NotModified bool             `json:"not_modified"`
	Drift       bool             `json:"drift"`
	*catalog.Diff
}

// NewCmdVerify re-fetches the catalog and compares it with the pinned snapshot.
func NewCmdVerify(f *cmdutil.Factory, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Compare upstream with the pinned snapshot; exit 1 on drift",
		Long: `Re-fetch the catalog from the pinned snapshot's source (or --source), keep the
providers the snapshot was fetched with, and compare: models added, removed,
and changed field by field (openai/gpt-4o: cost.input 2.5 → 2). Nothing is
stored. Exit 0 when equal, exit 1 on drift, so it works as a CI or cron check.

On a terminal each difference is one line; off a terminal it is one
tab-separated row: kind (added, removed, changed), provider/model, field path,
old value, new value (JSON). --output json gives the whole diff.

EXAMPLES
  helix catalog verify
  helix catalog verify --output json | jq '.changed[].key'
  helix catalog verify || helix catalog fetch   # cron: refresh on drift

` + cmdutil.ExitStatusDB + `
  (verify: 1 means upstream differs from the pinned snapshot)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Net.validate(); err != nil {
				return err
			}
			var err error
			if opts.Source, err = absSource(opts.Source); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return verifyRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Source, "source", "", "URL or file to compare with (default: the pinned snapshot's source)")
	addNetFlags(cmd, &opts.Net)
	return cmd
}

func verifyRun(ctx context.Context, opts *VerifyOptions) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	var res *VerifyResult
	err = jobrun.Do(ctx, pool, jobrun.Spec{Job: "catalog verify", Params: map[string]any{"source": opts.Source}, Now: f.Now},
		func(ctx context.Context, run *jobrun.Run) (any, error) {
			var err error
			res, err = verify(ctx, opts, pool)
			var counts any
			if res != nil {
				counts = map[string]any{"snapshot": res.Snapshot.ID, "added": len(res.Added), "removed": len(res.Removed), "changed": len(res.Changed)}
			}
			if err == nil && res.Drift {
				err = cmdutil.DriftError(fmt.Errorf("catalog drift: %d added, %d removed, %d changed since snapshot %d (%s); run helix catalog fetch to pin the new catalog",
					len(res.Added), len(res.Removed), len(res.Changed), res.Snapshot.ID, cmdutil.FormatTime(res.Snapshot.FetchedAt)))
			}
			return counts, err
		})
	if res == nil {
		return err
	}
	if f.Global.JSON() {
		if werr := cmdutil.WriteJSON(opts.IO.Out, res); werr != nil {
			return werr
		}
		return err
	}
	if !res.Drift {
		cmdutil.Fprintf(opts.IO.ErrOut, "no drift: %s matches snapshot %d (%d models)\n", res.Source, res.Snapshot.ID, res.Snapshot.Models)
		return nil
	}
	if werr := printDiff(opts.IO, res.Diff); werr != nil {
		return werr
	}
	return err
}

func verify(ctx context.Context, opts *VerifyOptions, pool db.Querier) (*VerifyResult, error) {
	pinned, err := catalog.Pinned(ctx, pool)
	if err != nil {
		if errors.Is(err, catalog.ErrNoSnapshot) {
			return nil, cmdutil.InputError(err)
		}
		return nil, err
	}
	res := &VerifyResult{Snapshot: pinned, Source: opts.Source, Diff: &catalog.Diff{Added: []string{}, Removed: []string{}, Changed: []catalog.Change{}}}
	etag := pinned.ETag
	if res.Source == "" {
		res.Source = pinned.Source
	} else if res.Source != pinned.Source {
		etag = ""
	}
	fetched, cat, err := download(ctx, res.Source, opts.Net.fetchOptions(opts.F.AppVersion, etag))
	if err != nil {
		if errors.Is(err, netguard.ErrPrivate) {
			// A snapshot fetched with catalog fetch --allow-private is verified
			// by another command with its own setting: name it.
			return nil, fmt.Errorf("%w; catalog verify has its own setting: pass --allow-private, or set catalog.verify.allow-private: true in the config file (HELIX_CATALOG_VERIFY_ALLOW_PRIVATE=true)", err)
		}
		return nil, err
	}
	if fetched.NotModified {
		res.NotModified = true
		return res, nil
	}
	// A provider gone upstream is drift (its models are removed), not an error.
	cat, _ = cat.Filter(pinned.ProviderFilter)
	sum, err := cat.Sum()
	if err != nil {
		return nil, err
	}
	if sum == pinned.SHA256 {
		return res, nil
	}
	old, err := catalog.Load(ctx, pool, pinned.ID)
	if err != nil {
		return nil, err
	}
	if res.Diff, err = catalog.Compare(old, cat); err != nil {
		return nil, err
	}
	res.Drift = !res.Diff.Empty()
	return res, nil
}

func printDiff(io *iostreams.IOStreams, d *catalog.Diff) error {
	if !io.IsStdoutTTY() {
		tp := tableprinter.New(io.Out, false)
		for _, k := range d.Added {
			tp.Row("added", k, "", "", "")
		}
		for _, k := range d.Removed {
			tp.Row("removed", k, "", "", "")
		}
		for _, c := range d.Changed {
			for _, fc := range c.Fields {
				tp.Row("changed", c.Key, fc.Path, jsonValue(fc.Old), jsonValue(fc.New))
			}
		}
		return tp.Render()
	}
	w := io.Out
	for _, k := range d.Added {
		fmt.Fprintf(w, "added    %s\n", k)
	}
	for _, k := range d.Removed {
		fmt.Fprintf(w, "removed  %s\n", k)
	}
	for _, c := range d.Changed {
		for _, fc := range c.Fields {
			fmt.Fprintf(w, "changed  %s: %s\n", c.Key, fc)
		}
	}
	return nil
}

// jsonValue renders a field value for a tab-separated row: JSON, or empty when absent.
func jsonValue(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
