-- +goose Up
-- Which program asked for an execution: NULL for the helix CLI itself,
-- "mcp:<client name>" for a call that came through helix mcp serve (the name
-- the MCP client gave in its initialize request).
ALTER TABLE tool_executions ADD COLUMN client text;

-- +goose Down
ALTER TABLE tool_executions DROP COLUMN client;
