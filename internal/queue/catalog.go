package queue

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
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
func (CatalogFetchArgs) Kind() string { return jobs.KindCatalogFetch }

// InsertOpts makes the job unique per (source, providers) while live.
func (a CatalogFetchArgs) InsertOpts() river.InsertOpts { return uniqueOpts(a.Kind()) }

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
	return work(ctx, w.d, job, jobrun.Spec{Job: jobs.RunCatalogFetch, Lock: jobs.MustLookup(jobs.KindCatalogFetch).Lock.Name},
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
