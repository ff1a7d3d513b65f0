-- +goose Up
-- Composite skills (issue 6): stored workflow definitions and the record of every run.
-- helix_composite_skills, not composite_skills: that name is the platform's own table.
CREATE TABLE helix_composite_skills (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL,
    version     text NOT NULL,
    definition  jsonb NOT NULL,
    sha256      text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (name, version)
);

CREATE TABLE composite_skill_executions (
    id                  bigserial PRIMARY KEY,
    -- NULL when the workflow ran from a file rather than from the registry.
    composite_skill_id  bigint REFERENCES helix_composite_skills (id) ON DELETE SET NULL,
    name                text NOT NULL,
    version             text NOT NULL,
    sha256              text NOT NULL,
    user_id             uuid,
    status              text NOT NULL
        CHECK (status IN ('running', 'ok', 'error', 'timeout', 'cancelled', 'invalid_input')),
    input               jsonb NOT NULL,
    output              jsonb,
    -- One object per step: id, skill, status, attempts, times, output (capped), error.
    steps               jsonb NOT NULL DEFAULT '[]',
    error               text,
    started_at          timestamptz NOT NULL,
    finished_at         timestamptz,
    duration_ms         double precision
);
CREATE INDEX composite_skill_executions_name_started_idx ON composite_skill_executions (name, started_at DESC);

-- Each step's skill execution points at its run (00005 left the key to this migration).
ALTER TABLE skill_executions
    ADD CONSTRAINT skill_executions_composite_execution_fk
    FOREIGN KEY (composite_execution_id) REFERENCES composite_skill_executions (id) ON DELETE SET NULL;

-- +goose Down
ALTER TABLE skill_executions DROP CONSTRAINT skill_executions_composite_execution_fk;
DROP TABLE composite_skill_executions;
DROP TABLE helix_composite_skills;
