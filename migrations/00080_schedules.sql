-- +goose Up
-- helix schedule (issue 16): durable cron schedules of helix job command lines,
-- ticked by the River leader among `helix worker` processes. A tick fires once:
-- the fire row's UNIQUE (schedule_id, tick) is inserted in the transaction that
-- enqueues its River job, so a second leader, a retried tick pass or a restart
-- finds the row and enqueues nothing.
CREATE TABLE helix_schedules (
    id                   bigserial PRIMARY KEY,
    name                 text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
    spec                 text NOT NULL,
    timezone             text NOT NULL DEFAULT 'UTC',
    jitter_ms            bigint NOT NULL DEFAULT 0 CHECK (jitter_ms >= 0),
    catch_up             text NOT NULL DEFAULT 'none' CHECK (catch_up IN ('none', 'once')),
    argv                 text[] NOT NULL CHECK (cardinality(argv) > 0),
    paused               boolean NOT NULL DEFAULT false,
    disabled_reason      text,
    disabled_at          timestamptz,
    consecutive_failures integer NOT NULL DEFAULT 0,
    max_failures         integer NOT NULL DEFAULT 5 CHECK (max_failures >= 0),
    -- the next instant of the spec not yet turned into a fire (or skipped as missed)
    next_tick            timestamptz NOT NULL,
    last_tick            timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);
SELECT helix_secure_table('helix_schedules', NULL);
CREATE INDEX helix_schedules_due_idx ON helix_schedules (next_tick) WHERE NOT paused AND disabled_reason IS NULL;

CREATE TABLE helix_schedule_fires (
    id           bigserial PRIMARY KEY,
    schedule_id  bigint NOT NULL REFERENCES helix_schedules (id) ON DELETE CASCADE,
    tick         timestamptz NOT NULL,
    -- tick: on time; catch_up: the one missed tick --catch-up once runs late; run_now: schedule run-now
    kind         text NOT NULL CHECK (kind IN ('tick', 'catch_up', 'run_now')),
    river_job_id bigint,
    status       text NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'running', 'ok', 'failed', 'partial', 'skipped', 'interrupted')),
    attempts     integer NOT NULL DEFAULT 0,
    exit_code    integer,
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz,
    duration_ms  bigint,
    counts       jsonb,
    error        text,
    UNIQUE (schedule_id, tick)
);
SELECT helix_secure_table('helix_schedule_fires', NULL);
CREATE INDEX helix_schedule_fires_schedule_idx ON helix_schedule_fires (schedule_id, id DESC);

-- +goose Down
DROP TABLE helix_schedule_fires;
DROP TABLE helix_schedules;
DELETE FROM helix_tables WHERE name IN ('helix_schedules', 'helix_schedule_fires');
