-- +goose Up
-- Issue 45: the recommendations of every language-model pattern type, kept
-- with the pattern and lineage they come from. helix appends (a run that
-- repeats a recommendation of the same lineage leaves the stored one, and
-- its status, as it is); a signed-in user reads their own and may set one
-- column, status (open, done, dismissed), on their own rows: nothing else, and
-- nobody else's (a column-level UPDATE grant and an UPDATE policy beside the
-- read-only policy helix_audit_table gives).
CREATE TABLE helix_recommendations (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id           uuid        NOT NULL,
    pattern_type      text        NOT NULL,
    pattern_id        uuid,                 -- memory_patterns.id of the latest run that gave it
    lineage_id        uuid        NOT NULL, -- helix_pattern_lineages.id of that pattern
    layer             text,                 -- full_synthesis: the psychology layer
    text              text        NOT NULL,
    status            text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'dismissed')),
    status_changed_at timestamptz,
    created_at        timestamptz NOT NULL,
    job_run_id        bigint
);
SELECT helix_audit_table('helix_recommendations', 'user_id');
CREATE UNIQUE INDEX helix_recommendations_lineage_text_idx ON helix_recommendations (user_id, lineage_id, md5(text));
CREATE INDEX helix_recommendations_user_idx ON helix_recommendations (user_id, status);

-- status_changed_at follows status whoever sets it: the user cannot write it.
-- +goose StatementBegin
CREATE FUNCTION helix_recommendations_status_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        NEW.status_changed_at := now();
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER helix_recommendations_status_changed BEFORE UPDATE ON helix_recommendations
    FOR EACH ROW EXECUTE FUNCTION helix_recommendations_status_changed();

-- The user's one write: status, on their own rows. Skipped where Supabase's
-- role or auth.uid() is missing, as helix_secure_table skips them.
-- +goose StatementBegin
DO $$
DECLARE
    api_role text;
BEGIN
    FOREACH api_role IN ARRAY ARRAY['anon', 'authenticated'] LOOP
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = api_role) THEN
            EXECUTE format('REVOKE ALL ON FUNCTION helix_recommendations_status_changed() FROM %I', api_role);
        END IF;
    END LOOP;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') AND to_regprocedure('auth.uid()') IS NOT NULL THEN
        GRANT UPDATE (status) ON helix_recommendations TO authenticated;
        CREATE POLICY helix_owner_status ON helix_recommendations FOR UPDATE TO authenticated
            USING (user_id = auth.uid()) WITH CHECK (user_id = auth.uid());
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP TABLE helix_recommendations;
DROP FUNCTION helix_recommendations_status_changed();
DELETE FROM helix_tables WHERE name = 'helix_recommendations';
