package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"go.yaml.in/yaml/v3"
)

// Overrides are local corrections to the catalog: provider defaults apply to
// every model of a provider, then per-model overrides (keyed provider/model)
// win. Values are descriptor fields, nested as in api.json.
type Overrides struct {
	Providers map[string]map[string]any `yaml:"providers" json:"providers,omitempty"`
	Models    map[string]map[string]any `yaml:"models" json:"models,omitempty"`
}

// LoadOverrides reads an overrides YAML file.
func LoadOverrides(path string) (*Overrides, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseOverrides(b)
}

// ParseOverrides decodes overrides YAML; unknown top-level keys are an error.
func ParseOverrides(b []byte) (*Overrides, error) {
	o := &Overrides{}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(o); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	for key := range o.Models {
		if _, _, ok := ParseKey(key); !ok {
			return nil, fmt.Errorf("models: %q is not provider/model", key)
		}
	}
	return o, nil
}

// Entry is one model as shown: its descriptor after overrides and the dotted
// paths of the fields that overrides set.
type Entry struct {
	Provider   string   `json:"provider"`
	Model      string   `json:"model"`
	Overridden []string `json:"overridden,omitempty"`
	Descriptor *Model   `json:"descriptor"`
}

// IsOverridden reports whether path, or a field inside it, was overridden.
func (e *Entry) IsOverridden(path string) bool {
	for _, p := range e.Overridden {
		if p == path || (len(p) > len(path) && p[:len(path)+1] == path+".") {
			return true
		}
	}
	return false
}

// Apply merges the overrides into every model of cat (baseline → provider
// defaults → model override) and returns the entries sorted by provider and
// model, plus the overrides that matched nothing.
func (o *Overrides) Apply(cat Catalog) ([]Entry, []string, error) {
	var unmatched []string
	if o != nil {
		for pid := range o.Providers {
			if cat[pid] == nil {
				unmatched = append(unmatched, "providers: "+pid)
			}
		}
		for key := range o.Models {
			pid, mid, _ := ParseKey(key)
			if cat[pid] == nil || cat[pid].Models[mid] == nil {
				unmatched = append(unmatched, "models: "+key)
			}
		}
		sort.Strings(unmatched)
	}
	entries := make([]Entry, 0, cat.ModelCount())
	for _, pid := range cat.ProviderIDs() {
		p := cat[pid]
		mids := make([]string, 0, len(p.Models))
		for mid := range p.Models {
			mids = append(mids, mid)
		}
		sort.Strings(mids)
		for _, mid := range mids {
			e := Entry{Provider: pid, Model: mid, Descriptor: p.Models[mid]}
			if o != nil {
				if err := o.apply(&e); err != nil {
					return nil, nil, err
				}
			}
			entries = append(entries, e)
		}
	}
	return entries, unmatched, nil
}

func (o *Overrides) apply(e *Entry) error {
	layers := []struct {
		name string
		over map[string]any
	}{
		{"providers: " + e.Provider, o.Providers[e.Provider]},
		{"models: " + Key(e.Provider, e.Model), o.Models[Key(e.Provider, e.Model)]},
	}
	if layers[0].over == nil && layers[1].over == nil {
		return nil
	}
	b, err := json.Marshal(e.Descriptor)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	set := map[string]bool{}
	for _, l := range layers {
		if l.over != nil {
			merge(doc, l.over, "", set)
		}
	}
	b, err = json.Marshal(doc)
	if err != nil {
		return err
	}
	m := new(Model)
	if err := json.Unmarshal(b, m); err != nil {
		return fmt.Errorf("overrides for %s: %w", Key(e.Provider, e.Model), err)
	}
	e.Descriptor = m
	for p := range set {
		e.Overridden = append(e.Overridden, p)
	}
	sort.Strings(e.Overridden)
	return nil
}

// merge copies over into dst: objects merge key by key, anything else replaces.
func merge(dst, over map[string]any, prefix string, set map[string]bool) {
	for k, v := range over {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		if vm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				merge(dm, vm, path, set)
				continue
			}
			dm := map[string]any{}
			dst[k] = dm
			merge(dm, vm, path, set)
			continue
		}
		dst[k] = v
		set[path] = true
	}
}
