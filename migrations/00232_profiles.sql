-- +goose Up
-- Issue 45: one profile per user, kept current by `helix profile update`:
-- the integrated summary (the latest full_synthesis), the top lineages with
-- their status and age, the open recommendations (profile, jsonb; its shape is
-- in README). basis is a digest of the user's lineages and recommendations
-- when the profile was built: an update whose digest is unchanged calls no
-- model and writes nothing. A signed-in user reads their own; only helix writes.
CREATE TABLE helix_profiles (
    user_id    uuid PRIMARY KEY,
    profile    jsonb       NOT NULL,
    basis      text        NOT NULL,
    model      text,
    cost_usd   double precision NOT NULL DEFAULT 0,
    job_run_id bigint,
    updated_at timestamptz NOT NULL
);
SELECT helix_audit_table('helix_profiles', 'user_id');

-- +goose Down
DROP TABLE helix_profiles;
DELETE FROM helix_tables WHERE name = 'helix_profiles';
