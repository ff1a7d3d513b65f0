package llmsynth

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/llmsynth/llmtest"
	"github.com/helixhq/helix/internal/synthesis"
)

func TestParseDropsInventedEvidence(t *testing.T) {
	v, err := NewValidator([]string{EmotionalPatterns, NarrativeThemes})
	if err != nil {
		t.Fatal(err)
	}
	m1, m2 := uuid.New(), uuid.New()
	ids := map[string]uuid.UUID{"m1": m1, "m2": m2}
	a := llmtest.Answer([]string{EmotionalPatterns, NarrativeThemes}, "m1", "m9", "m2", "m1")
	// the narrative theme cites only invented ids: it goes
	a[NarrativeThemes].([]any)[0].(map[string]any)["evidence"] = []string{"m7", "x"}
	raw, _ := json.Marshal(a)
	ps, dropIDs, dropPats, err := v.Parse(raw, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Type != EmotionalPatterns || dropIDs != 3 || dropPats != 1 {
		t.Fatalf("patterns %+v, dropped ids %d, patterns %d", ps, dropIDs, dropPats)
	}
	if len(ps[0].Evidence) != 2 || ps[0].Evidence[0] != m1 || ps[0].Evidence[1] != m2 {
		t.Fatalf("evidence %v", ps[0].Evidence)
	}
	c := ps[0].Content()
	if c["trigger"] != "deadlines" || c["valence"] != "negative" || c["title"] == "" {
		t.Fatalf("content %v", c)
	}
}

func TestParseRejectsInvalid(t *testing.T) {
	v, err := NewValidator([]string{ProspectiveSelf})
	if err != nil {
		t.Fatal(err)
	}
	bad := llmtest.Answer([]string{ProspectiveSelf}, "m1")
	bad[ProspectiveSelf].([]any)[0].(map[string]any)["confidence"] = 1.7
	badEnum := llmtest.Answer([]string{ProspectiveSelf}, "m1")
	badEnum[ProspectiveSelf].([]any)[0].(map[string]any)["self"] = "neutral"
	rawBad, _ := json.Marshal(bad)
	rawEnum, _ := json.Marshal(badEnum)
	for _, in := range []string{`{"prospective_self": [`, `[]`, `{}`, string(rawBad), string(rawEnum),
		`{"prospective_self": [], "narrative_themes": []}`} {
		if _, _, _, err := v.Parse([]byte(in), nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%.60q) = %v, want ErrInvalid", in, err)
		}
	}
	if ps, _, _, err := v.Parse([]byte(`{"prospective_self": []}`), nil); err != nil || len(ps) != 0 {
		t.Errorf("an empty list is a valid answer: %v %v", ps, err)
	}
}

func TestParseTypes(t *testing.T) {
	got, err := ParseTypes([]string{"narrative_themes", "emotional_patterns", "narrative_themes"})
	if err != nil || strings.Join(got, ",") != "emotional_patterns,narrative_themes" {
		t.Fatalf("%v %v", got, err)
	}
	if got, err := ParseTypes([]string{"full_synthesis", "all"}); err != nil || strings.Join(got, ",") != strings.Join(AllTypes, ",") {
		t.Fatalf("all: %v %v", got, err)
	}
	if _, err := ParseTypes([]string{"dreams"}); err == nil {
		t.Fatal("unknown type accepted")
	}
}

func TestBudget(t *testing.T) {
	b := &Budget{Max: 0.01}
	if err := b.Reserve(0.006); err != nil {
		t.Fatal(err)
	}
	b.Settle(0.006, 0.002)
	if err := b.Reserve(0.006); err != nil {
		t.Fatal(err)
	}
	b.Settle(0.006, 0.002)
	err := b.Reserve(0.0061)
	if !errors.Is(err, ErrBudget) || b.Spent() != 0.004 {
		t.Fatalf("err %v, spent %v", err, b.Spent())
	}
	if none := (&Budget{}); none.Reserve(1e9) != nil {
		t.Fatal("no limit refused")
	}
}

func TestPricesCost(t *testing.T) {
	p := Prices{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25, Known: true}
	if got := p.Cost(Usage{Input: 1000, Output: 200, CacheRead: 2000, CacheWrite: 800}); got != 0.0032 { // (1000×1 + 200×5 + 2000×0.1 + 800×1.25) / 1e6
		t.Fatalf("cost %v", got)
	}
}

func mem(i int, text string, v float64) synthesis.Memory {
	return synthesis.Memory{ID: uuid.NewSHA1(uuid.Nil, []byte{byte(i)}), Content: text, Valence: &v,
		CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)}
}

func TestBuildBriefScrubsAndBounds(t *testing.T) {
	ms := []synthesis.Memory{
		mem(0, "I felt calm walking by the sea this morning.", 0.6),
		mem(1, "Mail me at jane.doe@example.com or call +44 20 7946 0958.", -0.2),
		mem(2, "", 0), // no text: skipped
		mem(3, "My card 4111 1111 1111 1111 was declined; key sk-ant-api03-AAAABBBBCCCCDDDD1234567890xyz", -0.8),
		mem(4, strings.Repeat("long words ", 200), 0),
	}
	pats := []synthesis.Pattern{{Type: synthesis.EmotionalTrigger, MemoryIDs: []uuid.UUID{ms[3].ID, ms[1].ID}, Content: "work stress lowers valence", Confidence: 0.9}}
	b := BuildBrief(ms, pats, Types, DefaultModel, Limits{MaxMemories: 10, MaxChars: 100000, MaxMemoryChars: 100})
	for _, secret := range []string{"jane.doe@example.com", "7946 0958", "4111 1111", "sk-ant-api03"} {
		if strings.Contains(b.Text, secret) {
			t.Errorf("brief holds %q:\n%s", secret, b.Text)
		}
	}
	if !strings.Contains(b.Text, "I felt calm walking by the sea this morning.") {
		t.Errorf("ordinary sentence changed:\n%s", b.Text)
	}
	if b.Scrubbed.Emails != 1 || b.Scrubbed.Phones != 1 || b.Scrubbed.Cards != 1 || b.Scrubbed.Keys != 1 {
		t.Errorf("scrubbed %+v", b.Scrubbed)
	}
	if b.Memories != 4 || len(b.IDs) != 4 || b.Patterns != 1 {
		t.Errorf("memories %d ids %v patterns %d", b.Memories, b.IDs, b.Patterns)
	}
	if !strings.Contains(b.Text, "…") {
		t.Errorf("long memory not cut:\n%s", b.Text)
	}
	again := BuildBrief(ms, pats, Types, DefaultModel, Limits{MaxMemories: 10, MaxChars: 100000, MaxMemoryChars: 100})
	if again.SHA256 != b.SHA256 || again.Text != b.Text {
		t.Error("brief not deterministic")
	}
	if other := BuildBrief(ms, pats, Types, "openai/gpt-4o-mini", Limits{MaxMemories: 10, MaxChars: 100000, MaxMemoryChars: 100}); other.SHA256 == b.SHA256 {
		t.Error("the hash ignores the model")
	}
	small := BuildBrief(ms, pats, Types, DefaultModel, Limits{MaxMemories: 2, MaxChars: 100000, MaxMemoryChars: 100})
	if small.Memories != 2 {
		t.Errorf("MaxMemories 2 quoted %d", small.Memories)
	}
	// the pattern's members come first: both of its memories are quoted
	if _, ok := small.IDs["m1"]; !ok || !strings.Contains(small.Text, "quoted: ") {
		t.Errorf("pattern members not quoted:\n%s", small.Text)
	}
}

func FuzzParse(f *testing.F) {
	good, _ := json.Marshal(llmtest.Answer(Types, "m1", "m2", "zz"))
	for _, s := range []string{string(good), `{}`, `{"emotional_patterns": [{}]}`, `null`, `{"narrative_themes": "x"}`, "\xff"} {
		f.Add([]byte(s))
	}
	v, err := NewValidator(Types)
	if err != nil {
		f.Fatal(err)
	}
	ids := map[string]uuid.UUID{"m1": uuid.New(), "m2": uuid.New()}
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, _, _, err := v.Parse(b, ids)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		for _, p := range ps {
			if len(p.Evidence) == 0 {
				t.Fatalf("pattern without evidence kept: %+v", p)
			}
			for _, e := range p.Evidence {
				if e != ids["m1"] && e != ids["m2"] {
					t.Fatalf("evidence %v was not sent", e)
				}
			}
		}
	})
}

func FuzzDecodeResponses(f *testing.F) {
	tool, _ := json.Marshal(llmtest.AnthropicToolUse(toolName, llmtest.Answer(Types, "m1"), llmtest.Usage{Input: 1}))
	text, _ := json.Marshal(llmtest.OpenAIContent(`{"a":1}`, "length", llmtest.Usage{Output: 3}))
	call, _ := json.Marshal(llmtest.OpenAIToolCall(toolName, `{"b":2}`, llmtest.Usage{}))
	aerr, _ := json.Marshal(llmtest.AnthropicError("overloaded_error", "Overloaded"))
	oerr, _ := json.Marshal(llmtest.OpenAIError("x", "y", "z"))
	for _, s := range [][]byte{tool, text, call, aerr, oerr, []byte(`{"error":"model not found"}`), []byte(`{"type":"message","content":[{"type":"text"}]}`)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := decodeAnthropic(b, toolName); err == nil && r.StopReason == "" {
			t.Fatal("anthropic response without a stop reason")
		}
		if r, err := decodeOpenAI(b, "openai"); err == nil && r.StopReason == "" {
			t.Fatal("openai response without a stop reason")
		}
		if e := decodeAnthropicError(529, nil, b); e.Status != 529 || e.Error() == "" {
			t.Fatal("anthropic error lost its status")
		}
		if e := httpretry.DecodeOpenAIError("openai", 401, nil, b); !e.Auth() {
			t.Fatal("openai 401 not an auth error")
		}
	})
}

// FuzzParseFullSynthesis: a full_synthesis answer is outside bytes too.
// Whatever it holds, Parse returns ErrInvalid or patterns whose evidence was
// sent and whose lineage ids were in the brief, every one tagged with a layer.
func FuzzParseFullSynthesis(f *testing.F) {
	types := []string{NarrativeThemes, FullSynthesis}
	good, _ := json.Marshal(llmtest.Answer(types, "m1", "m2", "zz"))
	for _, s := range []string{string(good), `{"narrative_themes": [], "full_synthesis": [], "summary": ""}`,
		`{"narrative_themes": [], "full_synthesis": [], "summary": 3}`, `{"full_synthesis": [{"layer": "x"}]}`, "\xff"} {
		f.Add([]byte(s))
	}
	v, err := NewValidator(types)
	if err != nil {
		f.Fatal(err)
	}
	ids := map[string]uuid.UUID{"m1": uuid.New(), "m2": uuid.New()}
	lins := map[string]uuid.UUID{"L1": uuid.New()}
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, _, _, err := v.ParseWith(b, ids, lins)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		for _, p := range ps {
			if len(p.Evidence) == 0 {
				t.Fatalf("pattern without evidence kept: %+v", p)
			}
			for _, e := range p.Evidence {
				if e != ids["m1"] && e != ids["m2"] {
					t.Fatalf("evidence %v was not sent", e)
				}
			}
			if p.Type != FullSynthesis {
				continue
			}
			if l := p.Layer(); l != SummaryLayer && !slices.Contains(Layers, l) {
				t.Fatalf("layer %q", l)
			}
			refs, _ := p.Details["lineage_ids"].([]string)
			for _, r := range refs {
				if r != lins["L1"].String() {
					t.Fatalf("lineage %s was not in the brief", r)
				}
			}
		}
	})
}

// TestParseFullSynthesis: findings keep their layer and the lineages of the
// brief; the summary is one more pattern citing its findings' evidence.
func TestParseFullSynthesis(t *testing.T) {
	types := []string{FullSynthesis}
	v, err := NewValidator(types)
	if err != nil {
		t.Fatal(err)
	}
	m1, m2, l1 := uuid.New(), uuid.New(), uuid.New()
	a := llmtest.Answer(types, "m1", "m2")
	a[FullSynthesis].([]any)[0].(map[string]any)["lineages"] = []string{"L1", "L9"}
	raw, _ := json.Marshal(a)
	ps, _, _, err := v.ParseWith(raw, map[string]uuid.UUID{"m1": m1, "m2": m2}, map[string]uuid.UUID{"L1": l1})
	if err != nil || len(ps) != 2 {
		t.Fatalf("%v %+v", err, ps)
	}
	if ps[0].Layer() != "emotional_memory" || ps[0].LineageKind() != "full_synthesis/emotional_memory" ||
		fmt.Sprint(ps[0].Details["lineage_ids"]) != "["+l1.String()+"]" {
		t.Errorf("finding %+v", ps[0])
	}
	if ps[1].Layer() != SummaryLayer || !strings.HasPrefix(ps[1].Description, "A person whose") || len(ps[1].Evidence) != 2 {
		t.Errorf("summary %+v", ps[1])
	}
	// without the summary the answer does not match
	delete(a, "summary")
	raw, _ = json.Marshal(a)
	if _, _, _, err := v.Parse(raw, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("answer without summary: %v", err)
	}
}
