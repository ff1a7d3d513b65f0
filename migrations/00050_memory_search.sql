-- +goose Up
-- Issue 18: which model made each embedding, and full-text search over memories.
--
-- memories is the platform's table: helix only adds nullable columns to it.
-- embedding_model/embedding_dim record what `helix embed` wrote (NULL: a row
-- helix did not embed, e.g. the platform's own).
ALTER TABLE memories ADD COLUMN IF NOT EXISTS embedding_model text;
ALTER TABLE memories ADD COLUMN IF NOT EXISTS embedding_dim integer;

-- The tsvector lives in a helix-owned side table kept by a trigger, not in a
-- generated column on memories: ADD COLUMN ... GENERATED ALWAYS AS ... STORED
-- rewrites the whole platform table under an ACCESS EXCLUSIVE lock (the apps
-- stop writing memories for as long as that takes), and a generated column
-- cannot change its text search configuration without another rewrite. The
-- side table is built here, holds one row per memory with text, and can be
-- rebuilt in another language by `helix memory reindex --language`.
CREATE TABLE helix_search_settings (
    id       boolean PRIMARY KEY DEFAULT true CHECK (id),
    language regconfig NOT NULL DEFAULT 'english'
);
SELECT helix_secure_table('helix_search_settings', NULL);
INSERT INTO helix_search_settings DEFAULT VALUES;

CREATE TABLE helix_memory_search (
    memory_id uuid PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    user_id   uuid NOT NULL,
    tsv       tsvector NOT NULL
);
SELECT helix_secure_table('helix_memory_search', 'user_id');
-- fastupdate off: with the default pending list, rows inserted since the last
-- vacuum are scanned linearly by every search (measured: 29 ms instead of
-- 0.2 ms for one word over 100,000 fresh memories). Apps insert memories one
-- at a time, so paying the index update at insert costs them little.
CREATE INDEX helix_memory_search_tsv_idx ON helix_memory_search USING gin (tsv) WITH (fastupdate = off);
CREATE INDEX helix_memory_search_user_idx ON helix_memory_search (user_id);

-- +goose StatementBegin
CREATE FUNCTION helix_memory_search_sync() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $$
BEGIN
    IF NEW.content IS NULL OR btrim(NEW.content) = '' THEN
        DELETE FROM helix_memory_search WHERE memory_id = NEW.id;
        RETURN NULL;
    END IF;
    INSERT INTO helix_memory_search (memory_id, user_id, tsv)
    VALUES (NEW.id, NEW.user_id,
            to_tsvector((SELECT language FROM helix_search_settings), NEW.content))
    ON CONFLICT (memory_id) DO UPDATE SET user_id = EXCLUDED.user_id, tsv = EXCLUDED.tsv;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION helix_memory_search_sync() FROM PUBLIC;

CREATE TRIGGER helix_memory_search_sync
    AFTER INSERT OR UPDATE OF content, user_id ON memories
    FOR EACH ROW EXECUTE FUNCTION helix_memory_search_sync();

-- The rows that exist already.
INSERT INTO helix_memory_search (memory_id, user_id, tsv)
SELECT id, user_id, to_tsvector((SELECT language FROM helix_search_settings), content)
FROM memories WHERE content IS NOT NULL AND btrim(content) <> '';

-- +goose Down
DROP TRIGGER helix_memory_search_sync ON memories;
DROP FUNCTION helix_memory_search_sync();
DROP TABLE helix_memory_search;
DROP TABLE helix_search_settings;
DELETE FROM helix_tables WHERE name IN ('helix_memory_search', 'helix_search_settings');
-- The columns on the platform's table stay: dropping them would lose which
-- model made each embedding.
