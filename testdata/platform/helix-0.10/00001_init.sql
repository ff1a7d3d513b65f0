-- +goose Up
-- The platform's tables as production has them, plus what helix's jobs need.
-- Production stores embeddings as pgvector vector(1536); helix reads them as
-- embedding::real[] so that both column types work.
CREATE TABLE memories (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id           uuid NOT NULL,
    type              text NOT NULL CHECK (type IN ('episodic', 'semantic', 'procedural')),
    content           text NOT NULL,
    embedding         real[],
    emotional_valence real CHECK (emotional_valence BETWEEN -1 AND 1),
    created_at        timestamptz NOT NULL DEFAULT now(),
    last_accessed     timestamptz,
    -- forgetting-curve state, maintained by helix decay
    access_count      integer NOT NULL DEFAULT 0 CHECK (access_count >= 0),
    stability         double precision CHECK (stability > 0),
    difficulty        double precision CHECK (difficulty BETWEEN 1 AND 10),
    retention         double precision CHECK (retention BETWEEN 0 AND 1)
);
CREATE INDEX memories_user_created_idx ON memories (user_id, created_at);

CREATE TABLE memory_synthesis (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id           uuid NOT NULL,
    pattern_type      text NOT NULL,
    memory_ids        uuid[] NOT NULL,
    synthesis_content text NOT NULL,
    confidence_score  real NOT NULL CHECK (confidence_score BETWEEN 0 AND 1),
    created_at        timestamptz NOT NULL DEFAULT now(),
    -- type + sorted member ids: a re-run over the same memories finds the same fingerprint
    fingerprint       text NOT NULL,
    evidence          jsonb NOT NULL DEFAULT '{}',
    job_run_id        bigint,
    UNIQUE (user_id, fingerprint)
);
CREATE INDEX memory_synthesis_user_created_idx ON memory_synthesis (user_id, created_at);

CREATE TABLE psychology_layers (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL,
    layer_number smallint NOT NULL CHECK (layer_number BETWEEN 1 AND 7),
    layer_name   text NOT NULL,
    data         jsonb NOT NULL DEFAULT '{}',
    decay_rate   real,
    last_updated timestamptz NOT NULL DEFAULT now(),
    UNIQUE (user_id, layer_number)
);

CREATE TABLE job_runs (
    id          bigserial PRIMARY KEY,
    job         text NOT NULL,
    params      jsonb NOT NULL DEFAULT '{}',
    started_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    status      text NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'partial', 'interrupted', 'skipped')),
    counts      jsonb NOT NULL DEFAULT '{}',
    error       text,
    host        text NOT NULL DEFAULT coalesce(current_setting('application_name', true), '')
);
CREATE INDEX job_runs_job_started_idx ON job_runs (job, started_at);

-- +goose Down
DROP TABLE job_runs;
DROP TABLE psychology_layers;
DROP TABLE memory_synthesis;
DROP TABLE memories;
