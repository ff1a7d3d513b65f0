package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/queue"
)

// FetchOptions are the inputs of `catalog fetch`.
type FetchOptions struct {
	IO        *iostreams.IOStreams
	F         *cmdutil.Factory
	Source    string
	Providers []string
	Out       string
	Enqueue   bool
	Priority  int
	Net       NetOptions
}

// FetchResult is what fetch reports.
type FetchResult struct {
	catalog.StoreResult
	// NotModified is true when the source answered 304 to the pinned snapshot's ETag.
	NotModified bool `json:"not_modified"`
}

// NewCmdFetch downloads the catalog, stores it as a snapshot and pins it.
func NewCmdFetch(f *cmdutil.Factory, runF func(*FetchOptions) error) *cobra.Command {
	opts := &FetchOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "fetch",
		Short: "Download the models.dev catalog, store it as a snapshot and pin it",
		Long: `Download the models.dev catalog (--source, else the catalog.source setting,
default https://models.dev/api.json; a file path works too), keep the listed
providers, store it in PostgreSQL as a snapshot and pin it: catalog show and
catalog verify use the pinned snapshot.

Content already stored (same sha256 of the filtered catalog) is not stored
again; that snapshot is pinned. When the pinned snapshot came from the same
source with the same providers, its ETag is sent as If-None-Match and a 304
changes nothing. Downloads are retried on 5xx, 429 and network errors, time
out after --fetch-timeout and stop at --max-bytes; a failed fetch leaves the pinned
snapshot as it was. Sources on private or loopback addresses are refused
unless --allow-private.

EXAMPLES
  helix catalog fetch
  helix catalog fetch --only-provider openai,anthropic,google --out catalog.json
  helix catalog fetch --source ./api.json --output json
  helix catalog fetch --enqueue               # then: helix worker --queues catalog

--enqueue queues the fetch as one job for helix worker (not queued again
while one for the same source and providers is pending) and returns at
once; it cannot be combined with --out (the file would be the worker's).

` + cmdutil.ExitStatusLocked,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Net.validate(); err != nil {
				return err
			}
			if opts.Enqueue && opts.Out != "" {
				return cmdutil.FlagErrorf("--enqueue and --out cannot be used together")
			}
			if opts.Source == "" {
				cfg, err := f.Config()
				if err != nil {
					return cmdutil.InputError(err)
				}
				opts.Source = cfg.String("catalog.source")
			}
			if opts.Source == "" {
				opts.Source = catalog.DefaultSource
			}
			var err error
			if opts.Source, err = absSource(opts.Source); err != nil {
				return err
			}
			opts.Providers = normalizeList(opts.Providers)
			if runF != nil {
				return runF(opts)
			}
			return fetchRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Source, "source", "", "URL or file to read the catalog from (default: the catalog.source setting)")
	cmd.Flags().StringSliceVar(&opts.Providers, "only-provider", nil, "keep only these providers (comma-separated ids)")
	cmdutil.Alias(cmd.Flags(), "only-provider", "provider")
	_ = cmd.RegisterFlagCompletionFunc("only-provider", cmdutil.CompleteColumn(f, "model_catalog_models", "provider", false))
	cmd.Flags().StringVar(&opts.Out, "out", "", "also write the stored snapshot to this file")
	cmd.Flags().BoolVar(&opts.Enqueue, "enqueue", false, "queue the fetch as a job for helix worker and return at once")
	addNetFlags(cmd, &opts.Net)
	shared.PriorityFlag(cmd, &opts.Priority)
	return cmd
}

func normalizeList(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func fetchRun(ctx context.Context, opts *FetchOptions) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	if opts.Enqueue {
		res, err := queue.Insert(ctx, pool, []queue.CatalogFetchArgs{{Source: opts.Source, Providers: opts.Providers, Net: opts.Net.queued()}}, queue.PriorityFor(true, opts.Priority))
		if err != nil {
			return err
		}
		if f.Global.JSON() {
			return cmdutil.WriteJSON(opts.IO.Out, res)
		}
		_, err = fmt.Fprintln(opts.IO.Out, res.Summary())
		return err
	}
	// The run record holds the job's typed args, as a worker's does.
	params := queue.RunParams{Args: queue.CatalogFetchArgs{Source: opts.Source, Providers: opts.Providers, Net: opts.Net.queued()},
		Units: 1, Options: map[string]any{"out": opts.Out}}
	job := jobs.MustLookup(jobs.KindCatalogFetch)
	var res *FetchResult
	err = jobrun.Do(ctx, pool, jobrun.Spec{Job: job.Run, Params: params, Lock: job.Lock.Name, Now: f.Now},
		func(ctx context.Context, run *jobrun.Run) (any, error) {
			var err error
			res, err = fetchAndStore(ctx, opts, pool)
			return res, err
		})
	if db.IsLockHeld(err) {
		return cmdutil.SkippedError(err)
	}
	if err != nil {
		return err
	}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	s := res.Snapshot
	what := "stored new snapshot"
	switch {
	case res.NotModified:
		what = "unchanged upstream (304), kept snapshot"
	case !res.Created:
		what = "content already stored, pinned snapshot"
	}
	_, err = fmt.Fprintf(opts.IO.Out, "%s %d: %d providers, %d models, sha256 %s, from %s\n",
		what, s.ID, s.Providers, s.Models, s.SHA256[:12], s.Source)
	return err
}

func fetchAndStore(ctx context.Context, opts *FetchOptions, pool db.Querier) (*FetchResult, error) {
	res, err := catalog.Update(ctx, pool, catalog.UpdateOptions{Source: opts.Source, Providers: opts.Providers,
		Fetch: opts.Net.fetchOptions(opts.F.AppVersion, ""), Now: opts.F.Now()})
	if err != nil {
		return nil, err // a source's failure carries its class (catalog.SourceError)
	}
	cat := res.Catalog
	if opts.Out != "" && res.NotModified {
		if cat, err = catalog.Load(ctx, pool, res.Snapshot.ID); err != nil {
			return nil, err
		}
	}
	out := &FetchResult{StoreResult: res.StoreResult, NotModified: res.NotModified}
	if opts.Out != "" {
		return out, writeFile(opts.Out, cat)
	}
	return out, nil
}

// writeFile writes the snapshot through a temporary file, so a reader never sees half of it.
func writeFile(path string, cat catalog.Catalog) error {
	b, err := cat.Canonical()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".catalog-*.json")
	if err != nil {
		return cmdutil.InputError(fmt.Errorf("write --out: %w", err))
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// absSource makes a file source absolute: it is stored with the snapshot, and
// catalog verify (from cron, in another directory) must find the same file.
func absSource(source string) (string, error) {
	if source == "" || catalog.IsRemote(source) {
		return source, nil
	}
	abs, err := filepath.Abs(strings.TrimPrefix(source, "file://"))
	if err != nil {
		return "", cmdutil.InputError(err)
	}
	return abs, nil
}
