-- A database shaped like the platform's Supabase project before helix is
-- installed (shared/platform/README.md): Supabase's roles, auth schema and
-- default privileges, and the platform's own tables with rows in them.
-- pgvector is not installable here, so embedding is real[]; helix reads
-- embedding::real[], which works for vector(1536) as well.
-- Roles are cluster-wide: created once, reused by every fixture database.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN
        CREATE ROLE anon NOLOGIN NOINHERIT;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
        CREATE ROLE authenticated NOLOGIN NOINHERIT;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
        CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticator') THEN
        CREATE ROLE authenticator LOGIN NOINHERIT;
    END IF;
END
$$;
GRANT anon, authenticated, service_role TO authenticator;
ALTER ROLE anon SET statement_timeout = '3s';
ALTER ROLE authenticated SET statement_timeout = '8s';

CREATE SCHEMA extensions;
CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA extensions;
CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA extensions;

CREATE SCHEMA auth;
CREATE TABLE auth.users (
    id         uuid PRIMARY KEY,
    email      text,
    created_at timestamptz DEFAULT now()
);
CREATE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE AS $$
    SELECT coalesce(
        nullif(current_setting('request.jwt.claim.sub', true), ''),
        nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'
    )::uuid
$$;
CREATE FUNCTION auth.role() RETURNS text LANGUAGE sql STABLE AS $$
    SELECT coalesce(
        nullif(current_setting('request.jwt.claim.role', true), ''),
        nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role'
    )
$$;
GRANT USAGE ON SCHEMA auth, extensions TO anon, authenticated, service_role;
GRANT USAGE ON SCHEMA public TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON FUNCTIONS TO anon, authenticated, service_role;

-- The platform's tables, column by column as its design documents give them.
CREATE TABLE memories (
    id                uuid PRIMARY KEY DEFAULT extensions.uuid_generate_v4(),
    user_id           uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    type              text,
    content           text,
    embedding         real[],
    emotional_valence float,
    created_at        timestamp DEFAULT now(),
    last_accessed     timestamp
);
CREATE TABLE memory_synthesis (
    id                uuid PRIMARY KEY DEFAULT extensions.uuid_generate_v4(),
    user_id           uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    pattern_type      text,
    memory_ids        uuid[],
    synthesis_content text,
    confidence_score  float,
    created_at        timestamp DEFAULT now()
);
CREATE TABLE psychology_layers (
    id           uuid PRIMARY KEY DEFAULT extensions.uuid_generate_v4(),
    user_id      uuid REFERENCES auth.users (id) ON DELETE CASCADE,
    layer_number int CHECK (layer_number BETWEEN 1 AND 7),
    layer_name   text,
    data         jsonb,
    decay_rate   float,
    last_updated timestamptz DEFAULT now()
);
CREATE TABLE skills (
    id            uuid PRIMARY KEY DEFAULT extensions.uuid_generate_v4(),
    name          text,
    description   text,
    wasm_bytecode bytea,
    created_at    timestamptz DEFAULT now()
);
CREATE TABLE voice_recordings (
    id         uuid PRIMARY KEY DEFAULT extensions.uuid_generate_v4(),
    user_id    uuid REFERENCES auth.users (id) ON DELETE CASCADE,
    transcript text,
    audio_data bytea,
    created_at timestamptz DEFAULT now()
);
CREATE TABLE custom_tools (
    id              uuid PRIMARY KEY DEFAULT extensions.uuid_generate_v4(),
    user_id         uuid REFERENCES auth.users (id) ON DELETE CASCADE,
    name            text,
    code            text,
    parameters      jsonb,
    capabilities    text[],
    sandbox_profile text,
    version         text,
    usage_count     int DEFAULT 0,
    enabled         boolean DEFAULT true
);
CREATE TABLE composite_skills (
    id      uuid PRIMARY KEY DEFAULT extensions.uuid_generate_v4(),
    user_id uuid REFERENCES auth.users (id) ON DELETE CASCADE,
    name    text,
    steps   jsonb,
    version text,
    enabled boolean DEFAULT true
);
CREATE TABLE memory_patterns (
    id           uuid PRIMARY KEY DEFAULT extensions.uuid_generate_v4(),
    user_id      uuid REFERENCES auth.users (id) ON DELETE CASCADE,
    pattern_type text,
    content      jsonb,
    confidence   float,
    evidence     text[],
    created_at   timestamp DEFAULT now()
);
-- The platform's own row-level security on its user tables.
ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
CREATE POLICY "own memories" ON memories FOR ALL TO authenticated USING (auth.uid() = user_id);
ALTER TABLE custom_tools ENABLE ROW LEVEL SECURITY;
CREATE POLICY "own tools" ON custom_tools FOR ALL TO authenticated USING (auth.uid() = user_id);
ALTER TABLE composite_skills ENABLE ROW LEVEL SECURITY;
CREATE POLICY "own composites" ON composite_skills FOR ALL TO authenticated USING (auth.uid() = user_id);

-- Rows: two users with memories of every shape the platform writes.
INSERT INTO auth.users (id, email) VALUES
    ('a0000000-0000-4000-8000-000000000001', 'a@example.com'),
    ('b0000000-0000-4000-8000-000000000002', 'b@example.com');
-- 60 memories each: NULL content, NULL valence and NULL embedding here and
-- there, a run of 384-dim embeddings beside the 1,536-dim ones, and an
-- unknown type (an old app wrote it before the CHECK existed).
INSERT INTO memories (user_id, type, content, embedding, emotional_valence, created_at, last_accessed)
SELECT u.id,
       (ARRAY['episodic', 'semantic', 'procedural'])[1 + i % 3],
       CASE WHEN i % 17 = 0 THEN NULL ELSE format('memory %s of %s: %s', i, u.email,
            (ARRAY['walked the dog in the park', 'argued with my sister about money', 'finished the quarterly report',
                   'slept badly, worried about work', 'dinner with friends, laughed a lot'])[1 + i % 5]) END,
       CASE WHEN i % 13 = 0 THEN NULL
            WHEN i % 29 = 0 THEN (SELECT array_agg(sin(i * 0.7 + k)::real) FROM generate_series(1, 384) k)
            ELSE (SELECT array_agg((sin((i % 5) * 1.3 + k * 0.01) + 0.01 * cos(i + k))::real) FROM generate_series(1, 1536) k) END,
       CASE WHEN i % 11 = 0 THEN NULL ELSE round(sin(i)::numeric, 3)::float END,
       timestamp '2026-09-01 08:00' + i * interval '9 hours',
       CASE WHEN i % 4 = 0 THEN timestamp '2026-11-01 12:00' END
FROM auth.users u, generate_series(1, 60) i;
UPDATE memories SET type = 'reflective' WHERE content LIKE 'memory 7 of %';
ALTER TABLE memories ADD CONSTRAINT memories_type_check
    CHECK (type IN ('episodic', 'semantic', 'procedural')) NOT VALID;
-- Another writer's synthesis (the platform's own LLM synthesis).
INSERT INTO memory_synthesis (user_id, pattern_type, memory_ids, synthesis_content, confidence_score, created_at)
SELECT u.id, 'emotional_patterns', ARRAY(SELECT id FROM memories m WHERE m.user_id = u.id ORDER BY created_at LIMIT 3),
       'platform LLM: weekend dinners lift your mood', 0.71, timestamp '2026-10-01 00:00'
FROM auth.users u;
INSERT INTO psychology_layers (user_id, layer_number, layer_name, data, decay_rate, last_updated)
SELECT u.id, n, (ARRAY['core', 'values', 'beliefs', 'emotions', 'habits', 'goals', 'context'])[n], '{}', 0.05 * n,
       timestamptz '2026-10-01 00:00Z'
FROM auth.users u, generate_series(1, 7) n;
INSERT INTO voice_recordings (user_id, transcript, created_at)
SELECT id, 'a transcript the app wrote itself', timestamptz '2026-10-02 00:00Z' FROM auth.users;
INSERT INTO custom_tools (user_id, name, code, parameters, capabilities, sandbox_profile, version)
SELECT id, 'weather', 'return 1', '{"type":"object"}', '{network}', 'default', '1' FROM auth.users;
INSERT INTO composite_skills (user_id, name, steps, version)
SELECT id, 'morning', '[{"stepId":"a","toolName":"weather"}]', '1' FROM auth.users;
INSERT INTO memory_patterns (user_id, pattern_type, content, confidence, evidence)
SELECT id, 'narrative_themes', '{"theme":"platform-written"}', 0.5, '{}' FROM auth.users;
