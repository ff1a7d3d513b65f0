// Package catalog implements `helix catalog fetch|verify|show`: a pinned,
// verifiable copy of the models.dev catalog of AI models.
package catalog

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/queue"
)

// NewCmdCatalog is the `catalog` group.
func NewCmdCatalog(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog <command>",
		Short: "Keep a pinned, verifiable catalog of AI models and their capabilities",
		Long: `Keep a pinned copy of the models.dev catalog (providers, models, capabilities,
limits and prices) in PostgreSQL, tell when upstream has changed, and list
models with local overrides applied.`,
	}
	cmd.AddCommand(NewCmdFetch(f, nil), NewCmdVerify(f, nil), NewCmdShow(f, nil))
	return cmd
}

// NetOptions are the download settings fetch and verify share.
type NetOptions struct {
	AllowPrivate bool
	Timeout      time.Duration
	MaxBytes     int64
	Retries      int
	Backoff      time.Duration
}

func addNetFlags(cmd *cobra.Command, o *NetOptions) {
	fl := cmd.Flags()
	fl.BoolVar(&o.AllowPrivate, "allow-private", false, "allow a source on a private or loopback address")
	fl.DurationVar(&o.Timeout, "fetch-timeout", 30*time.Second, "time limit of each download attempt")
	cmdutil.SizeVar(fl, &o.MaxBytes, "max-bytes", 64<<20, "largest catalog accepted (64MiB, 1GB, or bytes)")
	cmdutil.Alias(fl, "fetch-timeout", "timeout")
	fl.IntVar(&o.Retries, "retries", 2, "retries after a 5xx, a 429 or a network error")
	fl.DurationVar(&o.Backoff, "retry-wait", time.Second, "first wait between attempts; it doubles each retry")
}

func (o *NetOptions) validate() error {
	switch {
	case o.Timeout <= 0:
		return cmdutil.FlagErrorf("--fetch-timeout must be positive")
	case o.MaxBytes <= 0:
		return cmdutil.FlagErrorf("--max-bytes must be positive")
	case o.Retries < 0:
		return cmdutil.FlagErrorf("--retries must not be negative")
	}
	return nil
}

func (o *NetOptions) fetchOptions(version, etag string) catalog.FetchOptions {
	return catalog.FetchOptions{
		Client:    netguard.Client(o.AllowPrivate, o.Timeout),
		MaxBytes:  o.MaxBytes,
		Retries:   o.Retries,
		Backoff:   o.Backoff,
		ETag:      etag,
		UserAgent: "helix/" + version,
	}
}

// queued are the settings as a queued job carries them.
func (o *NetOptions) queued() queue.Net {
	return queue.Net{AllowPrivate: o.AllowPrivate, Timeout: o.Timeout, MaxBytes: o.MaxBytes, Retries: o.Retries, Backoff: o.Backoff}
}

// download fetches and parses source, mapping failures to exit codes: a
// refused address, an oversized body, a missing file, a 4xx or malformed JSON
// is bad input (2); a 5xx, a 429, a timeout or a network error is unavailable (4).
func download(ctx context.Context, source string, o catalog.FetchOptions) (*catalog.Fetched, catalog.Catalog, error) {
	res, err := catalog.Fetch(ctx, source, o)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, nil, err
		case netguard.Permanent(err):
			return nil, nil, cmdutil.InputError(fmt.Errorf("fetch catalog: %w", err))
		}
		return nil, nil, cmdutil.UnavailableError(fmt.Errorf("fetch catalog (retry later): %w", err))
	}
	if res.NotModified {
		return res, nil, nil
	}
	cat, err := catalog.Parse(res.Body)
	if err != nil {
		return nil, nil, cmdutil.InputError(fmt.Errorf("parse catalog from %s: %w", source, err))
	}
	return res, cat, nil
}
