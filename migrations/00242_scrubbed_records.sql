-- +goose Up
-- Issue 46: what helix stores from untrusted output (a skill's output and
-- stderr, a composite's outputs and steps, a tool's error) passes through
-- package scrub; what was replaced is counted here ({"emails":…,"keys":…}),
-- NULL when nothing was. Nullable without a default, as every column added
-- to an audit table must be (its hash chain leaves NULLs out).
ALTER TABLE skill_executions ADD COLUMN scrubbed jsonb;
ALTER TABLE composite_skill_executions ADD COLUMN scrubbed jsonb;
ALTER TABLE tool_executions ADD COLUMN scrubbed jsonb;

-- +goose Down
ALTER TABLE tool_executions DROP COLUMN scrubbed;
ALTER TABLE composite_skill_executions DROP COLUMN scrubbed;
ALTER TABLE skill_executions DROP COLUMN scrubbed;
