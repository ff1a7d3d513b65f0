-- +goose Up
-- One row per `helix tool exec` (and per tool step of a composite skill),
-- refused runs included. The input is kept as a hash only: it may carry
-- personal data; credentials are never stored.
CREATE TABLE tool_executions (
    id                     bigserial PRIMARY KEY,
    tool_id                bigint REFERENCES tool_manifests (id) ON DELETE SET NULL,
    tool_name              text        NOT NULL,
    tool_version           text        NOT NULL,
    kind                   text        NOT NULL CHECK (kind IN ('http', 'skill', 'container')),
    user_id                uuid,
    composite_execution_id bigint,
    input_sha256           text        NOT NULL,
    status                 text        NOT NULL,
    http_status            integer,
    started_at             timestamptz NOT NULL,
    duration_ms            double precision NOT NULL,
    bytes_sent             bigint      NOT NULL DEFAULT 0,
    bytes_received         bigint      NOT NULL DEFAULT 0,
    error                  text
);
SELECT helix_secure_table('tool_executions', 'user_id');
CREATE INDEX tool_executions_tool_idx ON tool_executions (tool_name, started_at DESC);
CREATE INDEX tool_executions_user_idx ON tool_executions (user_id, started_at DESC) WHERE user_id IS NOT NULL;

-- +goose Down
DROP TABLE tool_executions;
