-- +goose Up
-- Every user owns their own (issue 42): skills, composite skills, tools and
-- schedules get a nullable owner. NULL is shared (the operator's, as every
-- existing row stays); a uuid is that user's. One mechanism for all four:
-- the same column, the same "own, then shared" resolver in helix
-- (internal/owner), and the same row-level security shape, written once in
-- helix_secure_table for tables marked shared_rows in helix_tables:
--   read:  user_id = auth.uid() OR user_id IS NULL
--   write: user_id = auth.uid()            (never a shared row, never another's)
--   anon:  nothing
-- Writes through the API are allowed only where what a user writes cannot
-- act with helix's authority (helix_tables.user_writes, a condition every
-- written row must also meet): a skill row, but one that grants no files
-- (fs:read would let helix read the server's files into the user's output),
-- and a composite. A tool or a schedule is executed by helix itself (an HTTP
-- or container call, a job line run by the worker), so users read theirs
-- and the shared ones, and write them through helix, which validates them
-- (manifest import --user-id against manifest.max-*, schedule add --user-id).
-- Names (and versions) are unique per owner: the unique indexes treat NULL
-- as one more owner (NULLS NOT DISTINCT), so two users may each have
-- `summary`, and the operator one more.
ALTER TABLE helix_tables ADD COLUMN IF NOT EXISTS shared_rows boolean NOT NULL DEFAULT false;
ALTER TABLE helix_tables ADD COLUMN IF NOT EXISTS user_writes text;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION helix_secure_table(tbl regclass, owner_column text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    api_role    text;
    seq         regclass;
    is_audit    boolean;
    is_shared   boolean;
    writes      text;
BEGIN
    INSERT INTO helix_tables (name, owner_column) VALUES (tbl::text, owner_column)
        ON CONFLICT (name) DO UPDATE SET owner_column = excluded.owner_column
        RETURNING helix_tables.append_only, helix_tables.shared_rows, helix_tables.user_writes INTO is_audit, is_shared, writes;
    EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', tbl);
    EXECUTE format('DROP POLICY IF EXISTS helix_owner ON %s', tbl);
    EXECUTE format('DROP POLICY IF EXISTS helix_owner_read ON %s', tbl);
    EXECUTE format('DROP POLICY IF EXISTS helix_owner_insert ON %s', tbl);
    EXECUTE format('DROP POLICY IF EXISTS helix_owner_update ON %s', tbl);
    EXECUTE format('DROP POLICY IF EXISTS helix_owner_delete ON %s', tbl);
    FOREACH api_role IN ARRAY ARRAY['anon', 'authenticated'] LOOP
        CONTINUE WHEN NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = api_role);
        IF api_role = 'authenticated' AND owner_column IS NOT NULL
           AND to_regprocedure('auth.uid()') IS NOT NULL THEN
            IF is_audit THEN
                EXECUTE format('REVOKE ALL ON %s FROM authenticated', tbl);
                EXECUTE format('GRANT SELECT ON %s TO authenticated', tbl);
                EXECUTE format('CREATE POLICY helix_owner ON %s FOR SELECT TO authenticated USING (%I = auth.uid())',
                               tbl, owner_column);
            ELSIF is_shared THEN
                EXECUTE format('CREATE POLICY helix_owner_read ON %s FOR SELECT TO authenticated USING (%I = auth.uid() OR %I IS NULL)',
                               tbl, owner_column, owner_column);
                IF writes IS NULL THEN
                    -- no write policy: an update or delete changes nothing, an
                    -- insert is refused (and the sequence is revoked below)
                    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO authenticated', tbl);
                ELSE
                    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO authenticated', tbl);
                    EXECUTE format('CREATE POLICY helix_owner_insert ON %s FOR INSERT TO authenticated WITH CHECK (%I = auth.uid() AND (%s))',
                                   tbl, owner_column, writes);
                    EXECUTE format('CREATE POLICY helix_owner_update ON %s FOR UPDATE TO authenticated USING (%I = auth.uid()) WITH CHECK (%I = auth.uid() AND (%s))',
                                   tbl, owner_column, owner_column, writes);
                    EXECUTE format('CREATE POLICY helix_owner_delete ON %s FOR DELETE TO authenticated USING (%I = auth.uid())',
                                   tbl, owner_column);
                    -- a user's own row (a skill made in the app) takes its id from the sequence
                    FOR seq IN SELECT d.objid::regclass FROM pg_depend d
                               WHERE d.refobjid = tbl AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
                                 AND (SELECT relkind FROM pg_class WHERE oid = d.objid) = 'S' LOOP
                        EXECUTE format('GRANT USAGE ON SEQUENCE %s TO authenticated', seq);
                    END LOOP;
                    CONTINUE;
                END IF;
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

-- helix_owned_table marks a registry table as "owned or shared" and secures
-- it; user_writes, when not NULL, lets users write their own rows that meet it.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION helix_owned_table(tbl regclass, owner_column text, user_writes text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO helix_tables (name, owner_column, shared_rows, user_writes) VALUES (tbl::text, owner_column, true, user_writes)
        ON CONFLICT (name) DO UPDATE SET owner_column = excluded.owner_column, shared_rows = true, user_writes = excluded.user_writes;
    PERFORM helix_secure_table(tbl, owner_column);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    api_role text;
BEGIN
    REVOKE ALL ON FUNCTION helix_owned_table(regclass, text, text) FROM PUBLIC;
    FOREACH api_role IN ARRAY ARRAY['anon', 'authenticated'] LOOP
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = api_role) THEN
            EXECUTE format('REVOKE ALL ON FUNCTION helix_owned_table(regclass, text, text) FROM %I', api_role);
        END IF;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- The old one-namespace unique constraints, by their columns: a database
-- helix 0.10 created has them under its older table names.
-- +goose StatementBegin
DO $$
DECLARE
    c record;
BEGIN
    FOR c IN SELECT con.conrelid::regclass AS tbl, con.conname FROM pg_constraint con
             WHERE con.contype = 'u'
               AND con.conrelid IN ('helix_skills'::regclass, 'helix_composite_skills'::regclass,
                                    'tool_manifests'::regclass, 'helix_schedules'::regclass)
               AND (SELECT array_agg(a.attname::text ORDER BY a.attname) FROM pg_attribute a
                    WHERE a.attrelid = con.conrelid AND a.attnum = ANY (con.conkey))
                   IN (ARRAY['name', 'version'], ARRAY['name']) LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.tbl, c.conname);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- Skills: the owner, and the lifecycle the platform's custom_tools has
-- (enabled, usage_count) plus when it was last run.
ALTER TABLE helix_skills
    ADD COLUMN user_id      uuid,
    ADD COLUMN enabled      boolean NOT NULL DEFAULT true,
    ADD COLUMN usage_count  bigint  NOT NULL DEFAULT 0,
    ADD COLUMN last_used_at timestamptz;
CREATE UNIQUE INDEX helix_skills_owner_name_version_key ON helix_skills (user_id, name, version) NULLS NOT DISTINCT;
CREATE INDEX helix_skills_user_idx ON helix_skills (user_id) WHERE user_id IS NOT NULL;

ALTER TABLE helix_composite_skills
    ADD COLUMN user_id uuid;
CREATE UNIQUE INDEX helix_composite_skills_owner_name_version_key ON helix_composite_skills (user_id, name, version) NULLS NOT DISTINCT;

ALTER TABLE tool_manifests
    ADD COLUMN user_id uuid;
CREATE UNIQUE INDEX tool_manifests_owner_name_version_key ON tool_manifests (user_id, name, version) NULLS NOT DISTINCT;

-- Schedules: the owner, and the instant of a one-shot cadence (--once-at,
-- spec "@at <RFC 3339>"): once it fired there is no next tick, and the
-- schedule is completed.
ALTER TABLE helix_schedules
    ADD COLUMN user_id uuid,
    ADD COLUMN once_at timestamptz;
CREATE UNIQUE INDEX helix_schedules_owner_name_key ON helix_schedules (user_id, name) NULLS NOT DISTINCT;

SELECT helix_owned_table('helix_skills', 'user_id', $w$NOT EXISTS (SELECT 1 FROM unnest(capabilities) c WHERE c LIKE 'fs:%')$w$);
SELECT helix_owned_table('helix_composite_skills', 'user_id', 'true');
SELECT helix_owned_table('tool_manifests', 'user_id', NULL);
SELECT helix_owned_table('helix_schedules', 'user_id', NULL);

-- +goose Down
-- Going down cannot keep two owners' `summary` under one name: refuse rather
-- than lose a user's item silently.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM helix_skills WHERE user_id IS NOT NULL)
       OR EXISTS (SELECT 1 FROM helix_composite_skills WHERE user_id IS NOT NULL)
       OR EXISTS (SELECT 1 FROM tool_manifests WHERE user_id IS NOT NULL)
       OR EXISTS (SELECT 1 FROM helix_schedules WHERE user_id IS NOT NULL) THEN
        RAISE EXCEPTION 'users own skills, composites, tools or schedules: remove them (helix doctor counts them) before migrating below 00200';
    END IF;
END
$$;
-- +goose StatementEnd
DROP FUNCTION helix_owned_table(regclass, text, text);
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
    EXECUTE format('DROP POLICY IF EXISTS helix_owner_read ON %s', tbl);
    EXECUTE format('DROP POLICY IF EXISTS helix_owner_insert ON %s', tbl);
    EXECUTE format('DROP POLICY IF EXISTS helix_owner_update ON %s', tbl);
    EXECUTE format('DROP POLICY IF EXISTS helix_owner_delete ON %s', tbl);
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
-- The four registry tables back to helix-internal (owner_column NULL).
SELECT helix_secure_table(t, NULL) FROM unnest(ARRAY['helix_skills', 'helix_composite_skills', 'tool_manifests', 'helix_schedules']::regclass[]) t;
UPDATE helix_tables SET shared_rows = false WHERE shared_rows;
DROP INDEX helix_schedules_owner_name_key;
-- (a shared one-shot stays: older helix disables it, saying its spec no longer parses)
ALTER TABLE helix_schedules DROP COLUMN once_at, DROP COLUMN user_id,
    ADD CONSTRAINT helix_schedules_name_key UNIQUE (name);
DROP INDEX tool_manifests_owner_name_version_key;
ALTER TABLE tool_manifests DROP COLUMN user_id, ADD CONSTRAINT tool_manifests_name_version_key UNIQUE (name, version);
DROP INDEX helix_composite_skills_owner_name_version_key;
ALTER TABLE helix_composite_skills DROP COLUMN user_id,
    ADD CONSTRAINT helix_composite_skills_name_version_key UNIQUE (name, version);
DROP INDEX helix_skills_user_idx;
DROP INDEX helix_skills_owner_name_version_key;
ALTER TABLE helix_skills DROP COLUMN last_used_at, DROP COLUMN usage_count, DROP COLUMN enabled, DROP COLUMN user_id,
    ADD CONSTRAINT helix_skills_name_version_key UNIQUE (name, version);
ALTER TABLE helix_tables DROP COLUMN user_writes;
ALTER TABLE helix_tables DROP COLUMN shared_rows;
