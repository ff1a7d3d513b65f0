-- +goose Up
-- Issue 48, retention: helix's bookkeeping is pruned by age (the worker
-- every few minutes, helix jobs prune once). A million users a night add a
-- million job_runs rows: the prune finds the finished ones older than its
-- cutoff by these indexes instead of scanning the table.
CREATE INDEX job_runs_finished_idx ON job_runs (finished_at) WHERE status <> 'running';
CREATE INDEX helix_schedule_fires_finished_idx ON helix_schedule_fires (finished_at) WHERE finished_at IS NOT NULL;

-- +goose Down
DROP INDEX helix_schedule_fires_finished_idx;
DROP INDEX job_runs_finished_idx;
