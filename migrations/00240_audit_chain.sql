-- +goose Up
-- Issue 46: the audit tables are evidence. Every finished row carries
-- chain_seq (its place in its table's chain, 1, 2, 3, …) and chain_hash =
-- sha256(previous row's chain_hash || sha256(the row's canonical content)),
-- the first row's previous hash being sha256('helix audit chain ' || table).
-- A changed row no longer matches its hash, a deleted one leaves a gap in
-- chain_seq, a row written past the chain has none; `helix audit verify`
-- recomputes it and `helix audit anchor` prints the heads to keep elsewhere,
-- so that even a deletion or rewrite of the newest rows is found.
--
-- The chain is appended by a trigger, inside the writing transaction, after
-- the work the row records is done. Each table has its own trigger function
-- (generated below: static SQL whose plans a session keeps, the table's
-- constants written in), which
--   1. takes the table's transaction-scoped advisory lock
--      (pg_advisory_xact_lock(1751477368, hashtext(table)), 1751477368 being
--      'helx'), held until the transaction ends: the appends of one table are
--      serialised, and only the append;
--   2. reads the previous link from the table's newest chained row (the
--      chain_seq index), in a snapshot taken after the lock (READ COMMITTED:
--      each statement of a volatile function takes one), so it sees the
--      append that held the lock before it. The function plans without
--      sequential scans: a session keeps the plan, and one made while the
--      table was small (a seq scan and a sort) would make every later append
--      read the whole table;
--   3. writes chain_seq and chain_hash into the row.
-- chain_seq order is commit order, and a rolled-back write rolls back its
-- link. chain_seq is UNIQUE: a fork can only be an error (under REPEATABLE
-- READ, where the snapshot predates the lock, a concurrent append makes the
-- INSERT fail with a unique violation instead of forking the chain). No
-- head is stored beside the chain: the newest row is the head, and deleting
-- the newest rows is proven by an anchor (`helix audit anchor`) kept
-- elsewhere.
--
-- A row's canonical content is PostgreSQL's own text of the row as jsonb
-- (keys sorted, one spacing), with NULL values left out (so a later
-- nullable column does not change old rows: add columns to an audit table
-- nullable and without a default), without the chain columns and without
-- the registry links a registry removal sets to NULL (the row keeps the
-- item's name, version and hash). It is made under fixed settings (UTC,
-- shortest exact floats, hex bytea), whatever the session's: the trigger
-- functions and helix_audit_digest (what verify recomputes) carry the same
-- SET clauses and the same expression.
--
-- The trigger functions carry each chain's settings (volatile columns,
-- pending state) as constants: a later migration that changes a row of
-- helix_audit_chains regenerates that table's function.
--
-- What the append costs is mostly a new session's first use of it (parsing
-- and planning the trigger's statements, loading PL/pgSQL unless the server
-- preloads it, as Supabase does); chain_hash has no statistics, because
-- planning the newest-row read would otherwise detoast its histogram of
-- random hashes from pg_statistic in every new session.
CREATE TABLE helix_audit_chains (
    tbl            text PRIMARY KEY,
    time_column    text   NOT NULL,        -- for audit verify --since
    volatile       text[] NOT NULL DEFAULT '{}',
    pending_column text,                   -- a row whose pending_column is pending_value
    pending_value  text                    -- is not finished yet: chained when it is
);
SELECT helix_secure_table('helix_audit_chains', NULL);

INSERT INTO helix_audit_chains (tbl, time_column, volatile, pending_column, pending_value) VALUES
    ('tool_executions',            'started_at', ARRAY['tool_id'],            NULL,     NULL),
    ('skill_executions',           'started_at', ARRAY['skill_id'],           NULL,     NULL),
    ('composite_skill_executions', 'started_at', ARRAY['composite_skill_id'], 'status', 'running'),
    ('tool_audit',                 'at',         ARRAY[]::text[],             NULL,     NULL),
    ('helix_llm_usage',            'created_at', ARRAY[]::text[],             NULL,     NULL),
    ('helix_memory_search_calls',  'started_at', ARRAY[]::text[],             NULL,     NULL);

-- +goose StatementBegin
CREATE FUNCTION helix_audit_digest(r anyelement, volatile text[]) RETURNS bytea
LANGUAGE sql STABLE
SET TimeZone = 'UTC' SET extra_float_digits = 1 SET bytea_output = 'hex' SET IntervalStyle = 'postgres'
AS $$
    SELECT sha256(convert_to(jsonb_strip_nulls(to_jsonb(r) - (volatile || '{chain_seq,chain_hash}'::text[]))::text, 'UTF8'))
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
        EXECUTE format('ALTER TABLE %I ADD COLUMN chain_seq bigint, ADD COLUMN chain_hash bytea, ALTER COLUMN chain_hash SET STATISTICS 0', c.tbl);
        EXECUTE format('CREATE UNIQUE INDEX %I ON %I (chain_seq)', c.tbl || '_chain_idx', c.tbl);
        -- The rows already there are chained in id order, as if appended now.
        h := sha256(convert_to('helix audit chain ' || c.tbl, 'UTF8'));
        s := 0;
        FOR r IN EXECUTE format('SELECT x.id, helix_audit_digest(x, $1) AS d FROM %I x WHERE %s ORDER BY x.id', c.tbl,
                                CASE WHEN c.pending_column IS NULL THEN 'true'
                                     ELSE format('%I IS DISTINCT FROM %L', c.pending_column, c.pending_value) END)
                 USING c.volatile LOOP
            s := s + 1;
            h := sha256(h || r.d);
            EXECUTE format('UPDATE %I SET chain_seq = $1, chain_hash = $2 WHERE id = $3', c.tbl) USING s, h, r.id;
        END LOOP;
        EXECUTE format($f$
CREATE FUNCTION %1$I() RETURNS trigger
LANGUAGE plpgsql
SET TimeZone = 'UTC' SET extra_float_digits = 1 SET bytea_output = 'hex' SET IntervalStyle = 'postgres'
SET enable_seqscan = off
AS $body$
DECLARE
    locked    text;
    last_seq  bigint;
    last_hash bytea;
BEGIN
    -- a chained row stays as it was written: a later change is what verify finds
    IF TG_OP = 'UPDATE' AND OLD.chain_hash IS NOT NULL THEN
        RETURN NEW;
    END IF;
    %2$s
    -- an assignment, not PERFORM: PL/pgSQL evaluates it without starting an executor
    locked := pg_advisory_xact_lock(1751477368, %3$s);
    SELECT t.chain_seq, t.chain_hash INTO last_seq, last_hash
    FROM %4$I t WHERE t.chain_seq IS NOT NULL ORDER BY t.chain_seq DESC LIMIT 1;
    NEW.chain_seq := coalesce(last_seq, 0) + 1;
    NEW.chain_hash := sha256(coalesce(last_hash, %5$L::bytea)
        || sha256(convert_to(jsonb_strip_nulls(to_jsonb(NEW) - %6$L::text[])::text, 'UTF8')));
    RETURN NEW;
END
$body$
$f$,
            'helix_audit_chain_' || c.tbl,
            CASE WHEN c.pending_column IS NULL THEN '' ELSE format(
                'IF NEW.%I = %L THEN NEW.chain_seq := NULL; NEW.chain_hash := NULL; RETURN NEW; END IF;', c.pending_column, c.pending_value) END,
            hashtext(c.tbl),
            c.tbl,
            sha256(convert_to('helix audit chain ' || c.tbl, 'UTF8')),
            c.volatile || '{chain_seq,chain_hash}'::text[]);
        EXECUTE format('CREATE TRIGGER helix_audit_chain BEFORE INSERT OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION %I()',
                       c.tbl, 'helix_audit_chain_' || c.tbl);
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
        EXECUTE format('DROP FUNCTION IF EXISTS %I()', 'helix_audit_chain_' || t);
        EXECUTE format('ALTER TABLE %I DROP COLUMN IF EXISTS chain_seq, DROP COLUMN IF EXISTS chain_hash', t);
    END LOOP;
END
$$;
-- +goose StatementEnd
DROP FUNCTION helix_audit_digest(anyelement, text[]);
DELETE FROM helix_tables WHERE name = 'helix_audit_chains';
DROP TABLE helix_audit_chains;
