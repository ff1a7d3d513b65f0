-- +goose Up
-- The platform's tables (see shared/platform/README.md) and what helix's jobs
-- need beside them. On the platform's own database these tables exist already,
-- hold users' data and are adopted as they are: helix creates one only where it
-- is missing, and then only with the platform's columns; helix's own columns
-- are added separately, nullable or with a constant default (no table rewrite),
-- and never change a platform column. Production stores embeddings as pgvector
-- vector(1536); helix reads them as embedding::real[], so both column types work.
--
-- helix_tables records every table helix created, with the column that names
-- its owning user: row-level security (00011) and migrate down go by it, so a
-- platform table is never secured or dropped by helix.
CREATE TABLE IF NOT EXISTS helix_tables (
    name         text PRIMARY KEY,
    owner_column text
);

-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('public.memories') IS NULL THEN
        CREATE TABLE memories (
            id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
            user_id           uuid NOT NULL,
            type              text CHECK (type IN ('episodic', 'semantic', 'procedural')),
            content           text,
            embedding         real[],
            emotional_valence real CHECK (emotional_valence BETWEEN -1 AND 1),
            created_at        timestamptz NOT NULL DEFAULT now(),
            last_accessed     timestamptz
        );
        INSERT INTO helix_tables VALUES ('memories', 'user_id');
    END IF;
    IF to_regclass('public.memory_synthesis') IS NULL THEN
        CREATE TABLE memory_synthesis (
            id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
            user_id           uuid NOT NULL,
            pattern_type      text,
            memory_ids        uuid[],
            synthesis_content text,
            confidence_score  double precision,
            created_at        timestamptz NOT NULL DEFAULT now()
        );
        INSERT INTO helix_tables VALUES ('memory_synthesis', 'user_id');
    END IF;
    IF to_regclass('public.psychology_layers') IS NULL THEN
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
        INSERT INTO helix_tables VALUES ('psychology_layers', 'user_id');
    END IF;
END
$$;
-- +goose StatementEnd

-- forgetting-curve state, maintained by helix decay
ALTER TABLE memories
    ADD COLUMN IF NOT EXISTS access_count integer NOT NULL DEFAULT 0 CHECK (access_count >= 0),
    ADD COLUMN IF NOT EXISTS stability    double precision CHECK (stability > 0),
    ADD COLUMN IF NOT EXISTS difficulty   double precision CHECK (difficulty BETWEEN 1 AND 10),
    ADD COLUMN IF NOT EXISTS retention    double precision CHECK (retention BETWEEN 0 AND 1);
CREATE INDEX IF NOT EXISTS memories_user_created_idx ON memories (user_id, created_at);

-- generator marks the rows helix wrote ('helix'); a run replaces only those.
-- fingerprint: type + sorted member ids, so a re-run over the same memories
-- finds the same fingerprint.
ALTER TABLE memory_synthesis
    ADD COLUMN IF NOT EXISTS generator   text,
    ADD COLUMN IF NOT EXISTS fingerprint text,
    ADD COLUMN IF NOT EXISTS evidence    jsonb,
    ADD COLUMN IF NOT EXISTS job_run_id  bigint;
CREATE UNIQUE INDEX IF NOT EXISTS memory_synthesis_helix_fingerprint_idx
    ON memory_synthesis (user_id, fingerprint) WHERE generator = 'helix';
CREATE INDEX IF NOT EXISTS memory_synthesis_user_created_idx ON memory_synthesis (user_id, created_at);

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
-- Uninstall: the patterns helix wrote go with the column that marks them, or
-- a reinstall would write every one again beside its unmarked old copy. The
-- platform's own rows (generator NULL) stay.
DELETE FROM memory_synthesis WHERE generator = 'helix';
DROP TABLE job_runs;
DROP INDEX IF EXISTS memory_synthesis_user_created_idx;
DROP INDEX IF EXISTS memory_synthesis_helix_fingerprint_idx;
ALTER TABLE memory_synthesis
    DROP COLUMN IF EXISTS job_run_id,
    DROP COLUMN IF EXISTS evidence,
    DROP COLUMN IF EXISTS fingerprint,
    DROP COLUMN IF EXISTS generator;
DROP INDEX IF EXISTS memories_user_created_idx;
ALTER TABLE memories
    DROP COLUMN IF EXISTS retention,
    DROP COLUMN IF EXISTS difficulty,
    DROP COLUMN IF EXISTS stability,
    DROP COLUMN IF EXISTS access_count;
-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['psychology_layers', 'memory_synthesis', 'memories'] LOOP
        IF EXISTS (SELECT 1 FROM helix_tables WHERE name = t) THEN
            EXECUTE format('DROP TABLE %I', t);
        END IF;
    END LOOP;
END
$$;
-- +goose StatementEnd
DROP TABLE helix_tables;
