-- issue 44: `helix jobs wait` reports a worked job's outcome as the exit
-- status the same work gives in-process. A worker's run records the River
-- job it ran in params.river_job_id; wait finds the job's last run by it
-- (the index) and reads the exit status the failure was classed as where it
-- arose (exit_code: NULL for a run that did not fail, or one from before).

-- +goose Up
ALTER TABLE job_runs ADD COLUMN exit_code smallint;
CREATE INDEX job_runs_river_job_idx ON job_runs (((params->>'river_job_id')::bigint), id)
    WHERE params ? 'river_job_id';

-- +goose Down
DROP INDEX job_runs_river_job_idx;
ALTER TABLE job_runs DROP COLUMN exit_code;
