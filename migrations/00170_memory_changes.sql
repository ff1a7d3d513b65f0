-- +goose Up
-- Issue 37: `synthesize --all-users` finds the users whose memories changed
-- by reading what changed, not by hashing every memory of every user.
--
-- Triggers on the platform's memories table record, for every writing
-- transaction, which users it touched: one row (user_id, the writer's
-- transaction id) in helix_memory_changes, written by the writer's own
-- transaction, so it exists exactly when the write committed.
-- helix_synthesis_state.seen holds the snapshot (pg_current_snapshot())
-- taken before the user's memories were last read: every transaction
-- visible in it had committed before the read began, so the read saw its
-- writes. The user changed since iff a marker of theirs is of a transaction
-- not visible in that snapshot (pg_visible_in_snapshot). Unlike a sequence
-- or a timestamp, a transaction id is fixed before the write and its
-- visibility is decided at commit, so a writer that commits late is never
-- mistaken for one the read saw. A synthesis deletes the user's markers its
-- snapshot covers, so the table holds only changes not yet synthesized.
--
-- The triggers never wait on another transaction: each writer inserts only
-- rows keyed by its own transaction id (ON CONFLICT DO NOTHING absorbs its
-- own repeats), so concurrent writers of one user never contend for a row,
-- and helix deletes only markers of transactions that have committed.
CREATE TABLE helix_memory_changes (
    user_id uuid NOT NULL,
    xid     xid8 NOT NULL,
    PRIMARY KEY (user_id, xid)
);
SELECT helix_secure_table('helix_memory_changes', NULL);

-- seen: the snapshot (above); since: the --since window the synthesis read.
-- digest: the earlier detector's; NULL for states recorded from now on.
ALTER TABLE helix_synthesis_state
    ADD COLUMN seen  pg_snapshot,
    ADD COLUMN since timestamptz,
    ALTER COLUMN digest DROP NOT NULL;
-- The users whose settings differ from a run's are two range scans of this
-- index (settings < $1, settings > $1); B-tree deduplication keeps it small
-- when every user has the same settings.
CREATE INDEX helix_synthesis_state_settings_idx ON helix_synthesis_state (settings, since);

-- Statement-level for inserts and deletes (a bulk write pays once, through
-- its transition table); row-level for updates, since only a row trigger can
-- name columns: an update that sets none of what synthesis reads (recall
-- times, decay state, type) does not fire it at all.
-- +goose StatementBegin
CREATE FUNCTION helix_memory_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    x xid8 := pg_current_xact_id();
BEGIN
    IF TG_LEVEL = 'ROW' THEN -- UPDATE OF the columns synthesis reads
        INSERT INTO public.helix_memory_changes (user_id, xid)
        SELECT DISTINCT u, x FROM (VALUES (OLD.user_id), (NEW.user_id)) v (u) WHERE u IS NOT NULL
        ON CONFLICT DO NOTHING;
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO public.helix_memory_changes (user_id, xid)
        SELECT DISTINCT user_id, x FROM helix_new_rows WHERE user_id IS NOT NULL
        ON CONFLICT DO NOTHING;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO public.helix_memory_changes (user_id, xid)
        SELECT DISTINCT user_id, x FROM helix_old_rows WHERE user_id IS NOT NULL
        ON CONFLICT DO NOTHING;
    ELSIF TG_OP = 'TRUNCATE' THEN -- whose rows went is unknown: every synthesized user
        INSERT INTO public.helix_memory_changes (user_id, xid)
        SELECT user_id, x FROM public.helix_synthesis_state
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
DO $$
DECLARE
    api_role text;
BEGIN
    REVOKE ALL ON FUNCTION helix_memory_changed() FROM PUBLIC;
    FOREACH api_role IN ARRAY ARRAY['anon', 'authenticated', 'service_role'] LOOP
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = api_role) THEN
            EXECUTE format('REVOKE ALL ON FUNCTION helix_memory_changed() FROM %I', api_role);
        END IF;
    END LOOP;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER helix_memory_changes_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS helix_new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION helix_memory_changed();
CREATE TRIGGER helix_memory_changes_delete AFTER DELETE ON memories
    REFERENCING OLD TABLE AS helix_old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION helix_memory_changed();
CREATE TRIGGER helix_memory_changes_update
    AFTER UPDATE OF id, user_id, content, embedding, emotional_valence, created_at ON memories
    FOR EACH ROW EXECUTE FUNCTION helix_memory_changed();
CREATE TRIGGER helix_memory_changes_truncate AFTER TRUNCATE ON memories
    FOR EACH STATEMENT EXECUTE FUNCTION helix_memory_changed();

-- The users who have memories already count as changed once: the triggers
-- did not see how their memories came to be, and states recorded by the
-- digest detector have no snapshot. (CREATE TRIGGER above waited for every
-- writer of memories to finish, and holds writers off until this commits,
-- so no write falls between this scan and the triggers.)
INSERT INTO helix_memory_changes (user_id, xid)
SELECT DISTINCT user_id, pg_current_xact_id() FROM memories WHERE user_id IS NOT NULL;

-- +goose Down
DROP TRIGGER IF EXISTS helix_memory_changes_truncate ON memories;
DROP TRIGGER IF EXISTS helix_memory_changes_update ON memories;
DROP TRIGGER IF EXISTS helix_memory_changes_delete ON memories;
DROP TRIGGER IF EXISTS helix_memory_changes_insert ON memories;
DROP FUNCTION IF EXISTS helix_memory_changed();
DROP TABLE IF EXISTS helix_memory_changes;
DELETE FROM helix_tables WHERE name = 'helix_memory_changes';
DROP INDEX IF EXISTS helix_synthesis_state_settings_idx;
-- States without a digest mean nothing to the digest detector: recompute.
DELETE FROM helix_synthesis_state WHERE digest IS NULL;
ALTER TABLE helix_synthesis_state
    ALTER COLUMN digest SET NOT NULL,
    DROP COLUMN since,
    DROP COLUMN seen;
