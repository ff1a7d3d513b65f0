-- +goose Up
-- Row-level security for every table helix creates (issue 14). On Supabase the
-- default privileges grant each new table in public to anon and authenticated,
-- so a table without RLS is readable and writable with the public anon key.
--
-- helix_secure_table is the one mechanism; every later migration that creates
-- a table calls it:
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

-- helix's own tables from earlier migrations.
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
