-- +goose Up
-- What each run cost and did on the network (issue 47): CPU time (user +
-- system, milliseconds) and peak memory of a skill's run (its JavaScript
-- child's rusage, or the wasm instance's memory) and of a tool's (a skill
-- tool's sandbox run; NULL where helix cannot measure it: an HTTP or MCP
-- call is the remote service's work). skill_executions.network lists the
-- hosts a skill with net: capabilities reached, its request count, bytes
-- and statuses, and each refused request with why: never a body, a path or
-- a query. New statuses: cpu_limit (skill.cpu-limit) and refused (the run
-- failed on a request its capabilities refuse).
ALTER TABLE skill_executions
    ADD COLUMN cpu_ms double precision CHECK (cpu_ms >= 0),
    ADD COLUMN peak_rss_bytes bigint CHECK (peak_rss_bytes >= 0),
    ADD COLUMN network jsonb;
ALTER TABLE skill_executions DROP CONSTRAINT skill_executions_status_check;
ALTER TABLE skill_executions ADD CONSTRAINT skill_executions_status_check
    CHECK (status IN ('ok', 'error', 'timeout', 'memory_limit', 'output_limit', 'invalid_input', 'interrupted', 'cpu_limit', 'refused'));
ALTER TABLE tool_executions
    ADD COLUMN cpu_ms double precision CHECK (cpu_ms >= 0),
    ADD COLUMN peak_rss_bytes bigint CHECK (peak_rss_bytes >= 0);

-- +goose Down
ALTER TABLE tool_executions DROP COLUMN peak_rss_bytes, DROP COLUMN cpu_ms;
UPDATE skill_executions SET status = 'error' WHERE status IN ('cpu_limit', 'refused');
ALTER TABLE skill_executions DROP CONSTRAINT skill_executions_status_check;
ALTER TABLE skill_executions ADD CONSTRAINT skill_executions_status_check
    CHECK (status IN ('ok', 'error', 'timeout', 'memory_limit', 'output_limit', 'invalid_input', 'interrupted'));
ALTER TABLE skill_executions DROP COLUMN network, DROP COLUMN peak_rss_bytes, DROP COLUMN cpu_ms;
