-- +goose Up
-- decay run's incremental mode collects the rows it will recompute before
-- recomputing them in committed chunks (issue 28). It kept them in a
-- temporary table, which a transaction pooler loses between transactions;
-- this table works on every connection path. Only the run holding the
-- decay lock uses it, and it empties it before and after.
CREATE UNLOGGED TABLE helix_decay_due (
    tbl text NOT NULL,
    id  uuid NOT NULL,
    PRIMARY KEY (tbl, id)
);
SELECT helix_secure_table('helix_decay_due', NULL);

-- +goose Down
DELETE FROM helix_tables WHERE name = 'helix_decay_due';
DROP TABLE helix_decay_due;
