package synthesize

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/llmsynth/llmtest"
)

// TestLLMFullSynthesis: after the statistical run (lineages) and the four
// types, `--llm --types full_synthesis` sends a brief grounded in both and
// stores findings tagged with their layer, the integrated summary and their
// recommendations; every evidence id belongs to the user, a lineage id the
// brief never gave is dropped, and each pattern has an llm lineage. A second
// run with a changed memory carries the lineages on and keeps the stored
// recommendations (one row per lineage and text).
func TestLLMFullSynthesis(t *testing.T) {
	t.Parallel()
	pool := llmDB(t)
	var briefs []string
	srv := llmtest.NewAnthropic(t, anthKey, func(c llmtest.Call) llmtest.Reply {
		ids := llmtest.ShortIDs(c.Body)
		types := llmtest.RequestedTypes(c)
		a := llmtest.Answer(types, ids[0], ids[1], "m999")
		if len(types) == 1 && types[0] == "full_synthesis" {
			briefs = append(briefs, string(c.Body))
			second := a["full_synthesis"].([]any)[0].(map[string]any)
			f := map[string]any{}
			for k, v := range second {
				f[k] = v
			}
			f["title"], f["layer"], f["lineages"] = "a purpose finding", "purpose_engine", []string{"L2", "L77"}
			f["evidence"], f["recommendations"] = []string{ids[2]}, []string{"write down what matters", "notice it"}
			a["full_synthesis"] = append(a["full_synthesis"].([]any), f)
		}
		return llmtest.Reply{Body: llmtest.AnthropicToolUse("record_patterns", a, callUsage)}
	})
	cfg := anthropicConfig(t, srv)
	if _, errOut, err := runLLM(t, pool, cfg, false, "--user-id "+ana); err != nil {
		t.Fatalf("statistical run: %v\n%s", err, errOut)
	}
	if _, errOut, err := runLLM(t, pool, cfg, false, "--llm --user-id "+ana); err != nil {
		t.Fatalf("four types: %v\n%s", err, errOut)
	}
	out, errOut, err := runLLM(t, pool, cfg, true, "--llm --user-id "+ana+" --types full_synthesis")
	if err != nil {
		t.Fatalf("full_synthesis: %v\n%s", err, errOut)
	}
	var rep LLMReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Users) != 1 || rep.Users[0].StoredPatterns != 3 {
		t.Fatalf("report %v: %s", err, out)
	}
	if len(briefs) != 1 || !strings.Contains(briefs[0], "Statistical lineages") || !strings.Contains(briefs[0], "L1 semantic_cluster new since") ||
		!strings.Contains(briefs[0], "emotional_patterns, new since") || !strings.Contains(briefs[0], `"required":["full_synthesis","summary"]`) {
		t.Fatalf("full_synthesis brief not grounded in lineages and the other types:\n%.3000s", briefs)
	}
	// two findings and the summary, each layer-tagged, evidence all the user's own
	if n := count(t, pool, `SELECT count(*) FROM memory_patterns p WHERE generator = 'helix' AND pattern_type = 'full_synthesis'
		AND p.user_id = $1 AND content->>'layer' = ANY ('{emotional_memory,purpose_engine,integrated}') AND cardinality(evidence) > 0
		AND NOT EXISTS (SELECT 1 FROM unnest(p.evidence) e WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = e::uuid AND m.user_id = p.user_id))`, ana); n != 3 {
		t.Fatalf("%d full_synthesis rows layer-tagged with the user's own evidence, want 3", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_patterns WHERE pattern_type = 'full_synthesis' AND content->>'layer' = 'integrated'
		AND content->>'description' LIKE 'A person whose work deadlines%' AND cardinality(evidence) = 3`); n != 1 {
		t.Fatalf("summary rows %d, want 1 citing its findings' 3 memories", n)
	}
	// L2 resolves to a statistical lineage of the user; L77 was never in the brief
	if n := count(t, pool, `SELECT count(*) FROM memory_patterns p, jsonb_array_elements_text(p.content->'lineage_ids') x(id)
		JOIN helix_pattern_lineages l ON l.id = x.id::uuid AND l.source = 'statistical'
		WHERE p.user_id = $1 AND l.user_id = p.user_id AND p.content->>'title' = 'a purpose finding'`, ana); n != 1 {
		t.Fatalf("purpose finding cites %d statistical lineages, want 1 (L77 dropped)", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_patterns p JOIN helix_pattern_lineages l ON l.pattern_id = p.id AND l.source = 'llm'
		WHERE p.generator = 'helix' AND l.status = 'new' AND l.user_id = p.user_id`); n != 7 {
		t.Fatalf("%d helix patterns with a new llm lineage, want 7 (4 types + 3 full_synthesis)", n)
	}
	// recommendations: the four types' (one each) and the findings' (1 + 2); the summary has none
	if n := count(t, pool, `SELECT count(*) FROM helix_recommendations WHERE user_id = $1 AND status = 'open'`, ana); n != 7 {
		t.Fatalf("%d open recommendations, want 7", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM helix_recommendations r JOIN memory_patterns p ON p.id = r.pattern_id
		JOIN helix_pattern_lineages l ON l.id = r.lineage_id AND l.pattern_id = p.id
		WHERE r.pattern_type = 'full_synthesis' AND r.layer = p.content->>'layer'`); n != 3 {
		t.Fatalf("%d full_synthesis recommendations tied to their pattern, lineage and layer, want 3", n)
	}

	// A memory changes: asked again; same evidence, so the same lineages go on and
	// the recommendations are not duplicated.
	if _, err := pool.Exec(t.Context(), `UPDATE memories SET content = content || ' and more' WHERE id = (
		SELECT id FROM memories WHERE user_id = $1 ORDER BY created_at LIMIT 1)`, ana); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := runLLM(t, pool, cfg, false, "--llm --user-id "+ana+" --types full_synthesis"); err != nil {
		t.Fatalf("second full_synthesis: %v\n%s", err, errOut)
	}
	if n := count(t, pool, `SELECT count(*) FROM helix_pattern_lineages WHERE source = 'llm' AND kind LIKE 'full_synthesis/%'
		AND runs_seen = 2 AND status = 'persisting' AND pattern_id IS NOT NULL`); n != 3 {
		t.Fatalf("%d full_synthesis lineages carried on, want 3", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM helix_recommendations WHERE user_id = $1`, ana); n != 7 {
		t.Fatalf("%d recommendations after a second run, want still 7", n)
	}
}
