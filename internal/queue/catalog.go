package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/netguard"
)

// Net are the download settings a fetching job carries.
type Net struct {
	AllowPrivate bool          `json:"allow_private,omitempty"`
	Timeout      time.Duration `json:"timeout"`
	MaxBytes     int64         `json:"max_bytes"`
	Retries      int           `json:"retries,omitempty"`
	Backoff      time.Duration `json:"backoff,omitempty"`
}

// CatalogFetchArgs is one catalog download (`catalog fetch --enqueue`).
type CatalogFetchArgs struct {
	Source    string   `json:"source" river:"unique"`
	Providers []string `json:"providers" river:"unique"`
	Net       Net      `json:"net"`
}

// Kind names the job in river_job.kind.
func (CatalogFetchArgs) Kind() string { return "catalog_fetch" }

// InsertOpts makes the job unique per (source, providers) while live.
func (CatalogFetchArgs) InsertOpts() river.InsertOpts { return uniqueOpts(QueueCatalog, 5) }

// CatalogFetchWorker works CatalogFetchArgs with catalog.Update, the unit of
// `catalog fetch`, under its lock, and completes the job in the transaction
// that stores and pins the snapshot.
type CatalogFetchWorker struct {
	river.WorkerDefaults[CatalogFetchArgs]
	d *Deps
}

// Work fetches, stores and pins the catalog. A source that cannot work
// (4xx, refused address, malformed JSON) cancels the job.
func (w *CatalogFetchWorker) Work(ctx context.Context, job *river.Job[CatalogFetchArgs]) error {
	a := job.Args
	params := map[string]any{"source": a.Source, "providers": a.Providers}
	return work(ctx, w.d, job, jobrun.Spec{Job: "catalog fetch", Lock: "catalog-fetch"}, params,
		func(ctx context.Context, run *jobrun.Run, counts map[string]any, complete completer) error {
			res, err := catalog.Update(ctx, run.Conn, catalog.UpdateOptions{Source: a.Source, Providers: a.Providers, Now: w.d.now()(),
				Fetch: catalog.FetchOptions{Client: w.d.HTTP(a.Net.AllowPrivate, a.Net.Timeout), MaxBytes: a.Net.MaxBytes,
					Retries: a.Net.Retries, Backoff: a.Net.Backoff, UserAgent: w.d.UserAgent},
				Complete: complete})
			var se *catalog.SourceError
			if errors.As(err, &se) && se.Permanent {
				return errPermanent{err}
			}
			if err == nil {
				counts["snapshot"], counts["created"], counts["not_modified"] = res.Snapshot.ID, res.Created, res.NotModified
			}
			return err
		})
}

// ManifestImportArgs is one manifest or OpenAPI document fetched from a URL
// (`manifest import URL --enqueue`). The manifest.max-* limits are the worker's.
type ManifestImportArgs struct {
	URL                 string        `json:"url" river:"unique"`
	Include             []string      `json:"include,omitempty"`
	Exclude             []string      `json:"exclude,omitempty"`
	Server              string        `json:"server,omitempty"`
	Namespace           string        `json:"namespace,omitempty"`
	ToolTimeout         string        `json:"tool_timeout,omitempty"`
	ExpansionBudget     int           `json:"expansion_budget,omitempty"`
	Deadline            time.Duration `json:"deadline"`
	AutoApproveNarrower bool          `json:"auto_approve_narrower,omitempty"`
	By                  string        `json:"by"`
	Net                 Net           `json:"net"`
}

// Kind names the job in river_job.kind.
func (ManifestImportArgs) Kind() string { return "manifest_import" }

// InsertOpts makes the job unique per URL while live.
func (ManifestImportArgs) InsertOpts() river.InsertOpts { return uniqueOpts(QueueManifest, 5) }

// ManifestImportWorker works ManifestImportArgs with manifest.Read, Parse
// and Record, the steps `manifest import` takes per document, and completes
// the job in the transaction that records the tools.
type ManifestImportWorker struct {
	river.WorkerDefaults[ManifestImportArgs]
	d *Deps
}

// Work imports one document. A refused or malformed document cancels the job.
func (w *ManifestImportWorker) Work(ctx context.Context, job *river.Job[ManifestImportArgs]) error {
	a := job.Args
	maxima, err := w.d.ManifestMaxima()
	if err != nil {
		return err
	}
	data, err := manifest.Read(ctx, a.URL, nil, w.d.HTTP(a.Net.AllowPrivate, a.Net.Timeout), a.Net.MaxBytes)
	if err != nil {
		err = fmt.Errorf("read %s: %w", a.URL, err)
		if netguard.Permanent(err) {
			return river.JobCancel(err)
		}
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, a.Deadline)
	l, err := manifest.Parse(pctx, a.URL, data, manifest.LoadOptions{Maxima: maxima, OpenAPI: manifest.OpenAPIOptions{
		Include: a.Include, Exclude: a.Exclude, Server: a.Server, Timeout: a.ToolTimeout, Namespace: a.Namespace, Budget: a.ExpansionBudget}})
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return river.JobCancel(err)
	}
	if len(l.Candidates) == 0 {
		return nil // nothing to record
	}
	params := map[string]any{"targets": []string{a.URL}, "include": a.Include, "exclude": a.Exclude, "by": a.By,
		"auto_approve_narrower": a.AutoApproveNarrower}
	return work(ctx, w.d, job, jobrun.Spec{Job: "manifest-import"}, params,
		func(ctx context.Context, run *jobrun.Run, counts map[string]any, complete completer) error {
			changes, err := manifest.Record(ctx, run.Conn, l.Candidates, manifest.ImportOptions{Actor: a.By,
				AutoApproveNarrower: a.AutoApproveNarrower, Now: w.d.now()(), Complete: complete})
			created := 0
			for _, c := range changes {
				if c.Action != "unchanged" {
					created++
				}
			}
			counts["tools"], counts["created"], counts["unchanged"] = len(l.Candidates), created, len(changes)-created
			var ce *manifest.ConflictError
			if errors.As(err, &ce) {
				return errPermanent{err}
			}
			return err
		})
}
