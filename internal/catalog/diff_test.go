package catalog

import (
	"github.com/helixhq/helix/internal/catalog/catalogtest"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestCompareRealSnapshots(t *testing.T) {
	t.Run("testdata", func(t *testing.T) {
		testCompare(t, testdata(t, "api-2026-06-14.json"), testdata(t, "api-2026-07-02.json"))
	})
	if full := fullSnapshots(t); len(full) == 2 {
		t.Run("full", func(t *testing.T) { testCompare(t, full["2026-06-14"], full["2026-07-02"]) })
	}
}

func testCompare(t *testing.T, oldRaw, newRaw []byte) {
	oldCat, err := Parse(oldRaw)
	if err != nil {
		t.Fatal(err)
	}
	newCat, err := Parse(newRaw)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Compare(oldCat, newCat)
	if err != nil {
		t.Fatal(err)
	}
	added, removed, changed := catalogtest.ExpectedDiff(t, oldRaw, newRaw)
	if len(added) == 0 || len(removed) == 0 || len(changed) == 0 {
		t.Fatalf("fixtures must show every kind of drift: %d added, %d removed, %d changed", len(added), len(removed), len(changed))
	}
	var changedModels []string
	for _, c := range d.Changed {
		if strings.Contains(c.Key, "/") {
			changedModels = append(changedModels, c.Key)
		}
		if len(c.Fields) == 0 {
			t.Errorf("%s reported changed with no field", c.Key)
		}
	}
	// Compare as sets: the diff lists provider by provider, the expectation by full key.
	for _, l := range [][]string{d.Added, d.Removed, changedModels} {
		sort.Strings(l)
	}
	if !reflect.DeepEqual(d.Added, added) {
		t.Errorf("added:\n got %v\nwant %v", d.Added, added)
	}
	if !reflect.DeepEqual(d.Removed, removed) {
		t.Errorf("removed:\n got %v\nwant %v", d.Removed, removed)
	}
	if !reflect.DeepEqual(changedModels, changed) {
		t.Errorf("changed:\n got %v\nwant %v", changedModels, changed)
	}
	t.Logf("%d added, %d removed, %d changed models", len(added), len(removed), len(changed))
	same, err := Compare(newCat, newCat)
	if err != nil || !same.Empty() {
		t.Errorf("a catalog differs from itself: %+v %v", same, err)
	}
}

func TestCompareFieldByField(t *testing.T) {
	old := `{"openai": {"id": "openai", "name": "OpenAI", "models": {"gpt-4o": {"id": "gpt-4o", "reasoning": false,
		"tool_call": true, "cost": {"input": 2.5, "output": 10}, "limit": {"context": 128000, "output": 16384},
		"modalities": {"input": ["text"], "output": ["text"]}, "knowledge": "2023-09"}}}}`
	new := `{"openai": {"id": "openai", "name": "OpenAI Inc.", "models": {"gpt-4o": {"id": "gpt-4o", "reasoning": true,
		"tool_call": {"supported": true, "parallel": true}, "cost": {"input": 2, "output": 10, "cache_read": 1.25},
		"limit": {"context": 128000}, "modalities": {"input": ["text", "image"], "output": ["text"]}, "knowledge": "2023-09"}}}}`
	oc, err := Parse([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	nc, err := Parse([]byte(new))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Compare(oc, nc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range d.Changed {
		for _, f := range c.Fields {
			got = append(got, c.Key+": "+f.String())
		}
	}
	want := []string{
		"openai: name OpenAI → OpenAI Inc.",
		"openai/gpt-4o: cost.cache_read (none) → 1.25",
		"openai/gpt-4o: cost.input 2.5 → 2",
		"openai/gpt-4o: limit.output 16384 → (none)",
		`openai/gpt-4o: modalities.input ["text"] → ["text","image"]`,
		"openai/gpt-4o: reasoning false → true",
		`openai/gpt-4o: tool_call true → {"parallel":true,"supported":true}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes:\n got %q\nwant %q", got, want)
	}
}
