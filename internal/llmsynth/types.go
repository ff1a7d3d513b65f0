package llmsynth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/helixhq/helix/internal/third_party/jsonschema"
)

// The platform's four pattern types, as stored in memory_patterns.pattern_type.
const (
	EmotionalPatterns   = "emotional_patterns"
	ProspectiveSelf     = "prospective_self"
	RelationalDynamics  = "relational_dynamics"
	NarrativeThemes     = "narrative_themes"
	toolName            = "record_patterns"
	maxRecommendations  = 5
	maxPatternsPerType  = 8
	maxEvidencePerEntry = 20
)

// Types are the pattern types in the order the brief asks for them.
var Types = []string{EmotionalPatterns, ProspectiveSelf, RelationalDynamics, NarrativeThemes}

type field struct {
	name, desc string
	enum       []string
}

// typeFields are each type's own fields, beside the common ones (title,
// description, confidence, evidence, recommendations).
var typeFields = map[string][]field{
	EmotionalPatterns: {
		{name: "trigger", desc: "what sets the emotion off"},
		{name: "response", desc: "how the person tends to respond"},
		{name: "valence", desc: "the emotion's direction", enum: []string{"positive", "negative", "mixed"}},
	},
	ProspectiveSelf: {
		{name: "self", desc: "a self the person hopes to become (ideal) or fears becoming (feared)", enum: []string{"ideal", "feared"}},
		{name: "vision", desc: "that self, in a sentence"},
	},
	RelationalDynamics: {
		{name: "relationship", desc: "who or what kind of relationship (no names or contact details)"},
		{name: "dynamic", desc: "the recurring pattern in it"},
	},
	NarrativeThemes: {
		{name: "theme", desc: "the story theme"},
		{name: "arc", desc: "how it develops over time (e.g. redemption, contamination, growth, stagnation)"},
	},
}

var typeDesc = map[string]string{
	EmotionalPatterns:  "emotional triggers and the responses they set off",
	ProspectiveSelf:    "ideal and feared future selves",
	RelationalDynamics: "patterns in the person's relationships",
	NarrativeThemes:    "story themes and arcs of the person's life",
}

// ParseTypes checks a --types list; empty means all four.
func ParseTypes(list []string) ([]string, error) {
	if len(list) == 0 {
		return slices.Clone(Types), nil
	}
	var out []string
	for _, t := range list {
		t = strings.TrimSpace(t)
		if !slices.Contains(Types, t) {
			return nil, fmt.Errorf("unknown pattern type %q: use %s", t, strings.Join(Types, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(Types, a) - slices.Index(Types, b) })
	return out, nil
}

// itemSchema is one type's pattern. strict leaves out the range keywords
// that OpenAI's strict mode rejects; they are checked locally.
func itemSchema(typ string, strict bool) map[string]any {
	props := map[string]any{
		"title":       map[string]any{"type": "string", "description": "a short name for the pattern"},
		"description": map[string]any{"type": "string", "description": "the pattern in two or three sentences, grounded in the evidence"},
		"confidence":  map[string]any{"type": "number", "description": "0 to 1: how strongly the evidence supports it"},
		"evidence": map[string]any{"type": "array", "items": map[string]any{"type": "string"},
			"description": "ids of the memories (m1, m2, …) that show the pattern; only ids from the brief"},
		"recommendations": map[string]any{"type": "array", "items": map[string]any{"type": "string"},
			"description": "gentle, concrete suggestions for the person"},
	}
	req := []string{"title", "description", "confidence", "evidence", "recommendations"}
	for _, f := range typeFields[typ] {
		p := map[string]any{"type": "string", "description": f.desc}
		if f.enum != nil {
			p["enum"] = f.enum
		}
		props[f.name] = p
		req = append(req, f.name)
	}
	if !strict {
		props["title"].(map[string]any)["minLength"] = 1
		props["description"].(map[string]any)["minLength"] = 1
		props["confidence"].(map[string]any)["minimum"] = 0
		props["confidence"].(map[string]any)["maximum"] = 1
		props["evidence"].(map[string]any)["maxItems"] = maxEvidencePerEntry
		props["recommendations"].(map[string]any)["maxItems"] = maxRecommendations
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

// Schema is the answer's shape: one array per requested type.
func Schema(types []string, strict bool) map[string]any {
	props := map[string]any{}
	for _, t := range types {
		a := map[string]any{"type": "array", "description": typeDesc[t], "items": itemSchema(t, strict)}
		if !strict {
			a["maxItems"] = maxPatternsPerType
		}
		props[t] = a
	}
	return map[string]any{"type": "object", "properties": props, "required": slices.Clone(types), "additionalProperties": false}
}

// Validator checks answers against the full (non-strict) schema.
type Validator struct {
	types []string
	sch   *jsonschema.Schema
}

// NewValidator compiles the schema for types.
func NewValidator(types []string) (*Validator, error) {
	raw, err := json.Marshal(Schema(types, false))
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("patterns.json", doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile("patterns.json")
	if err != nil {
		return nil, err
	}
	return &Validator{types: types, sch: sch}, nil
}

// Pattern is one validated finding, its evidence resolved to memory ids.
type Pattern struct {
	Type            string         `json:"pattern_type"`
	Title           string         `json:"title"`
	Description     string         `json:"description"`
	Confidence      float64        `json:"confidence"`
	Evidence        []uuid.UUID    `json:"evidence"`
	Recommendations []string       `json:"recommendations"`
	Details         map[string]any `json:"details"`
}

// Content is the memory_patterns.content document.
func (p Pattern) Content() map[string]any {
	c := map[string]any{"title": p.Title, "description": p.Description, "recommendations": p.Recommendations}
	for k, v := range p.Details {
		c[k] = v
	}
	return c
}

// ErrInvalid marks an answer that is not JSON or does not match the schema.
var ErrInvalid = errors.New("invalid answer")

// Parse validates an answer and resolves its evidence through ids (short id
// → memory). Evidence that is not in ids was invented and is dropped; a
// pattern left without evidence is dropped. It returns the patterns and how
// many evidence ids and patterns it dropped.
func (v *Validator) Parse(answer []byte, ids map[string]uuid.UUID) (ps []Pattern, droppedIDs, droppedPatterns int, err error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(answer))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%w: not JSON: %v", ErrInvalid, err)
	}
	if err := v.sch.Validate(inst); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %s", ErrInvalid, schemaError(err))
	}
	var doc map[string][]map[string]any
	if err := json.Unmarshal(answer, &doc); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	ps = []Pattern{}
	for _, t := range v.types {
		for _, item := range doc[t] {
			p := Pattern{Type: t, Title: item["title"].(string), Description: item["description"].(string),
				Confidence: item["confidence"].(float64), Details: map[string]any{}, Recommendations: []string{}}
			seen := map[uuid.UUID]bool{}
			for _, e := range item["evidence"].([]any) {
				id, ok := ids[strings.TrimSpace(e.(string))]
				if !ok {
					droppedIDs++
					continue
				}
				if !seen[id] {
					seen[id] = true
					p.Evidence = append(p.Evidence, id)
				}
			}
			for _, r := range item["recommendations"].([]any) {
				p.Recommendations = append(p.Recommendations, r.(string))
			}
			for _, f := range typeFields[t] {
				p.Details[f.name] = item[f.name]
			}
			if len(p.Evidence) == 0 {
				droppedPatterns++
				continue
			}
			ps = append(ps, p)
		}
	}
	return ps, droppedIDs, droppedPatterns, nil
}

// schemaError is the validation error, bounded, for the repair prompt.
func schemaError(err error) string {
	s := err.Error()
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	return s
}
