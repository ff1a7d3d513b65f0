-- +goose Up
-- helix on the platform's own database (issue 14), in three parts.
--
-- 1. A database migrated by helix before this migration (no helix_tables yet)
--    is brought to the shape 00001-00007 now give: helix's registries move out
--    of the platform's table names (skills, composite_skills), voice_recordings
--    takes the platform's uuid id and audio_data, the platform's nullable
--    columns become nullable, and helix's rows in memory_synthesis are marked.
--    That helix created every such table itself, so they are recorded as its own.
-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('public.helix_tables') IS NOT NULL THEN
        RETURN;
    END IF;
    CREATE TABLE helix_tables (
        name         text PRIMARY KEY,
        owner_column text
    );
    INSERT INTO helix_tables VALUES
        ('memories', 'user_id'), ('memory_synthesis', 'user_id'),
        ('psychology_layers', 'user_id'), ('voice_recordings', 'user_id');

    ALTER TABLE skills RENAME TO helix_skills;
    ALTER SEQUENCE skills_id_seq RENAME TO helix_skills_id_seq;
    ALTER INDEX skills_name_created_idx RENAME TO helix_skills_name_created_idx;
    ALTER TABLE composite_skills RENAME TO helix_composite_skills;
    ALTER SEQUENCE composite_skills_id_seq RENAME TO helix_composite_skills_id_seq;

    ALTER TABLE memories ALTER COLUMN content DROP NOT NULL, ALTER COLUMN type DROP NOT NULL;

    ALTER TABLE memory_synthesis
        ADD COLUMN generator text,
        ALTER COLUMN fingerprint DROP NOT NULL,
        ALTER COLUMN evidence DROP NOT NULL,
        ALTER COLUMN evidence DROP DEFAULT,
        ALTER COLUMN pattern_type DROP NOT NULL,
        ALTER COLUMN memory_ids DROP NOT NULL,
        ALTER COLUMN synthesis_content DROP NOT NULL,
        ALTER COLUMN confidence_score DROP NOT NULL,
        DROP CONSTRAINT memory_synthesis_user_id_fingerprint_key;
    UPDATE memory_synthesis SET generator = 'helix';
    CREATE UNIQUE INDEX memory_synthesis_helix_fingerprint_idx
        ON memory_synthesis (user_id, fingerprint) WHERE generator = 'helix';

    ALTER TABLE voice_recordings
        ALTER COLUMN id DROP IDENTITY,
        DROP CONSTRAINT voice_recordings_user_id_sha256_key;
    ALTER TABLE voice_recordings
        ALTER COLUMN id TYPE uuid USING gen_random_uuid(),
        ALTER COLUMN id SET DEFAULT gen_random_uuid(),
        ALTER COLUMN source_name DROP NOT NULL,
        ALTER COLUMN format DROP NOT NULL,
        ALTER COLUMN duration_seconds DROP NOT NULL,
        ALTER COLUMN sample_rate DROP NOT NULL,
        ALTER COLUMN channels DROP NOT NULL,
        ALTER COLUMN sha256 DROP NOT NULL,
        ALTER COLUMN transcript DROP NOT NULL,
        ALTER COLUMN words DROP NOT NULL,
        ALTER COLUMN words DROP DEFAULT,
        ALTER COLUMN provider DROP NOT NULL,
        ALTER COLUMN model DROP NOT NULL;
    ALTER TABLE voice_recordings RENAME COLUMN audio TO audio_data;
    CREATE UNIQUE INDEX voice_recordings_user_sha256_idx ON voice_recordings (user_id, sha256);
END
$$;
-- +goose StatementEnd

-- 2. Row-level security for every table helix creates. On Supabase the default
--    privileges grant each new table in public to anon and authenticated, so a
--    table without RLS is readable and writable with the public anon key.
--
-- helix_secure_table is the one mechanism; every later migration that creates
-- a table calls it (it also records the table in helix_tables):
--   SELECT helix_secure_table('t', 'user_id');  -- per-user rows: authenticated sees and writes its own
--   SELECT helix_secure_table('t', NULL);       -- helix-internal: anon and authenticated get nothing
-- It works on plain PostgreSQL too: RLS is enabled, the role- and auth-specific
-- parts are skipped when those roles or auth.uid() do not exist. helix itself
-- connects as the owner or service_role (BYPASSRLS) and is unaffected.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION helix_secure_table(tbl regclass, owner_column text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    api_role text;
    seq      regclass;
BEGIN
    INSERT INTO helix_tables VALUES (tbl::text, owner_column)
        ON CONFLICT (name) DO UPDATE SET owner_column = excluded.owner_column;
    EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', tbl);
    EXECUTE format('DROP POLICY IF EXISTS helix_owner ON %s', tbl);
    FOREACH api_role IN ARRAY ARRAY['anon', 'authenticated'] LOOP
        CONTINUE WHEN NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = api_role);
        IF api_role = 'authenticated' AND owner_column IS NOT NULL
           AND to_regprocedure('auth.uid()') IS NOT NULL THEN
            EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO authenticated', tbl);
            EXECUTE format('CREATE POLICY helix_owner ON %s FOR ALL TO authenticated USING (%I = auth.uid()) WITH CHECK (%I = auth.uid())',
                           tbl, owner_column, owner_column);
            CONTINUE;
        END IF;
        EXECUTE format('REVOKE ALL ON %s FROM %I', tbl, api_role);
        -- the table's own sequences (serial columns) too: nextval is a write
        FOR seq IN SELECT d.objid::regclass FROM pg_depend d
                   WHERE d.refobjid = tbl AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
                     AND (SELECT relkind FROM pg_class WHERE oid = d.objid) = 'S' LOOP
            EXECUTE format('REVOKE ALL ON SEQUENCE %s FROM %I', seq, api_role);
        END LOOP;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    api_role text;
BEGIN
    REVOKE ALL ON FUNCTION helix_secure_table(regclass, text) FROM PUBLIC;
    FOREACH api_role IN ARRAY ARRAY['anon', 'authenticated'] LOOP
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = api_role) THEN
            EXECUTE format('REVOKE ALL ON FUNCTION helix_secure_table(regclass, text) FROM %I', api_role);
        END IF;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- 3. The platform-named tables helix created itself, and helix's own tables.
SELECT helix_secure_table(name::regclass, owner_column) FROM helix_tables;
SELECT helix_secure_table('helix_tables', NULL);
SELECT helix_secure_table('goose_db_version', NULL);
SELECT helix_secure_table('helix_skills', NULL);
SELECT helix_secure_table('helix_composite_skills', NULL);
SELECT helix_secure_table('job_runs', NULL);
SELECT helix_secure_table('decay_progress', NULL);
SELECT helix_secure_table('skill_executions', 'user_id');
SELECT helix_secure_table('composite_skill_executions', 'user_id');
SELECT helix_secure_table('model_catalog_snapshots', NULL);
SELECT helix_secure_table('model_catalog_models', NULL);
SELECT helix_secure_table('tool_manifests', NULL);
SELECT helix_secure_table('tool_permissions', NULL);
SELECT helix_secure_table('tool_audit', NULL);
SELECT helix_secure_table('sync_changes', 'user_id');
SELECT helix_secure_table('sync_state', 'user_id');
SELECT helix_secure_table('sync_conflicts', 'user_id');

-- +goose Down
DROP FUNCTION helix_secure_table(regclass, text);
