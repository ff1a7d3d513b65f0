package db

import (
	"context"
	"encoding/json"
	"time"

	"github.com/helixhq/helix/internal/redact"
)

// JobRun is one row of job_runs: every job records what it was asked to do and how it ended.
type JobRun struct {
	ID     int64
	Job    string
	Params any
}

// Job statuses.
const (
	RunRunning     = "running"
	RunOK          = "ok"
	RunFailed      = "failed"
	RunPartial     = "partial"
	RunInterrupted = "interrupted"
	RunSkipped     = "skipped"
)

// StartRun inserts a running job_runs row and returns it. It is written
// outside the job's own transaction so that a failed job still leaves its record.
func StartRun(ctx context.Context, q Querier, job string, params any, now time.Time) (*JobRun, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	r := &JobRun{Job: job, Params: params}
	err = q.QueryRow(ctx,
		`INSERT INTO job_runs (job, params, started_at, status) VALUES ($1, $2, $3, 'running') RETURNING id`,
		job, p, now).Scan(&r.ID)
	return r, err
}

// Finish records the outcome; the error is stored with every known secret
// masked (package redact), whatever produced it. counts is any JSON-able summary (rows updated, patterns found...).
// It runs even when ctx was cancelled, so an interrupted job is marked as such.
func (r *JobRun) Finish(ctx context.Context, q Querier, status string, counts any, jobErr error) error {
	c, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	var msg *string
	if jobErr != nil {
		s := redact.String(jobErr.Error())
		msg = &s
	}
	_, err = q.Exec(context.WithoutCancel(ctx),
		`UPDATE job_runs SET finished_at = clock_timestamp(), status = $2, counts = $3, error = $4 WHERE id = $1`,
		r.ID, status, c, msg)
	return err
}
