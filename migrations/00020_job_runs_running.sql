-- +goose Up
-- Issue 15: jobrun.Reap looks for job_runs rows left 'running' by a process
-- that died. Running rows are few; this index keeps that look-up cheap on a
-- job_runs table that River workers grow by one row per job.
CREATE INDEX job_runs_running_idx ON job_runs (id) WHERE status = 'running';

-- +goose Down
DROP INDEX job_runs_running_idx;
