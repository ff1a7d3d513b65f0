-- +goose Up
-- helix decay, work proportional to change (issue 15). Retention is a
-- monotone function of time between accesses, so instead of rewriting every
-- row each night helix stores, per row, the instant its retention will cross
-- --forget-below, and a nightly run touches only rows that are due, new, or
-- accessed since their state was computed. Readers get current retention from
-- helix_retention(row [, at]) instead of the stored column, which is only the
-- value as of decayed_at.
--
-- Only nullable columns and indexes on the platform's tables.

-- forget_at: when retention falls below the run's --forget-below, given the
-- stored state (NULL: no threshold, or already below it until the next access;
-- 'infinity': not within a million days).
ALTER TABLE memories ADD COLUMN IF NOT EXISTS forget_at timestamptz;
-- decay_basis: the last_updated the stored layer state was computed from, so
-- that a layer the platform touched since is recomputed.
ALTER TABLE psychology_layers
    ADD COLUMN IF NOT EXISTS forget_at   timestamptz,
    ADD COLUMN IF NOT EXISTS decay_basis timestamptz;

-- "Due now", "never decayed" and "accessed since" are each one index range.
CREATE INDEX IF NOT EXISTS memories_forget_at_idx ON memories (forget_at) WHERE forget_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS memories_undecayed_idx ON memories (id) WHERE decayed_at IS NULL;
CREATE INDEX IF NOT EXISTS memories_last_accessed_idx ON memories (last_accessed) WHERE last_accessed IS NOT NULL;
CREATE INDEX IF NOT EXISTS psychology_layers_forget_at_idx ON psychology_layers (forget_at) WHERE forget_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS psychology_layers_undecayed_idx ON psychology_layers (id) WHERE decayed_at IS NULL;
CREATE INDEX IF NOT EXISTS psychology_layers_last_updated_idx ON psychology_layers (last_updated);

-- The model parameters of the last run (one row), read by helix_retention.
-- The defaults are FSRS-6's and the default layer mapping (internal/decay).
CREATE TABLE IF NOT EXISTS helix_decay_model (
    id            boolean PRIMARY KEY DEFAULT true CHECK (id),
    memory_decay  double precision NOT NULL,
    memory_factor double precision NOT NULL,
    exp_w8        double precision NOT NULL,
    w9            double precision NOT NULL,
    w10           double precision NOT NULL,
    s0            double precision NOT NULL,
    d0            double precision NOT NULL,
    layer_kinds   text[] NOT NULL,
    layer_params  double precision[] NOT NULL,
    layer_decays  double precision[] NOT NULL,
    layer_factors double precision[] NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
SELECT helix_secure_table('helix_decay_model', NULL);
INSERT INTO helix_decay_model (memory_decay, memory_factor, exp_w8, w9, w10, s0, d0,
                               layer_kinds, layer_params, layer_decays, layer_factors)
VALUES (-0.1542, power(0.9::float8, 1 / -0.1542::float8) - 1, exp(1.8722::float8), 0.1666, 0.796,
        2.3065, 6.4133 - exp(0.8334::float8 * 2) + 1,
        ARRAY['exponential', 'ebbinghaus', 'power', 'exponential', 'ebbinghaus', 'exponential', 'ebbinghaus'],
        ARRAY[720, 168, 0.5, 360, 240, 480, 1440]::float8[],
        array_fill(-0.1542::float8, ARRAY[7]),
        array_fill(power(0.9::float8, 1 / -0.1542::float8) - 1, ARRAY[7]))
ON CONFLICT (id) DO NOTHING;

-- The last complete incremental-capable run over all users: its instant, when
-- it started (wall clock), and the settings (models, --forget-below) its
-- forget_at values were computed with. A run with other settings is full.
CREATE TABLE IF NOT EXISTS helix_decay_state (
    scope      text PRIMARY KEY,
    at         timestamptz NOT NULL,
    started_at timestamptz NOT NULL,
    settings   text NOT NULL,
    job_run_id bigint,
    updated_at timestamptz NOT NULL DEFAULT now()
);
SELECT helix_secure_table('helix_decay_state', NULL);

-- FSRS retention of a memory at $6 from its state, folding in an access newer
-- than the one in its stability exactly as `helix decay run` does
-- (internal/decay.FSRSParams.Advance). $1 stability, $2 difficulty,
-- $3 reviewed_at, $4 created_at, $5 last_accessed, $6 at, $7 decay, $8 factor,
-- $9 e^w8, $10 w9, $11 w10, $12 initial stability, $13 initial difficulty.
-- One expression without FROM, so that PostgreSQL inlines it into the caller.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION helix_fsrs_retention(float8, float8, timestamptz, timestamptz, timestamptz, timestamptz,
    float8, float8, float8, float8, float8, float8, float8) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT power(1 + $8 * greatest(date_part('epoch', $6 - CASE WHEN $5 > coalesce($3, $4) AND $5 <= $6 THEN $5 ELSE coalesce($3, $4) END), 0)
                 / 86400
                 / CASE WHEN $5 > coalesce($3, $4) AND $5 <= $6
                        THEN coalesce($1, $12) * (1 + $9 * (11 - coalesce($2, $13)) * power(coalesce($1, $12), -$10)
                             * (exp($11 * (1 - power(1 + $8 * greatest(date_part('epoch', $5 - coalesce($3, $4)), 0) / 86400 / coalesce($1, $12), $7))) - 1))
                        ELSE coalesce($1, $12) END,
                 $7)
$$;
-- +goose StatementEnd

-- A layer's retention at $7 under model $1 (param $2, fsrs decay $3 and factor
-- $4), stability override $5, last updated at $6; the same capped exponents as
-- `helix decay run`. One expression, inlined like helix_fsrs_retention.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION helix_layer_retention(text, float8, float8, float8, float8, timestamptz, timestamptz) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE $1
        WHEN 'exponential' THEN power(0.5::float8, least(greatest(date_part('epoch', $7 - $6), 0) / 3600 / coalesce($5, $2), 1000))
        WHEN 'ebbinghaus' THEN exp(greatest(-(greatest(date_part('epoch', $7 - $6), 0) / 3600) / coalesce($5, $2), -700))
        WHEN 'power' THEN power(1 + greatest(date_part('epoch', $7 - $6), 0) / 3600, -coalesce($5, $2))
        ELSE power(1 + $4 * (greatest(date_part('epoch', $7 - $6), 0) / 3600) / coalesce($5, $2), $3) END
$$;
-- +goose StatementEnd

-- helix_retention(m) / helix_retention(m, at): a memory's or a layer's current
-- retention, whatever the nightly run skipped:
--   SELECT id, helix_retention(m) FROM memories m WHERE user_id = $1;
--   SELECT layer_number, helix_retention(l) FROM psychology_layers l WHERE user_id = $1;
-- SECURITY DEFINER so that API roles, who cannot read helix_decay_model, get
-- the parameters; they only ever pass rows they can already see. Every name
-- is schema-qualified (pg_catalog is searched first) instead of a SET
-- search_path, which would cost a configuration change per call (12x slower).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION helix_retention(m memories, at timestamptz DEFAULT now()) RETURNS float8
LANGUAGE sql STABLE SECURITY DEFINER AS $$
    SELECT public.helix_fsrs_retention(m.stability, m.difficulty, m.reviewed_at, m.created_at, m.last_accessed, at,
                                       p.memory_decay, p.memory_factor, p.exp_w8, p.w9, p.w10, p.s0, p.d0)
    FROM public.helix_decay_model p
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION helix_retention(l psychology_layers, at timestamptz DEFAULT now()) RETURNS float8
LANGUAGE sql STABLE SECURITY DEFINER AS $$
    SELECT public.helix_layer_retention(p.layer_kinds[l.layer_number], p.layer_params[l.layer_number],
                                        p.layer_decays[l.layer_number], p.layer_factors[l.layer_number],
                                        l.stability, l.last_updated, at)
    FROM public.helix_decay_model p
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION IF EXISTS helix_retention(psychology_layers, timestamptz);
DROP FUNCTION IF EXISTS helix_retention(memories, timestamptz);
DROP FUNCTION IF EXISTS helix_layer_retention(text, float8, float8, float8, float8, timestamptz, timestamptz);
DROP FUNCTION IF EXISTS helix_fsrs_retention(float8, float8, timestamptz, timestamptz, timestamptz, timestamptz,
    float8, float8, float8, float8, float8, float8, float8);
DROP TABLE IF EXISTS helix_decay_state;
DROP TABLE IF EXISTS helix_decay_model;
DROP INDEX IF EXISTS psychology_layers_last_updated_idx;
DROP INDEX IF EXISTS psychology_layers_undecayed_idx;
DROP INDEX IF EXISTS psychology_layers_forget_at_idx;
DROP INDEX IF EXISTS memories_last_accessed_idx;
DROP INDEX IF EXISTS memories_undecayed_idx;
DROP INDEX IF EXISTS memories_forget_at_idx;
ALTER TABLE psychology_layers DROP COLUMN IF EXISTS decay_basis, DROP COLUMN IF EXISTS forget_at;
ALTER TABLE memories DROP COLUMN IF EXISTS forget_at;
