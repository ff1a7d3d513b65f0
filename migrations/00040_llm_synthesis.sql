-- +goose Up
-- helix synthesize --llm writes the platform's memory_patterns. The table is the
-- platform's: helix only adds nullable columns, marks its rows generator = 'helix'
-- and replaces only those.
ALTER TABLE memory_patterns
    ADD COLUMN IF NOT EXISTS generator    text,
    ADD COLUMN IF NOT EXISTS brief_sha256 text,
    ADD COLUMN IF NOT EXISTS model        text,
    ADD COLUMN IF NOT EXISTS cost_usd     double precision,
    ADD COLUMN IF NOT EXISTS job_run_id   bigint;
CREATE INDEX IF NOT EXISTS memory_patterns_generator_user_type_idx
    ON memory_patterns (user_id, pattern_type) WHERE generator = 'helix';

-- One row per user per run: what the model was asked (the brief's hash), what it
-- cost and what the scrubber removed. A later run whose brief has the same hash
-- reuses the stored patterns and sends nothing.
CREATE TABLE helix_llm_usage (
    id                 bigserial PRIMARY KEY,
    job_run_id         bigint,
    user_id            uuid NOT NULL,
    model              text NOT NULL,
    brief_sha256       text NOT NULL,
    pattern_types      text[] NOT NULL,
    status             text NOT NULL CHECK (status IN ('ok', 'reused', 'failed')),
    calls              integer NOT NULL DEFAULT 0,
    input_tokens       bigint NOT NULL DEFAULT 0,
    output_tokens      bigint NOT NULL DEFAULT 0,
    cache_read_tokens  bigint NOT NULL DEFAULT 0,
    cache_write_tokens bigint NOT NULL DEFAULT 0,
    cost_usd           double precision NOT NULL DEFAULT 0,
    patterns           integer NOT NULL DEFAULT 0,
    dropped_evidence   integer NOT NULL DEFAULT 0,
    scrubbed           jsonb NOT NULL DEFAULT '{}',
    error              text,
    created_at         timestamptz NOT NULL DEFAULT now()
);
SELECT helix_secure_table('helix_llm_usage', 'user_id');
CREATE INDEX helix_llm_usage_user_brief_idx ON helix_llm_usage (user_id, brief_sha256) WHERE status = 'ok';
CREATE INDEX helix_llm_usage_run_idx ON helix_llm_usage (job_run_id);

-- +goose Down
DROP TABLE helix_llm_usage;
DELETE FROM helix_tables WHERE name = 'helix_llm_usage';
DROP INDEX IF EXISTS memory_patterns_generator_user_type_idx;
-- memory_patterns is the platform's: its added columns stay (they are nullable and
-- dropping them would lose which rows are helix's).
