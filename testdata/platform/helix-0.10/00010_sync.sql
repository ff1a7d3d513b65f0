-- +goose Up
-- helix sync: devices' pending edits, each entity's converged state, and
-- the concurrent versions of manually merged entities awaiting a person.
CREATE TABLE sync_changes (
    id           bigserial PRIMARY KEY,
    entity_type  text NOT NULL,
    entity_id    text NOT NULL,
    user_id      uuid NOT NULL,
    device_id    text NOT NULL,
    clock        jsonb NOT NULL,            -- vector clock {"device": counter}, counting this change
    ts           timestamptz NOT NULL,      -- the device's wall clock at the edit
    op           text NOT NULL DEFAULT 'patch' CHECK (op IN ('patch', 'put', 'delete')),
    doc          jsonb,                     -- patch (RFC 7396 style) or full document; null for delete
    received_at  timestamptz NOT NULL DEFAULT now(),
    -- set once, by the reconcile run that folded the change in
    processed_at timestamptz,
    run_id       bigint,
    outcome      text CHECK (outcome IN ('applied', 'discarded', 'merged', 'conflicted', 'invalid')),
    error        text
);
-- reconcile claims pending changes entity by entity, so that a batch loads
-- and writes as few entity states as it can
CREATE INDEX sync_changes_pending_idx ON sync_changes (entity_type, user_id, entity_id, id) WHERE processed_at IS NULL;

CREATE TABLE sync_state (
    entity_type text NOT NULL,
    user_id     uuid NOT NULL,
    entity_id   text NOT NULL,
    -- current document; null when deleted. A manual entity in conflict keeps
    -- the last document it had without one until the conflict is resolved.
    doc         jsonb,
    deleted     boolean NOT NULL DEFAULT false,
    clock       jsonb NOT NULL DEFAULT '{}', -- pointwise maximum of every folded change's clock
    version     bigint NOT NULL DEFAULT 0,  -- number of changes folded in
    -- per-path stamps (internal/syncer.State) that make merging order-independent;
    -- text, not jsonb: the merge compares values byte for byte, and jsonb would reformat them
    merge_state text NOT NULL DEFAULT '{"clock":{},"writes":[]}',
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (entity_type, user_id, entity_id)
);

CREATE TABLE sync_conflicts (
    id          bigserial PRIMARY KEY,
    entity_type text NOT NULL,
    user_id     uuid NOT NULL,
    entity_id   text NOT NULL,
    siblings    jsonb NOT NULL,             -- [{label, device, ts, clock, doc}], labels A, B, ...
    status      text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'superseded')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz,
    resolution  jsonb
);
CREATE UNIQUE INDEX sync_conflicts_open_idx ON sync_conflicts (entity_type, user_id, entity_id) WHERE status = 'open';

-- +goose Down
DROP TABLE sync_conflicts;
DROP TABLE sync_state;
DROP TABLE sync_changes;
