-- The platform's tables as a Supabase project usually has them: every id
-- with a default, foreign keys to auth.users, created_at defaulting to now()
-- and a CHECK on layer_number. helix must rely on none of it (literal.sql has
-- none); this file keeps the usual shape so both are tested.
-- pgvector is not installable here, so embedding is real[]; helix reads
-- embedding::real[], which works for vector(1536) as well.
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

