-- +goose Up
-- Tools of MCP servers (helix manifest import --mcp-command / --mcp-url) run
-- as kind 'mcp'.
ALTER TABLE tool_executions DROP CONSTRAINT tool_executions_kind_check;
ALTER TABLE tool_executions ADD CONSTRAINT tool_executions_kind_check CHECK (kind IN ('http', 'skill', 'container', 'mcp'));

-- +goose Down
DELETE FROM tool_executions WHERE kind = 'mcp';
ALTER TABLE tool_executions DROP CONSTRAINT tool_executions_kind_check;
ALTER TABLE tool_executions ADD CONSTRAINT tool_executions_kind_check CHECK (kind IN ('http', 'skill', 'container'));
