-- +goose Up
-- Issue 35: every call through helix mcp serve leaves an audit row.
--
-- memory_search calls: one row per call, refused and interrupted ones
-- included. The query is kept as its SHA-256 only, as tool_executions keeps
-- a tool's input: what a user searches their memories for is personal data
-- (a health worry, a name), and the audit must say who searched, through
-- which client, when, how long it took and how much it returned, not what
-- for. The hash tells repeated queries apart and confirms a query one already
-- knows; a short query can be guessed by hashing candidates, so the column is
-- as private as the rest of the row (the user reads their own rows only).
CREATE TABLE helix_memory_search_calls (
    id           bigserial PRIMARY KEY,
    user_id      uuid        NOT NULL,
    client       text        NOT NULL,  -- "mcp:<client name>"
    query_sha256 text        NOT NULL,
    mode         text        NOT NULL,  -- as asked: hybrid, text, vector (what the input said, when refused)
    mode_used    text,                  -- what ran: a hybrid search without embeddings runs as text
    result_limit integer     NOT NULL,
    results      integer,               -- NULL when the search did not finish
    status       text        NOT NULL CHECK (status IN ('ok', 'error', 'invalid_input', 'interrupted')),
    error        text,
    started_at   timestamptz NOT NULL,
    duration_ms  double precision NOT NULL
);
SELECT helix_audit_table('helix_memory_search_calls', 'user_id');
CREATE INDEX helix_memory_search_calls_user_idx ON helix_memory_search_calls (user_id, started_at DESC);

-- Registry skills and composite skills are MCP tools too: their executions
-- name the client as tool_executions does (NULL: the helix CLI itself).
ALTER TABLE skill_executions ADD COLUMN client text;
ALTER TABLE composite_skill_executions ADD COLUMN client text;

-- +goose Down
ALTER TABLE composite_skill_executions DROP COLUMN client;
ALTER TABLE skill_executions DROP COLUMN client;
DROP TABLE helix_memory_search_calls;
DELETE FROM helix_tables WHERE name = 'helix_memory_search_calls';
