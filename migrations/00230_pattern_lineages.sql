-- +goose Up
-- Issue 45: patterns that live over time. A lineage is one pattern followed
-- across runs: each run's patterns (memory_synthesis for the statistical
-- kinds, memory_patterns for the language-model types) are matched one to
-- one to the previous run's live lineages of the same user, source and kind
-- by their member memories (internal/lineage; the rule is in README, "Patterns
-- over time and profiles"). A matched pattern carries its lineage on; an
-- unmatched one starts a new lineage; a lineage left unmatched is ended and
-- kept, so history stays readable. pattern_id is the lineage's row of the
-- latest run (NULL once ended): the members of the previous sighting are
-- read through it, not copied here.
--
-- Written only by helix, in the transaction that writes the patterns; a
-- signed-in user reads their own lineages and changes none (helix_audit_table).
CREATE TABLE helix_pattern_lineages (
    id            uuid PRIMARY KEY,
    user_id       uuid        NOT NULL,
    source        text        NOT NULL CHECK (source IN ('statistical', 'llm')),
    kind          text        NOT NULL,  -- memory_synthesis.pattern_type or memory_patterns.pattern_type
    status        text        NOT NULL CHECK (status IN ('new', 'persisting', 'growing', 'shrinking', 'ended')),
    first_seen_at timestamptz NOT NULL,
    last_seen_at  timestamptz NOT NULL,
    runs_seen     integer     NOT NULL CHECK (runs_seen >= 1),
    ended_at      timestamptz,
    pattern_id    uuid,                  -- memory_synthesis.id or memory_patterns.id of the latest sighting
    size          integer     NOT NULL,  -- members (statistical) or evidence (llm) at the latest sighting
    confidence    double precision,
    content       text,                  -- the latest sighting's synthesis_content or title
    window_start  timestamptz,           -- time-window kinds (temporal_burst, emotional_shift)
    window_end    timestamptz,
    job_run_id    bigint,
    updated_at    timestamptz NOT NULL
) WITH (fillfactor = 80);
SELECT helix_audit_table('helix_pattern_lineages', 'user_id');
CREATE INDEX helix_pattern_lineages_live_idx ON helix_pattern_lineages (user_id, source, kind) WHERE status <> 'ended';
-- No index on pattern_id, and room in each page: every run rewrites each live
-- lineage of a changed user (last_seen_at, runs_seen, pattern_id), and an
-- update that changes no indexed column stays on its page without touching an
-- index (HOT). A pattern's lineage is looked up within its user's live
-- lineages, which helix_pattern_lineages_live_idx finds.

-- +goose Down
DROP TABLE helix_pattern_lineages;
DELETE FROM helix_tables WHERE name = 'helix_pattern_lineages';
