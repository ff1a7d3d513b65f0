-- +goose Up
-- decay run's incremental mode reads its due ids into memory, in id order,
-- and updates them through the primary key (issue 37): the staging table of
-- 00091 cost an INSERT, an ANALYZE and two DELETEs a run, and the join from
-- it was planned as a hash join over the whole memories table, twice.
DELETE FROM helix_tables WHERE name = 'helix_decay_due';
DROP TABLE IF EXISTS helix_decay_due;

-- +goose Down
CREATE UNLOGGED TABLE helix_decay_due (
    tbl text NOT NULL,
    id  uuid NOT NULL,
    PRIMARY KEY (tbl, id)
);
SELECT helix_secure_table('helix_decay_due', NULL);
