-- issue 48: queue figures that are right at any shape. One index on River's
-- job table, helix's own, so a scrape counts jobs by (state, queue, kind)
-- with index-only scans instead of sampling the table: the distinct groups
-- by a skip scan (one index probe each), each group counted exactly up to a
-- cap, and a larger one estimated from probes along its ids
-- (internal/queuestats). River's indexes lack kind: river_job_kind has no
-- state, river_job_prioritized_fetching_index no kind.
--
-- River's migrations (through v0.51.1, the version helix pins) create no
-- index of this name and alter no column it covers; db.Migrator applies
-- this migration after River's (river_job must exist), and `helix migrate
-- down` drops it. CONCURRENTLY: building it on a production river_job of
-- millions of rows does not block River's writes (about a minute at
-- 5,000,000 rows on a loaded 2-core machine; 248 MB at 5,000,000 rows).

-- +goose NO TRANSACTION
-- +goose Up
CREATE INDEX CONCURRENTLY IF NOT EXISTS helix_river_job_counts ON river_job (state, queue, kind, id);

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS helix_river_job_counts;
