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
	EmotionalPatterns  = "emotional_patterns"
	ProspectiveSelf    = "prospective_self"
	RelationalDynamics = "relational_dynamics"
	NarrativeThemes    = "narrative_themes"
	// FullSynthesis is the fifth type: one integrated view of the person
	// across the seven psychology layers, grounded in the other four types and
	// the statistical lineages: findings tagged with their layer, each with
	// recommendations, and a summary. It is asked for by name (--types), not by
	// default: it reads what the others found.
	FullSynthesis       = "full_synthesis"
	toolName            = "record_patterns"
	summaryField        = "summary"
	maxRecommendations  = 5
	maxPatternsPerType  = 8
	maxEvidencePerEntry = 20
)

// Types are the default pattern types, in the order the brief asks for them.
var Types = []string{EmotionalPatterns, ProspectiveSelf, RelationalDynamics, NarrativeThemes}

// AllTypes are every type --types accepts: the four and FullSynthesis.
var AllTypes = append(slices.Clone(Types), FullSynthesis)

// Layers are the seven psychology layers (psychology_layers.layer_number 1–7)
// a full_synthesis finding is tagged with.
var Layers = []string{"narrative_core", "emotional_memory", "relational_memory", "prospective_self",
	"integration", "transformation", "purpose_engine"}

// SummaryLayer tags the integrated summary of a full_synthesis.
const SummaryLayer = "integrated"

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
	FullSynthesis: {
		{name: "layer", desc: "the psychology layer the finding belongs to", enum: Layers},
	},
}

var typeDesc = map[string]string{
	EmotionalPatterns:  "emotional triggers and the responses they set off",
	ProspectiveSelf:    "ideal and feared future selves",
	RelationalDynamics: "patterns in the person's relationships",
	NarrativeThemes:    "story themes and arcs of the person's life",
	FullSynthesis:      "findings of the integrated view across the seven layers, each tagged with its layer",
}

// ParseTypes checks a --types list; empty means the four default types,
// "all" the five.
func ParseTypes(list []string) ([]string, error) {
	if len(list) == 0 {
		return slices.Clone(Types), nil
	}
	var out []string
	for _, t := range list {
		t = strings.TrimSpace(t)
		if t == "all" { // the four and full_synthesis, in one request
			out = slices.Clone(AllTypes)
			continue
		}
		if !slices.Contains(AllTypes, t) {
			return nil, fmt.Errorf("unknown pattern type %q: use %s, or all", t, strings.Join(AllTypes, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(AllTypes, a) - slices.Index(AllTypes, b) })
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
	if typ == FullSynthesis {
		props["lineages"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"},
			"description": "ids of the statistical lineages (L1, L2, …) the finding builds on; only ids from the brief"}
		req = append(req, "lineages")
	}
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
	req := slices.Clone(types)
	if slices.Contains(types, FullSynthesis) {
		props[summaryField] = map[string]any{"type": "string",
			"description": "full_synthesis: an integrated summary of the person across the seven layers, in a short paragraph"}
		req = append(req, summaryField)
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
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
	return v.ParseWith(answer, ids, nil)
}

// ParseWith is Parse with the brief's lineage ids (short id → lineage) that
// full_synthesis findings cite; those not in lineages are dropped. A
// full_synthesis summary becomes one more pattern of that type (layer
// "integrated") whose evidence is its findings' together: with no finding
// left, it has none and is dropped.
func (v *Validator) ParseWith(answer []byte, ids, lineages map[string]uuid.UUID) (ps []Pattern, droppedIDs, droppedPatterns int, err error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(answer))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%w: not JSON: %v", ErrInvalid, err)
	}
	if err := v.sch.Validate(inst); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %s", ErrInvalid, schemaError(err))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(answer, &raw); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	doc := map[string][]map[string]any{}
	for _, t := range v.types {
		var items []map[string]any
		if err := json.Unmarshal(raw[t], &items); err != nil {
			return nil, 0, 0, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		doc[t] = items
	}
	ps = []Pattern{}
	for _, t := range v.types {
		var summary *Pattern
		if t == FullSynthesis {
			var text string
			if err := json.Unmarshal(raw[summaryField], &text); err != nil {
				return nil, 0, 0, fmt.Errorf("%w: summary: %v", ErrInvalid, err)
			}
			summary = &Pattern{Type: t, Title: "Integrated summary", Description: text, Recommendations: []string{},
				Details: map[string]any{"layer": SummaryLayer, "summary": true}}
		}
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
			if t == FullSynthesis {
				refs := []string{}
				for _, l := range item["lineages"].([]any) {
					if id, ok := lineages[strings.TrimSpace(l.(string))]; ok && !slices.Contains(refs, id.String()) {
						refs = append(refs, id.String())
					}
				}
				p.Details["lineage_ids"] = refs
			}
			if len(p.Evidence) == 0 {
				droppedPatterns++
				continue
			}
			ps = append(ps, p)
			if summary != nil {
				for _, id := range p.Evidence {
					if !slices.Contains(summary.Evidence, id) {
						summary.Evidence = append(summary.Evidence, id)
					}
				}
				summary.Confidence = max(summary.Confidence, p.Confidence)
			}
		}
		if summary != nil {
			if len(summary.Evidence) == 0 || strings.TrimSpace(summary.Description) == "" {
				droppedPatterns++
				continue
			}
			ps = append(ps, *summary)
		}
	}
	return ps, droppedIDs, droppedPatterns, nil
}

// Layer is a pattern's psychology layer: a full_synthesis finding's tag
// ("integrated" for the summary), "" for the other types.
func (p Pattern) Layer() string {
	l, _ := p.Details["layer"].(string)
	return l
}

// LineageKind is the kind a pattern's lineage is followed under: its type,
// and for full_synthesis its layer too (type/layer), so that a finding is
// followed within its layer and the summary on its own.
func (p Pattern) LineageKind() string {
	if p.Type == FullSynthesis {
		return p.Type + "/" + p.Layer()
	}
	return p.Type
}

// schemaError is the validation error, bounded, for the repair prompt.
func schemaError(err error) string {
	s := err.Error()
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	return s
}
