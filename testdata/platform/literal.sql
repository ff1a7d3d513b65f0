-- The platform's tables exactly as shared/platform/README.md gives them, and
-- nothing more: no defaults, no foreign keys, no triggers, a primary key only
-- where the document names one, row-level security only where it says so.
-- Every value a writer needs it must supply itself, ids included.
-- pgvector is not installable here, so embedding is real[]; helix reads
-- embedding::real[], which works for vector(1536) as well.
CREATE TABLE memories (
    id                uuid PRIMARY KEY,
    user_id           uuid NOT NULL,
    type              text,
    content           text,
    embedding         real[],
    emotional_valence float,
    created_at        timestamp,
    last_accessed     timestamp
);
CREATE TABLE memory_synthesis (
    id                uuid PRIMARY KEY,
    user_id           uuid NOT NULL,
    pattern_type      text,
    memory_ids        uuid[],
    synthesis_content text,
    confidence_score  float,
    created_at        timestamp
);
CREATE TABLE psychology_layers (
    id           uuid,
    user_id      uuid,
    layer_number int,
    layer_name   text,
    data         jsonb,
    decay_rate   float,
    last_updated timestamptz
);
CREATE TABLE skills (
    id            uuid,
    name          text,
    description   text,
    wasm_bytecode bytea,
    created_at    timestamptz
);
CREATE TABLE voice_recordings (
    id         uuid,
    user_id    uuid,
    transcript text,
    audio_data bytea,
    created_at timestamptz
);
CREATE TABLE custom_tools (
    id              uuid,
    user_id         uuid,
    name            text,
    code            text,
    parameters      jsonb,
    capabilities    text[],
    sandbox_profile text,
    version         text,
    usage_count     int,
    enabled         boolean
);
CREATE TABLE composite_skills (
    id      uuid,
    user_id uuid,
    name    text,
    steps   jsonb,
    version text,
    enabled boolean
);
CREATE TABLE memory_patterns (
    id           uuid,
    user_id      uuid,
    pattern_type text,
    content      jsonb,
    confidence   float,
    evidence     text[],
    created_at   timestamp
);
-- "user_id (row-level security enforced)"
ALTER TABLE custom_tools ENABLE ROW LEVEL SECURITY;
CREATE POLICY "own tools" ON custom_tools FOR ALL TO authenticated USING (auth.uid() = user_id);
ALTER TABLE composite_skills ENABLE ROW LEVEL SECURITY;
CREATE POLICY "own composites" ON composite_skills FOR ALL TO authenticated USING (auth.uid() = user_id);
