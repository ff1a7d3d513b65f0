-- +goose Up
-- An execution stopped by SIGINT/SIGTERM is recorded as 'interrupted', as
-- job_runs already says, instead of leaving no row (issue 30).
ALTER TABLE skill_executions DROP CONSTRAINT skill_executions_status_check;
ALTER TABLE skill_executions ADD CONSTRAINT skill_executions_status_check
    CHECK (status IN ('ok', 'error', 'timeout', 'memory_limit', 'output_limit', 'invalid_input', 'interrupted'));

-- +goose Down
UPDATE skill_executions SET status = 'error' WHERE status = 'interrupted';
ALTER TABLE skill_executions DROP CONSTRAINT skill_executions_status_check;
ALTER TABLE skill_executions ADD CONSTRAINT skill_executions_status_check
    CHECK (status IN ('ok', 'error', 'timeout', 'memory_limit', 'output_limit', 'invalid_input'));
