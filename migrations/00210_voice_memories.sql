-- +goose Up
-- Issue 43: a transcribed recording becomes a memory of its user.
--
-- helix_voice_memories links a voice_recordings row to the memories row
-- helix wrote from its transcript; the platform's two tables keep the columns
-- the platform gives them. Both ids are derived from (user, sha256 of the
-- file), so the same audio maps to the same rows even after this table is
-- gone (migrate down and up again): helix finds the recording by its id and
-- relinks the memory instead of transcribing it twice.
--
-- Deleting a recording (the app's "delete this memo") deletes the memory made
-- from it, through the trigger below: what a person asked to forget is not
-- kept as a memory. Deleting the memory alone deletes only the link (the
-- recording stays, and transcribing it again does not bring the memory back).
CREATE TABLE helix_voice_memories (
    recording_id uuid PRIMARY KEY,
    memory_id    uuid NOT NULL UNIQUE REFERENCES memories (id) ON DELETE CASCADE,
    user_id      uuid NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
SELECT helix_secure_table('helix_voice_memories', 'user_id');

-- Recordings are looked up by (user_id, sha256) or (user_id, id): the index
-- on (user_id, sha256) narrows both to the user's rows, few enough.

-- Statement-level with a transition table: an app deleting many memos pays once.
-- SECURITY DEFINER: an authenticated user deleting their own recording may
-- not be granted helix's table; the memories deleted are only those linked to
-- the deleted recordings and of the same user.
-- +goose StatementBegin
CREATE FUNCTION helix_voice_recording_deleted() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    WITH gone AS (
        DELETE FROM public.helix_voice_memories l
        USING helix_old_recordings o
        WHERE l.recording_id = o.id AND l.user_id = o.user_id
        RETURNING l.memory_id, l.user_id
    )
    DELETE FROM public.memories m USING gone
    WHERE m.id = gone.memory_id AND m.user_id = gone.user_id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
DO $$
DECLARE
    api_role text;
BEGIN
    REVOKE ALL ON FUNCTION helix_voice_recording_deleted() FROM PUBLIC;
    FOREACH api_role IN ARRAY ARRAY['anon', 'authenticated', 'service_role'] LOOP
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = api_role) THEN
            EXECUTE format('REVOKE ALL ON FUNCTION helix_voice_recording_deleted() FROM %I', api_role);
        END IF;
    END LOOP;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER helix_voice_recording_deleted AFTER DELETE ON voice_recordings
    REFERENCING OLD TABLE AS helix_old_recordings
    FOR EACH STATEMENT EXECUTE FUNCTION helix_voice_recording_deleted();

-- +goose Down
DROP TRIGGER IF EXISTS helix_voice_recording_deleted ON voice_recordings;
DROP FUNCTION IF EXISTS helix_voice_recording_deleted();
DROP TABLE IF EXISTS helix_voice_memories;
DELETE FROM helix_tables WHERE name = 'helix_voice_memories';
