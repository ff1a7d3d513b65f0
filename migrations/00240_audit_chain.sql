-- +goose Up
-- Issue 46: the audit tables are evidence. Every finished row carries
-- chain_seq (its place in its table's chain, 1, 2, 3, …) and chain_hash =
-- sha256(previous row's chain_hash || sha256(the row's canonical content)),
-- the first row's previous hash being sha256('helix audit chain ' || table).
-- A changed row no longer matches its hash, a deleted one leaves a gap in
-- chain_seq, a row written past the chain has none; `helix audit verify`
-- recomputes it and `helix audit anchor` prints the heads to keep elsewhere,
-- so that even a rewrite of the newest rows and the head is found.
--
-- The chain is appended by a trigger, inside the writing transaction: the
-- table's row of helix_audit_chains is locked FOR UPDATE until that
-- transaction ends, which serialises the appends of one table (and only the
-- append: the work the row records is done before it is written), and a
-- rolled-back write rolls back its link. chain_seq order is commit order.
-- helix_audit_chains keeps each chain's head (seq, hash), so that deleting
-- the newest rows is found too.
--
-- A row's canonical content is PostgreSQL's own text of the row as jsonb
-- (keys sorted, one spacing), with NULL values left out (so a later
-- nullable column does not change old rows: add columns to an audit table
-- nullable and without a default), without the chain columns and without
-- the registry links a registry removal sets to NULL (the row keeps the
-- item's name, version and hash). It is made under fixed settings (UTC,
-- shortest exact floats, hex bytea), whatever the session's.
CREATE TABLE helix_audit_chains (
    tbl            text PRIMARY KEY,
    seq            bigint NOT NULL DEFAULT 0,
    head           bytea  NOT NULL,
    time_column    text   NOT NULL,        -- for audit verify --since
    volatile       text[] NOT NULL DEFAULT '{}',
    pending_column text,                   -- a row whose pending_column is pending_value
    pending_value  text                    -- is not finished yet: chained when it is
);
SELECT helix_secure_table('helix_audit_chains', NULL);

INSERT INTO helix_audit_chains (tbl, head, time_column, volatile, pending_column, pending_value)
SELECT t, sha256(convert_to('helix audit chain ' || t, 'UTF8')), tc, v, pc, pv
FROM (VALUES
    ('tool_executions',            'started_at', ARRAY['tool_id'],            NULL,     NULL),
    ('skill_executions',           'started_at', ARRAY['skill_id'],           NULL,     NULL),
    ('composite_skill_executions', 'started_at', ARRAY['composite_skill_id'], 'status', 'running'),
    ('tool_audit',                 'at',         ARRAY[]::text[],             NULL,     NULL),
    ('helix_llm_usage',            'created_at', ARRAY[]::text[],             NULL,     NULL),
    ('helix_memory_search_calls',  'started_at', ARRAY[]::text[],             NULL,     NULL)
) AS c (t, tc, v, pc, pv);

-- +goose StatementBegin
CREATE FUNCTION helix_audit_digest(r anyelement, volatile text[]) RETURNS bytea
LANGUAGE sql STABLE
SET TimeZone = 'UTC' SET extra_float_digits = 1 SET bytea_output = 'hex' SET IntervalStyle = 'postgres'
AS $$
    SELECT sha256(convert_to(jsonb_strip_nulls(to_jsonb(r) - volatile - 'chain_seq' - 'chain_hash')::text, 'UTF8'))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION helix_audit_chain_append() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    vol  text[];
    seq  bigint;
    head bytea;
BEGIN
    -- A chained row stays as it was written: a later change is what verify finds.
    IF TG_OP = 'UPDATE' AND OLD.chain_hash IS NOT NULL THEN
        RETURN NEW;
    END IF;
    -- TG_ARGV: the pending column and value (composite runs: status 'running'),
    -- checked before taking the chain's lock.
    IF TG_NARGS = 2 AND to_jsonb(NEW) ->> TG_ARGV[0] = TG_ARGV[1] THEN
        NEW.chain_seq := NULL;
        NEW.chain_hash := NULL;
        RETURN NEW;
    END IF;
    -- The lock, held to the end of the transaction. The link before is the
    -- table's last chained row, read after the lock is held (a new snapshot
    -- in READ COMMITTED; in REPEATABLE READ a concurrent append makes the
    -- lock fail to serialise, never a fork). The head row is written once
    -- per statement (helix_audit_chain_head): rewriting it for every row would
    -- make a transaction of n rows cost n² in that row's versions.
    SELECT volatile INTO vol FROM helix_audit_chains WHERE tbl = TG_TABLE_NAME FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'helix_audit_chains has no chain for %', TG_TABLE_NAME;
    END IF;
    EXECUTE format('SELECT chain_seq, chain_hash FROM %I WHERE chain_seq IS NOT NULL ORDER BY chain_seq DESC LIMIT 1', TG_TABLE_NAME)
        INTO seq, head;
    IF seq IS NULL THEN
        SELECT 0, sha256(convert_to('helix audit chain ' || TG_TABLE_NAME, 'UTF8')) INTO seq, head;
    END IF;
    NEW.chain_seq := seq + 1;
    NEW.chain_hash := sha256(head || helix_audit_digest(NEW, vol));
    RETURN NEW;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION helix_audit_chain_head() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('UPDATE helix_audit_chains c SET seq = l.chain_seq, head = l.chain_hash
        FROM (SELECT chain_seq, chain_hash FROM %I WHERE chain_seq IS NOT NULL ORDER BY chain_seq DESC LIMIT 1) l
        WHERE c.tbl = $1 AND c.seq IS DISTINCT FROM l.chain_seq', TG_TABLE_NAME) USING TG_TABLE_NAME;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    c   helix_audit_chains%ROWTYPE;
    r   record;
    h   bytea;
    s   bigint;
BEGIN
    FOR c IN SELECT * FROM helix_audit_chains ORDER BY tbl LOOP
        EXECUTE format('ALTER TABLE %I ADD COLUMN chain_seq bigint, ADD COLUMN chain_hash bytea', c.tbl);
        EXECUTE format('CREATE UNIQUE INDEX %I ON %I (chain_seq)', c.tbl || '_chain_idx', c.tbl);
        -- The rows already there are chained in id order, as if appended now.
        h := c.head;
        s := 0;
        FOR r IN EXECUTE format('SELECT x.id, helix_audit_digest(x, $1) AS d FROM %I x WHERE %s ORDER BY x.id', c.tbl,
                                CASE WHEN c.pending_column IS NULL THEN 'true'
                                     ELSE format('%I IS DISTINCT FROM %L', c.pending_column, c.pending_value) END)
                 USING c.volatile LOOP
            s := s + 1;
            h := sha256(h || r.d);
            EXECUTE format('UPDATE %I SET chain_seq = $1, chain_hash = $2 WHERE id = $3', c.tbl) USING s, h, r.id;
        END LOOP;
        UPDATE helix_audit_chains SET seq = s, head = h WHERE tbl = c.tbl;
        EXECUTE format('CREATE TRIGGER helix_audit_chain BEFORE INSERT OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION helix_audit_chain_append(%s)',
                       c.tbl, CASE WHEN c.pending_column IS NULL THEN '' ELSE format('%L, %L', c.pending_column, c.pending_value) END);
        EXECUTE format('CREATE TRIGGER helix_audit_chain_head AFTER INSERT OR UPDATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION helix_audit_chain_head()', c.tbl);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT tbl FROM helix_audit_chains LOOP
        EXECUTE format('DROP TRIGGER IF EXISTS helix_audit_chain ON %I', t);
        EXECUTE format('DROP TRIGGER IF EXISTS helix_audit_chain_head ON %I', t);
        EXECUTE format('ALTER TABLE %I DROP COLUMN IF EXISTS chain_seq, DROP COLUMN IF EXISTS chain_hash', t);
    END LOOP;
END
$$;
-- +goose StatementEnd
DROP FUNCTION helix_audit_chain_head();
DROP FUNCTION helix_audit_chain_append();
DROP FUNCTION helix_audit_digest(anyelement, text[]);
DELETE FROM helix_tables WHERE name = 'helix_audit_chains';
DROP TABLE helix_audit_chains;
