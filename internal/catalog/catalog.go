// Package catalog keeps a pinned, verifiable copy of the models.dev catalog of
// AI models: typed descriptors that keep unknown fields, snapshots in Postgres, diffs and overrides.
package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Catalog is models.dev's api.json: provider id → provider.
type Catalog map[string]*Provider

// Provider is one provider and its models (model id → model).
type Provider struct {
	ID     string            `json:"id,omitempty"`
	Name   string            `json:"name,omitempty"`
	Env    []string          `json:"env,omitempty"`
	NPM    string            `json:"npm,omitempty"`
	API    string            `json:"api,omitempty"`
	Doc    string            `json:"doc,omitempty"`
	Models map[string]*Model `json:"models"`
	// Extra holds the fields this version of helix does not know, re-emitted as they came.
	Extra map[string]json.RawMessage `json:"-"`
}

// Model is one model's descriptor. Pointers tell an absent field from false or 0.
type Model struct {
	ID               string                     `json:"id,omitempty"`
	Name             string                     `json:"name,omitempty"`
	Family           string                     `json:"family,omitempty"`
	Attachment       *bool                      `json:"attachment,omitempty"`
	Reasoning        *bool                      `json:"reasoning,omitempty"`
	ToolCall         *ToolCall                  `json:"tool_call,omitempty"`
	StructuredOutput *bool                      `json:"structured_output,omitempty"`
	Temperature      *bool                      `json:"temperature,omitempty"`
	Knowledge        Date                       `json:"knowledge,omitempty"`
	ReleaseDate      Date                       `json:"release_date,omitempty"`
	LastUpdated      Date                       `json:"last_updated,omitempty"`
	Modalities       *Modalities                `json:"modalities,omitempty"`
	OpenWeights      *bool                      `json:"open_weights,omitempty"`
	Cost             *Cost                      `json:"cost,omitempty"`
	Limit            *Limit                     `json:"limit,omitempty"`
	Status           string                     `json:"status,omitempty"` // alpha, beta, deprecated
	Extra            map[string]json.RawMessage `json:"-"`
}

// ToolCall is either a bool or {supported, streaming, parallel}; it is written
// back in the form it came in.
type ToolCall struct {
	Supported bool                       `json:"supported"`
	Streaming *bool                      `json:"streaming,omitempty"`
	Parallel  *bool                      `json:"parallel,omitempty"`
	Extra     map[string]json.RawMessage `json:"-"`
	object    bool
}

// Modalities lists input and output kinds: text, image, audio, video, pdf.
type Modalities struct {
	Input  []string                   `json:"input,omitempty"`
	Output []string                   `json:"output,omitempty"`
	Extra  map[string]json.RawMessage `json:"-"`
}

// Cost is in USD per million tokens.
type Cost struct {
	Input       *float64                   `json:"input,omitempty"`
	Output      *float64                   `json:"output,omitempty"`
	Reasoning   *float64                   `json:"reasoning,omitempty"`
	CacheRead   *float64                   `json:"cache_read,omitempty"`
	CacheWrite  *float64                   `json:"cache_write,omitempty"`
	InputAudio  *float64                   `json:"input_audio,omitempty"`
	OutputAudio *float64                   `json:"output_audio,omitempty"`
	Extra       map[string]json.RawMessage `json:"-"`
}

// Limit is in tokens.
type Limit struct {
	Context *int64                     `json:"context,omitempty"`
	Input   *int64                     `json:"input,omitempty"`
	Output  *int64                     `json:"output,omitempty"`
	Extra   map[string]json.RawMessage `json:"-"`
}

// Date is YYYY-MM or YYYY-MM-DD as upstream writes it; any other string is
// kept as is rather than failing the parse.
type Date string

// Time parses the date; a month alone is its first day.
func (d Date) Time() (time.Time, bool) {
	for _, layout := range []string{"2006-01-02", "2006-01"} {
		if t, err := time.Parse(layout, string(d)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Supports reports a bool capability: tool_call, reasoning, attachment,
// structured_output, temperature or open_weights.
func (m *Model) Supports(capability string) bool {
	switch capability {
	case "tool_call":
		return m.ToolCall != nil && m.ToolCall.Supported
	case "reasoning":
		return isTrue(m.Reasoning)
	case "attachment":
		return isTrue(m.Attachment)
	case "structured_output":
		return isTrue(m.StructuredOutput)
	case "temperature":
		return isTrue(m.Temperature)
	case "open_weights":
		return isTrue(m.OpenWeights)
	}
	return false
}

// Capabilities are the names Supports knows, in display order.
func Capabilities() []string {
	return []string{"tool_call", "reasoning", "attachment", "structured_output", "temperature", "open_weights"}
}

func isTrue(b *bool) bool { return b != nil && *b }

// Parse decodes api.json. An error names the provider and model it is in.
func Parse(data []byte) (Catalog, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("malformed catalog JSON: %w", err)
	}
	cat := make(Catalog, len(raw))
	for id, r := range raw {
		p := new(Provider)
		if err := json.Unmarshal(r, p); err != nil {
			return nil, fmt.Errorf("provider %s: %w", id, err)
		}
		cat[id] = p
	}
	return cat, nil
}

// ModelCount counts every model of every provider.
func (c Catalog) ModelCount() int {
	n := 0
	for _, p := range c {
		n += len(p.Models)
	}
	return n
}

// ProviderIDs lists the provider ids, sorted.
func (c Catalog) ProviderIDs() []string {
	ids := make([]string, 0, len(c))
	for id := range c {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Filter keeps the listed providers (all when the list is empty) and returns
// the ones the catalog does not have.
func (c Catalog) Filter(providers []string) (Catalog, []string) {
	if len(providers) == 0 {
		return c, nil
	}
	out := make(Catalog, len(providers))
	var missing []string
	for _, id := range providers {
		if p, ok := c[id]; ok {
			out[id] = p
		} else {
			missing = append(missing, id)
		}
	}
	return out, missing
}

// Canonical is the catalog as compact JSON: known fields in a fixed order,
// unknown ones sorted at every depth (see decodeFields), so the same content
// always gives the same bytes, whatever order upstream or jsonb used.
func (c Catalog) Canonical() ([]byte, error) { return json.Marshal(c) }

// Key names a model as provider/model.
func Key(provider, model string) string { return provider + "/" + model }

// ParseKey splits provider/model; model ids may themselves contain slashes.
func ParseKey(s string) (provider, model string, ok bool) {
	provider, model, ok = strings.Cut(s, "/")
	return provider, model, ok && provider != "" && model != ""
}

// Every type below decodes its object once into raw members, decodes the
// known ones into their fields and keeps the rest in Extra. A known key whose
// value the typed field would drop on the way out (null, "", [], {}) stays in
// Extra too, so parse → marshal loses nothing.

// UnmarshalJSON decodes a provider, naming the model an error is in.
func (p *Provider) UnmarshalJSON(data []byte) error {
	*p = Provider{}
	var models json.RawMessage
	extra, err := decodeFields(data, map[string]any{
		"id": &p.ID, "name": &p.Name, "env": &p.Env, "npm": &p.NPM, "api": &p.API, "doc": &p.Doc, "models": &models,
	})
	if err != nil {
		return err
	}
	p.Extra = extra
	var raw map[string]json.RawMessage
	if len(models) > 0 {
		if err := json.Unmarshal(models, &raw); err != nil {
			return fmt.Errorf("models: %w", err)
		}
	}
	p.Models = make(map[string]*Model, len(raw))
	for id, r := range raw {
		m := new(Model)
		if err := json.Unmarshal(r, m); err != nil {
			return fmt.Errorf("model %s: %w", id, err)
		}
		p.Models[id] = m
	}
	return nil
}

// MarshalJSON re-emits unknown fields.
func (p *Provider) MarshalJSON() ([]byte, error) {
	type alias Provider
	return joinExtra((*alias)(p), p.Extra, "models")
}

// UnmarshalJSON keeps unknown fields.
func (m *Model) UnmarshalJSON(data []byte) error {
	*m = Model{}
	var err error
	m.Extra, err = decodeFields(data, map[string]any{
		"id": &m.ID, "name": &m.Name, "family": &m.Family, "attachment": &m.Attachment, "reasoning": &m.Reasoning,
		"tool_call": &m.ToolCall, "structured_output": &m.StructuredOutput, "temperature": &m.Temperature,
		"knowledge": &m.Knowledge, "release_date": &m.ReleaseDate, "last_updated": &m.LastUpdated,
		"modalities": &m.Modalities, "open_weights": &m.OpenWeights, "cost": &m.Cost, "limit": &m.Limit, "status": &m.Status,
	})
	return err
}

// MarshalJSON re-emits unknown fields.
func (m *Model) MarshalJSON() ([]byte, error) {
	type alias Model
	return joinExtra((*alias)(m), m.Extra)
}

// UnmarshalJSON takes a bool or an object.
func (t *ToolCall) UnmarshalJSON(data []byte) error {
	*t = ToolCall{}
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] != '{' {
		return json.Unmarshal(data, &t.Supported)
	}
	t.object = true
	var err error
	t.Extra, err = decodeFields(data, map[string]any{"supported": &t.Supported, "streaming": &t.Streaming, "parallel": &t.Parallel})
	return err
}

// MarshalJSON writes the form it was read in; a ToolCall built in code with
// only Supported set is a bool.
func (t *ToolCall) MarshalJSON() ([]byte, error) {
	if !t.object && t.Streaming == nil && t.Parallel == nil && len(t.Extra) == 0 {
		return json.Marshal(t.Supported)
	}
	type alias ToolCall
	return joinExtra((*alias)(t), t.Extra, "supported")
}

// UnmarshalJSON keeps unknown fields.
func (m *Modalities) UnmarshalJSON(data []byte) error {
	*m = Modalities{}
	var err error
	m.Extra, err = decodeFields(data, map[string]any{"input": &m.Input, "output": &m.Output})
	return err
}

// MarshalJSON re-emits unknown fields.
func (m *Modalities) MarshalJSON() ([]byte, error) {
	type alias Modalities
	return joinExtra((*alias)(m), m.Extra)
}

// UnmarshalJSON keeps unknown fields (tiers, cache_input, …).
func (c *Cost) UnmarshalJSON(data []byte) error {
	*c = Cost{}
	var err error
	c.Extra, err = decodeFields(data, map[string]any{
		"input": &c.Input, "output": &c.Output, "reasoning": &c.Reasoning, "cache_read": &c.CacheRead,
		"cache_write": &c.CacheWrite, "input_audio": &c.InputAudio, "output_audio": &c.OutputAudio,
	})
	return err
}

// MarshalJSON re-emits unknown fields.
func (c *Cost) MarshalJSON() ([]byte, error) {
	type alias Cost
	return joinExtra((*alias)(c), c.Extra)
}

// UnmarshalJSON keeps unknown fields.
func (l *Limit) UnmarshalJSON(data []byte) error {
	*l = Limit{}
	var err error
	l.Extra, err = decodeFields(data, map[string]any{"context": &l.Context, "input": &l.Input, "output": &l.Output})
	return err
}

// MarshalJSON re-emits unknown fields.
func (l *Limit) MarshalJSON() ([]byte, error) {
	type alias Limit
	return joinExtra((*alias)(l), l.Extra)
}

// decodeFields decodes the object data: each known member into its field,
// the others (and known ones with a value the field would drop) returned as
// extra, normalised so that their keys are sorted at every depth.
func decodeFields(data []byte, fields map[string]any) (map[string]json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	for k, v := range all {
		target, known := fields[k]
		if known && !dropped(v) {
			if err := json.Unmarshal(v, target); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			delete(all, k)
			continue
		}
		if len(v) > 0 && (v[0] == '{' || v[0] == '[') {
			n, err := normalize(v)
			if err != nil {
				return nil, err
			}
			all[k] = n
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	return all, nil
}

// normalize rewrites a JSON value compactly with object keys sorted; numbers keep their text.
func normalize(v json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

func dropped(v json.RawMessage) bool {
	switch string(v) {
	case "null", `""`, "[]", "{}":
		return true
	}
	return false
}

// joinExtra marshals typed and appends the extra members in key order. always
// names the known fields typed always writes, which extra must not repeat.
func joinExtra(typed any, extra map[string]json.RawMessage, always ...string) ([]byte, error) {
	b, err := json.Marshal(typed)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !slices.Contains(always, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := b[:len(b)-1] // drop the closing brace
	for _, k := range keys {
		if len(out) > 1 {
			out = append(out, ',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, extra[k]...)
	}
	return append(out, '}'), nil
}
