package catalog

import (
	"reflect"
	"strings"
	"testing"
)

func TestOverridesMergeOrder(t *testing.T) {
	cat, err := Parse([]byte(`{
	  "openai": {"id": "openai", "models": {
	    "gpt-4o": {"id": "gpt-4o", "reasoning": false, "tool_call": true, "limit": {"context": 128000, "output": 16384}, "cost": {"input": 2.5}},
	    "o3":     {"id": "o3", "reasoning": true, "tool_call": true, "limit": {"context": 200000, "output": 100000}}}},
	  "groq": {"id": "groq", "models": {"llama": {"id": "llama", "tool_call": false, "limit": {"context": 8192}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	o, err := ParseOverrides([]byte(`
providers:
  openai:
    limit: {output: 8192}
    structured_output: true
models:
  openai/gpt-4o:
    reasoning: true
    limit: {output: 4096}
  anthropic/claude-9: {reasoning: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	entries, unmatched, err := o.Apply(cat)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(unmatched, []string{"models: anthropic/claude-9"}) {
		t.Errorf("unmatched = %q", unmatched)
	}
	byKey := map[string]Entry{}
	for _, e := range entries {
		byKey[Key(e.Provider, e.Model)] = e
	}
	gpt := byKey["openai/gpt-4o"]
	if !gpt.Descriptor.Supports("reasoning") || *gpt.Descriptor.Limit.Output != 4096 || *gpt.Descriptor.Limit.Context != 128000 ||
		!gpt.Descriptor.Supports("structured_output") || *gpt.Descriptor.Cost.Input != 2.5 {
		t.Errorf("gpt-4o after overrides: %+v %+v", gpt.Descriptor, gpt.Descriptor.Limit)
	}
	if want := []string{"limit.output", "reasoning", "structured_output"}; !reflect.DeepEqual(gpt.Overridden, want) {
		t.Errorf("gpt-4o overridden = %q, want %q", gpt.Overridden, want)
	}
	o3 := byKey["openai/o3"]
	if *o3.Descriptor.Limit.Output != 8192 || !reflect.DeepEqual(o3.Overridden, []string{"limit.output", "structured_output"}) {
		t.Errorf("o3 takes the provider defaults: %+v %q", o3.Descriptor.Limit, o3.Overridden)
	}
	if !o3.IsOverridden("limit") || o3.IsOverridden("limit.context") || o3.IsOverridden("reasoning") {
		t.Error("IsOverridden misreports o3")
	}
	if llama := byKey["groq/llama"]; llama.Overridden != nil || llama.Descriptor != cat["groq"].Models["llama"] {
		t.Errorf("groq/llama has no override but was changed: %+v", llama)
	}
	if *cat["openai"].Models["gpt-4o"].Limit.Output != 16384 {
		t.Error("Apply changed the catalog it was given")
	}
	if got := []string{entries[0].Model, entries[1].Model, entries[2].Model}; !reflect.DeepEqual(got, []string{"llama", "gpt-4o", "o3"}) {
		t.Errorf("entries not sorted by provider then model: %q", got)
	}
}

func TestOverridesErrors(t *testing.T) {
	cat, err := Parse([]byte(`{"openai": {"id": "openai", "models": {"gpt-4o": {"id": "gpt-4o"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ yaml, want string }{
		"unknown key": {"model:\n  openai/gpt-4o: {reasoning: true}\n", "field model not found"},
		"bad key":     {"models:\n  gpt-4o: {reasoning: true}\n", `"gpt-4o" is not provider/model`},
		"bad value":   {"models:\n  openai/gpt-4o: {limit: {context: lots}}\n", "overrides for openai/gpt-4o"},
	} {
		t.Run(name, func(t *testing.T) {
			o, err := ParseOverrides([]byte(tc.yaml))
			if err == nil {
				_, _, err = o.Apply(cat)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
