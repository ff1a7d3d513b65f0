-- +goose Up
-- Audit tables are append-only for users (issue 29): a signed-in user may read
-- their own audit rows, and nothing else; only helix (the owner, which row-level
-- security does not apply to) writes them and deletes them (its own retention).
-- An audit trail the audited user could rewrite would not be one.
--
-- helix_tables.append_only marks them, and helix_secure_table honours it, so
-- that a later migration re-securing such a table keeps it append-only:
--   SELECT helix_audit_table('t', 'user_id');
ALTER TABLE helix_tables ADD COLUMN IF NOT EXISTS append_only boolean NOT NULL DEFAULT false;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION helix_secure_table(tbl regclass, owner_column text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    api_role    text;
    seq         regclass;
    is_audit    boolean;
BEGIN
    INSERT INTO helix_tables (name, owner_column) VALUES (tbl::text, owner_column)
        ON CONFLICT (name) DO UPDATE SET owner_column = excluded.owner_column
        RETURNING helix_tables.append_only INTO is_audit;
    EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', tbl);
    EXECUTE format('DROP POLICY IF EXISTS helix_owner ON %s', tbl);
    FOREACH api_role IN ARRAY ARRAY['anon', 'authenticated'] LOOP
        CONTINUE WHEN NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = api_role);
        IF api_role = 'authenticated' AND owner_column IS NOT NULL
           AND to_regprocedure('auth.uid()') IS NOT NULL THEN
            IF is_audit THEN
                EXECUTE format('REVOKE ALL ON %s FROM authenticated', tbl);
                EXECUTE format('GRANT SELECT ON %s TO authenticated', tbl);
                EXECUTE format('CREATE POLICY helix_owner ON %s FOR SELECT TO authenticated USING (%I = auth.uid())',
                               tbl, owner_column);
            ELSE
                EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO authenticated', tbl);
                EXECUTE format('CREATE POLICY helix_owner ON %s FOR ALL TO authenticated USING (%I = auth.uid()) WITH CHECK (%I = auth.uid())',
                               tbl, owner_column, owner_column);
                CONTINUE;
            END IF;
        ELSE
            EXECUTE format('REVOKE ALL ON %s FROM %I', tbl, api_role);
        END IF;
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
CREATE OR REPLACE FUNCTION helix_audit_table(tbl regclass, owner_column text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO helix_tables (name, owner_column, append_only) VALUES (tbl::text, owner_column, true)
        ON CONFLICT (name) DO UPDATE SET owner_column = excluded.owner_column, append_only = true;
    PERFORM helix_secure_table(tbl, owner_column);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    api_role text;
BEGIN
    REVOKE ALL ON FUNCTION helix_audit_table(regclass, text) FROM PUBLIC;
    FOREACH api_role IN ARRAY ARRAY['anon', 'authenticated'] LOOP
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = api_role) THEN
            EXECUTE format('REVOKE ALL ON FUNCTION helix_audit_table(regclass, text) FROM %I', api_role);
        END IF;
    END LOOP;
END
$$;
-- +goose StatementEnd

SELECT helix_audit_table('tool_executions', 'user_id');
SELECT helix_audit_table('skill_executions', 'user_id');
SELECT helix_audit_table('composite_skill_executions', 'user_id');
SELECT helix_audit_table('helix_llm_usage', 'user_id');

-- +goose Down
UPDATE helix_tables SET append_only = false WHERE append_only;
SELECT helix_secure_table(name::regclass, owner_column) FROM helix_tables
WHERE name IN ('tool_executions', 'skill_executions', 'composite_skill_executions', 'helix_llm_usage');
DROP FUNCTION helix_audit_table(regclass, text);
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
        FOR seq IN SELECT d.objid::regclass FROM pg_depend d
                   WHERE d.refobjid = tbl AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
                     AND (SELECT relkind FROM pg_class WHERE oid = d.objid) = 'S' LOOP
            EXECUTE format('REVOKE ALL ON SEQUENCE %s FROM %I', seq, api_role);
        END LOOP;
    END LOOP;
END
$$;
-- +goose StatementEnd
ALTER TABLE helix_tables DROP COLUMN append_only;
