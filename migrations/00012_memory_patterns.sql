-- +goose Up
-- memory_patterns is a platform table (LLM-found patterns the apps show). On the
-- platform's database it exists already and is adopted as it is; helix creates it
-- (in the platform's shape, with row-level security) only on a database without it.
-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('public.memory_patterns') IS NULL THEN
        CREATE TABLE memory_patterns (
            id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
            user_id      uuid NOT NULL,
            pattern_type text NOT NULL,
            content      jsonb NOT NULL DEFAULT '{}',
            confidence   double precision,
            evidence     text[] NOT NULL DEFAULT '{}',
            created_at   timestamptz NOT NULL DEFAULT now()
        );
        PERFORM helix_secure_table('memory_patterns', 'user_id');
    END IF;
END
$$;
-- +goose StatementEnd
CREATE INDEX IF NOT EXISTS memory_patterns_user_type_idx ON memory_patterns (user_id, pattern_type);

-- +goose Down
-- Uninstall (00040's columns stay, so this is the last step that still knows
-- helix's rows): the patterns helix wrote go; the platform's own stay.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
               AND table_name = 'memory_patterns' AND column_name = 'generator') THEN
        DELETE FROM memory_patterns WHERE generator = 'helix';
    END IF;
END
$$;
-- +goose StatementEnd
DROP INDEX IF EXISTS memory_patterns_user_type_idx;
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM helix_tables WHERE name = 'memory_patterns') THEN
        DROP TABLE memory_patterns;
        DELETE FROM helix_tables WHERE name = 'memory_patterns';
    END IF;
END
$$;
-- +goose StatementEnd
