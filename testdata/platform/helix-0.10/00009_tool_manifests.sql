-- +goose Up
-- Tools the assistant may call, one row per name and version, with the
-- permissions they request and every lifecycle transition.
CREATE TABLE tool_manifests (
    id         bigserial PRIMARY KEY,
    name       text        NOT NULL,
    version    text        NOT NULL,
    source     text        NOT NULL,
    sha256     text        NOT NULL,
    manifest   jsonb       NOT NULL,
    state      text        NOT NULL CHECK (state IN ('discovered', 'proposed', 'approved', 'revoked', 'superseded')),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (name, version)
);
CREATE INDEX tool_manifests_state_idx ON tool_manifests (state);

-- One row per requested permission: kind host (value), or a quantity (amount):
-- storage_bytes, memory_bytes, cpu_millis, timeout_ms; and credentials (value = scheme).
CREATE TABLE tool_permissions (
    tool_id bigint NOT NULL REFERENCES tool_manifests (id) ON DELETE CASCADE,
    kind    text   NOT NULL,
    value   text   NOT NULL DEFAULT '',
    amount  bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tool_id, kind, value)
);

CREATE TABLE tool_audit (
    id         bigserial PRIMARY KEY,
    tool_id    bigint      NOT NULL REFERENCES tool_manifests (id) ON DELETE CASCADE,
    actor      text        NOT NULL,
    at         timestamptz NOT NULL,
    from_state text        NOT NULL,
    to_state   text        NOT NULL,
    reason     text        NOT NULL DEFAULT ''
);
CREATE INDEX tool_audit_tool_idx ON tool_audit (tool_id, id);

-- +goose Down
DROP TABLE tool_audit;
DROP TABLE tool_permissions;
DROP TABLE tool_manifests;
