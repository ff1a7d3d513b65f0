-- +goose Up
-- helix decay: the forgetting-curve state it keeps beside each memory and layer,
-- and the checkpoint that lets an interrupted run resume where it stopped.

-- reviewed_at: the last access already folded into stability (FSRS's stability
-- update is applied once per new last_accessed, so re-running never compounds it).
-- decayed_at: the instant the stored retention was computed for.
-- forgotten: retention fell below --forget-below; flagged, never deleted.
ALTER TABLE memories
    ADD COLUMN IF NOT EXISTS reviewed_at timestamptz,
    ADD COLUMN IF NOT EXISTS decayed_at  timestamptz,
    ADD COLUMN IF NOT EXISTS forgotten   boolean NOT NULL DEFAULT false;

-- stability: optional per-row override of the layer model's parameter (hours).
ALTER TABLE psychology_layers
    ADD COLUMN IF NOT EXISTS stability  double precision CHECK (stability > 0),
    ADD COLUMN IF NOT EXISTS retention  double precision CHECK (retention BETWEEN 0 AND 1),
    ADD COLUMN IF NOT EXISTS decayed_at timestamptz,
    ADD COLUMN IF NOT EXISTS forgotten  boolean NOT NULL DEFAULT false;

-- One row per scope ('all' or a user id) while a run is unfinished: the table
-- it is in and the last key whose chunk committed.
CREATE TABLE decay_progress (
    scope      text PRIMARY KEY,
    phase      text NOT NULL CHECK (phase IN ('memories', 'psychology_layers')),
    last_id    uuid,
    job_run_id bigint,
    at         timestamptz NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE decay_progress;
ALTER TABLE psychology_layers
    DROP COLUMN forgotten,
    DROP COLUMN decayed_at,
    DROP COLUMN retention,
    DROP COLUMN stability;
ALTER TABLE memories
    DROP COLUMN forgotten,
    DROP COLUMN decayed_at,
    DROP COLUMN reviewed_at;
