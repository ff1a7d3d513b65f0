-- +goose Up
-- helix synthesize --all-users recomputes only users whose memories changed
-- since their last synthesis (issue 15). The platform's memories table has no
-- updated_at, so the change detector is a digest: per user, the count and the
-- sum of a 64-bit hash of every memory's (id, content, embedding, valence,
-- created_at), computed set-based in one scan. An insert, a delete or an edit
-- of any of those columns changes it. settings holds the analysis parameters
-- the synthesis was computed with: other parameters mean recompute.
CREATE TABLE IF NOT EXISTS helix_synthesis_state (
    user_id        uuid PRIMARY KEY,
    settings       text NOT NULL,
    memories       bigint NOT NULL,
    digest         numeric NOT NULL,
    job_run_id     bigint,
    synthesized_at timestamptz NOT NULL DEFAULT now()
);
SELECT helix_secure_table('helix_synthesis_state', NULL);

-- +goose Down
DROP TABLE IF EXISTS helix_synthesis_state;
