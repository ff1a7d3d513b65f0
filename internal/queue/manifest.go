package queue

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/manifest/openapi"
	"github.com/helixhq/helix/internal/netguard"
)

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
func (ManifestImportArgs) Kind() string { return jobs.KindManifestImport }

// InsertOpts makes the job unique per URL while live.
func (a ManifestImportArgs) InsertOpts() river.InsertOpts { return uniqueOpts(a.Kind()) }

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
		if netguard.Permanent(err) {
			return river.JobCancel(err)
		}
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, a.Deadline)
	l, err := openapi.Parse(pctx, a.URL, data, openapi.LoadOptions{Maxima: maxima, OpenAPI: openapi.Options{
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
	return work(ctx, w.d, job, jobrun.Spec{Job: jobs.RunManifestImport},
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
