-- +goose Up
-- FSRS-6 as its reference implementation computes it (issue 33): a stability
-- capped at S_MAX = 36,500 days, the short-term stability of a review on the
-- previous review's UTC day, and the difficulty's mean reversion on every
-- review (the last is in the stored difficulty column, which `helix decay run`
-- writes). helix_retention folds a pending access in the same way.

-- The short-term stability's parameters: e^(w17·w18) and w19.
ALTER TABLE helix_decay_model
    ADD COLUMN IF NOT EXISTS short_term double precision NOT NULL DEFAULT exp(0.5425::float8 * 0.0912),
    ADD COLUMN IF NOT EXISTS w19        double precision NOT NULL DEFAULT 0.0658;

-- FSRS-6 retention of a memory at $6 from its state, folding in an access
-- newer than the one in its stability exactly as `helix decay run` does
-- (internal/decay.FSRSParams.Advance). $1 stability, $2 difficulty,
-- $3 reviewed_at, $4 created_at, $5 last_accessed, $6 at, $7 decay, $8 factor,
-- $9 e^w8, $10 w9, $11 w10, $12 initial stability, $13 initial difficulty,
-- $14 e^(w17·w18), $15 w19. One expression without FROM, so that PostgreSQL
-- inlines it into the caller.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION helix_fsrs6_retention(float8, float8, timestamptz, timestamptz, timestamptz, timestamptz,
    float8, float8, float8, float8, float8, float8, float8, float8, float8) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT power(1 + $8 * greatest(date_part('epoch', $6 - CASE WHEN $5 > coalesce($3, $4) AND $5 <= $6 THEN $5 ELSE coalesce($3, $4) END), 0) / 86400
                 / CASE WHEN $5 > coalesce($3, $4) AND $5 <= $6
                 THEN CASE WHEN ($5 AT TIME ZONE 'UTC')::date = (coalesce($3, $4) AT TIME ZONE 'UTC')::date
                           THEN least(greatest((CASE WHEN $1 > 0 THEN least($1, 36500::float8) ELSE $12 END) * greatest(power(CASE WHEN $1 > 0 THEN least($1, 36500::float8) ELSE $12 END, -$15) * $14, 1), 0.001::float8), 36500::float8)
                           ELSE least(greatest((CASE WHEN $1 > 0 THEN least($1, 36500::float8) ELSE $12 END) * (1 + $9 * (11 - (CASE WHEN $2 > 0 THEN least(greatest($2, 1), 10) ELSE $13 END)) * power(CASE WHEN $1 > 0 THEN least($1, 36500::float8) ELSE $12 END, -$10) * (exp($11 * (1 - power(1 + $8 * greatest(date_part('epoch', $5 - coalesce($3, $4)), 0) / 86400 / (CASE WHEN $1 > 0 THEN least($1, 36500::float8) ELSE $12 END), $7))) - 1)), 0.001::float8), 36500::float8) END
                 ELSE CASE WHEN $1 > 0 THEN least($1, 36500::float8) ELSE $12 END END,
                 $7)
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION helix_retention(m memories, at timestamptz DEFAULT now()) RETURNS float8
LANGUAGE sql STABLE SECURITY DEFINER AS $$
    SELECT public.helix_fsrs6_retention(m.stability, m.difficulty, m.reviewed_at, m.created_at, m.last_accessed, at,
                                        p.memory_decay, p.memory_factor, p.exp_w8, p.w9, p.w10, p.s0, p.d0, p.short_term, p.w19)
    FROM public.helix_decay_model p
$$;
-- +goose StatementEnd

DROP FUNCTION IF EXISTS helix_fsrs_retention(float8, float8, timestamptz, timestamptz, timestamptz, timestamptz,
    float8, float8, float8, float8, float8, float8, float8);

-- +goose Down
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION helix_retention(m memories, at timestamptz DEFAULT now()) RETURNS float8
LANGUAGE sql STABLE SECURITY DEFINER AS $$
    SELECT public.helix_fsrs_retention(m.stability, m.difficulty, m.reviewed_at, m.created_at, m.last_accessed, at,
                                       p.memory_decay, p.memory_factor, p.exp_w8, p.w9, p.w10, p.s0, p.d0)
    FROM public.helix_decay_model p
$$;
-- +goose StatementEnd

DROP FUNCTION IF EXISTS helix_fsrs6_retention(float8, float8, timestamptz, timestamptz, timestamptz, timestamptz,
    float8, float8, float8, float8, float8, float8, float8, float8, float8);
ALTER TABLE helix_decay_model DROP COLUMN IF EXISTS w19, DROP COLUMN IF EXISTS short_term;
