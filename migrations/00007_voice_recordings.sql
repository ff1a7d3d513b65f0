-- +goose Up
-- voice_recordings is a platform table (apps list recordings and read their
-- transcripts). helix creates it in the platform's shape only where it is
-- missing, and adds what helix voice transcribe records, all nullable. The same
-- audio (sha256 of the file as uploaded) is stored once per user.
-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('public.voice_recordings') IS NULL THEN
        CREATE TABLE voice_recordings (
            id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
            user_id    uuid NOT NULL,
            transcript text,
            audio_data bytea,            -- with --store-audio: 16 kHz mono 16-bit WAV
            created_at timestamptz NOT NULL DEFAULT now()
        );
        INSERT INTO helix_tables VALUES ('voice_recordings', 'user_id');
    END IF;
END
$$;
-- +goose StatementEnd
ALTER TABLE voice_recordings
    ADD COLUMN IF NOT EXISTS source_name      text,
    ADD COLUMN IF NOT EXISTS format           text,
    ADD COLUMN IF NOT EXISTS duration_seconds double precision CHECK (duration_seconds >= 0),
    ADD COLUMN IF NOT EXISTS sample_rate      integer CHECK (sample_rate > 0),
    ADD COLUMN IF NOT EXISTS channels         integer CHECK (channels > 0),
    ADD COLUMN IF NOT EXISTS sha256           bytea CHECK (octet_length(sha256) = 32),
    ADD COLUMN IF NOT EXISTS confidence       double precision,
    ADD COLUMN IF NOT EXISTS language         text,
    ADD COLUMN IF NOT EXISTS words            jsonb,
    ADD COLUMN IF NOT EXISTS utterances       jsonb,
    ADD COLUMN IF NOT EXISTS provider         text,
    ADD COLUMN IF NOT EXISTS model            text,
    ADD COLUMN IF NOT EXISTS request_id       text;
-- rows of other writers have no sha256, and NULLs never collide
CREATE UNIQUE INDEX IF NOT EXISTS voice_recordings_user_sha256_idx ON voice_recordings (user_id, sha256);
CREATE INDEX IF NOT EXISTS voice_recordings_user_created_idx ON voice_recordings (user_id, created_at);

-- +goose Down
DROP INDEX IF EXISTS voice_recordings_user_created_idx;
DROP INDEX IF EXISTS voice_recordings_user_sha256_idx;
ALTER TABLE voice_recordings
    DROP COLUMN IF EXISTS request_id,
    DROP COLUMN IF EXISTS model,
    DROP COLUMN IF EXISTS provider,
    DROP COLUMN IF EXISTS utterances,
    DROP COLUMN IF EXISTS words,
    DROP COLUMN IF EXISTS language,
    DROP COLUMN IF EXISTS confidence,
    DROP COLUMN IF EXISTS sha256,
    DROP COLUMN IF EXISTS channels,
    DROP COLUMN IF EXISTS sample_rate,
    DROP COLUMN IF EXISTS duration_seconds,
    DROP COLUMN IF EXISTS format,
    DROP COLUMN IF EXISTS source_name;
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM helix_tables WHERE name = 'voice_recordings') THEN
        DROP TABLE voice_recordings;
        DELETE FROM helix_tables WHERE name = 'voice_recordings';
    END IF;
END
$$;
-- +goose StatementEnd
