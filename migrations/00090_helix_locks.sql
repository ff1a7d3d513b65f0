-- +goose Up
-- helix's locks (issue 28): leases with a holder, a heartbeat and an expiry,
-- the one lock mechanism that is safe through a transaction pooler and dies
-- with its holder (internal/db/lock.go). `helix migrate` creates this table
-- itself before its first migration (it locks migrations in it); this
-- migration makes it an ordinary helix table.
CREATE UNLOGGED TABLE IF NOT EXISTS helix_locks (
    name        text PRIMARY KEY,
    token       text NOT NULL,
    holder      text NOT NULL,
    acquired_at timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS helix_locks_token_idx ON helix_locks (token);
SELECT helix_secure_table('helix_locks', NULL);

-- +goose Down
DELETE FROM helix_tables WHERE name = 'helix_locks';
DROP TABLE helix_locks;
