-- +goose Up
-- sync reconcile claims pending changes one bucket of entities at a time
-- (issue 20): a bucket is a hash of the entity (user and id) mod 64, and a
-- reconciler holds a transaction-level advisory lock on the bucket it works
-- in, so that two reconcilers never take changes of one entity and never wait
-- on each other's state rows. Within a bucket a run walks this index from a
-- cursor (entity, id) instead of from its start, which would step over every
-- entry the run has already processed and the vacuum has not yet removed.
-- The expression must stay equal to internal/syncer's bucketExpr.
CREATE INDEX sync_changes_bucket_idx ON sync_changes
    (((hashtext(entity_id) # uuid_hash(user_id)) & 63), entity_type, user_id, entity_id, id)
    WHERE processed_at IS NULL;
-- It serves what the old index served (status, filtered runs): one partial
-- index less to maintain on every enqueued change.
DROP INDEX sync_changes_pending_idx;

-- +goose Down
CREATE INDEX sync_changes_pending_idx ON sync_changes (entity_type, user_id, entity_id, id) WHERE processed_at IS NULL;
DROP INDEX sync_changes_bucket_idx;
