-- +goose Up
-- Skills are untrusted programs (WebAssembly or JavaScript) that helix runs in a
-- sandbox; skill_executions audits every run, including refused inputs.
CREATE TABLE skills (
    id            bigserial PRIMARY KEY,
    name          text NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9._-]*$'),
    version       text NOT NULL CHECK (version <> '' AND version !~ '[@[:space:]]'),
    engine        text NOT NULL CHECK (engine IN ('wasm', 'js')),
    code          bytea NOT NULL,
    sha256        text NOT NULL,
    params        jsonb,
    capabilities  text[] NOT NULL DEFAULT '{}',
    -- the skill's own limits (its manifest); NULL means "no cap of its own"
    timeout_ms    bigint CHECK (timeout_ms > 0),
    memory_bytes  bigint CHECK (memory_bytes > 0),
    output_bytes  bigint CHECK (output_bytes > 0),
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (name, version)
);
CREATE INDEX skills_name_created_idx ON skills (name, created_at DESC, id DESC);

CREATE TABLE skill_executions (
    id                     bigserial PRIMARY KEY,
    -- NULL for a skill run from a file rather than from the registry
    skill_id               bigint REFERENCES skills (id) ON DELETE SET NULL,
    skill_name             text NOT NULL,
    skill_version          text,
    skill_sha256           text NOT NULL,
    engine                 text NOT NULL,
    user_id                uuid,
    -- set when the run is a step of a composite skill (issue 6 adds the foreign key)
    composite_execution_id bigint,
    input_sha256           text NOT NULL,
    status                 text NOT NULL CHECK (status IN ('ok', 'error', 'timeout', 'memory_limit', 'output_limit', 'invalid_input')),
    started_at             timestamptz NOT NULL,
    duration_ms            double precision NOT NULL,
    output                 text,
    error                  text,
    stderr                 text,
    limits                 jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX skill_executions_skill_started_idx ON skill_executions (skill_name, started_at DESC);
CREATE INDEX skill_executions_user_started_idx ON skill_executions (user_id, started_at DESC) WHERE user_id IS NOT NULL;
CREATE INDEX skill_executions_composite_idx ON skill_executions (composite_execution_id) WHERE composite_execution_id IS NOT NULL;

-- +goose Down
DROP TABLE skill_executions;
DROP TABLE skills;
