-- +goose Up
-- One row per transcribed recording (helix voice transcribe). The same audio
-- (sha256 of the file as uploaded) is stored once per user.
CREATE TABLE voice_recordings (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id          uuid NOT NULL,
    source_name      text NOT NULL,
    format           text NOT NULL,
    duration_seconds double precision NOT NULL CHECK (duration_seconds >= 0),
    sample_rate      integer NOT NULL CHECK (sample_rate > 0),
    channels         integer NOT NULL CHECK (channels > 0),
    audio            bytea,            -- 16 kHz mono 16-bit WAV, with --store-audio
    sha256           bytea NOT NULL CHECK (octet_length(sha256) = 32),
    transcript       text NOT NULL,
    confidence       double precision,
    language         text,
    words            jsonb NOT NULL DEFAULT '[]'::jsonb,
    utterances       jsonb,
    provider         text NOT NULL,
    model            text NOT NULL,
    request_id       text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (user_id, sha256)
);
CREATE INDEX voice_recordings_user_created_idx ON voice_recordings (user_id, created_at);

-- +goose Down
DROP TABLE voice_recordings;
