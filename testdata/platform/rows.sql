-- The platform's rows: two users with memories of every shape the platform
-- writes, and rows of the platform's own writers in every other table. Every
-- value is given (literal.sql has no defaults); ids are derived from the row,
-- so every fixture database holds the same ones.
INSERT INTO auth.users (id, email, created_at) VALUES
    ('a0000000-0000-4000-8000-000000000001', 'a@example.com', '2026-08-01 00:00Z'),
    ('b0000000-0000-4000-8000-000000000002', 'b@example.com', '2026-08-01 00:00Z');
-- 60 memories each: NULL content, NULL valence and NULL embedding here and
-- there, a run of 384-dim embeddings beside the 1,536-dim ones, and an
-- unknown type (an old app wrote it before the CHECK existed).
INSERT INTO memories (id, user_id, type, content, embedding, emotional_valence, created_at, last_accessed)
SELECT md5(u.id || '/memory/' || i)::uuid, u.id,
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
INSERT INTO memory_synthesis (id, user_id, pattern_type, memory_ids, synthesis_content, confidence_score, created_at)
SELECT md5(u.id || '/synthesis')::uuid, u.id, 'emotional_patterns', ARRAY(SELECT id FROM memories m WHERE m.user_id = u.id ORDER BY created_at LIMIT 3),
       'platform LLM: weekend dinners lift your mood', 0.71, timestamp '2026-10-01 00:00'
FROM auth.users u;
INSERT INTO psychology_layers (id, user_id, layer_number, layer_name, data, decay_rate, last_updated)
SELECT md5(u.id || '/layer/' || n)::uuid, u.id, n, (ARRAY['core', 'values', 'beliefs', 'emotions', 'habits', 'goals', 'context'])[n], '{}', 0.05 * n,
       timestamptz '2026-10-01 00:00Z'
FROM auth.users u, generate_series(1, 7) n;
INSERT INTO voice_recordings (id, user_id, transcript, audio_data, created_at)
SELECT md5(id || '/voice')::uuid, id, 'a transcript the app wrote itself', '\x52494646'::bytea, timestamptz '2026-10-02 00:00Z' FROM auth.users;
INSERT INTO custom_tools (id, user_id, name, code, parameters, capabilities, sandbox_profile, version, usage_count, enabled)
SELECT md5(id || '/tool')::uuid, id, 'weather', 'return 1', '{"type":"object"}', '{network}', 'default', '1', 3, true FROM auth.users;
INSERT INTO composite_skills (id, user_id, name, steps, version, enabled)
SELECT md5(id || '/composite')::uuid, id, 'morning', '[{"stepId":"a","toolName":"weather"}]', '1', true FROM auth.users;
INSERT INTO memory_patterns (id, user_id, pattern_type, content, confidence, evidence, created_at)
SELECT md5(id || '/pattern')::uuid, id, 'narrative_themes', '{"theme":"platform-written"}', 0.5, '{}', timestamp '2026-10-03 00:00' FROM auth.users;
-- A skill the platform stores (the skill runner loads wasm_bytecode by id).
INSERT INTO skills (id, name, description, wasm_bytecode, created_at)
VALUES ('5c000000-0000-4000-8000-00000000000e', 'platform-noop', 'a module the platform stores', '\x0061736d01000000', timestamptz '2026-10-04 00:00Z');
