package catalog

import (
	"encoding/json"
	"github.com/helixhq/helix/internal/testbin"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// testdata is the repository's testdata/catalog directory.
func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "catalog", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fullSnapshots reads the full models.dev files when the shared real-world data
// is present and the race detector (which makes them take minutes) is off.
func fullSnapshots(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	if raceEnabled {
		t.Log("race detector on: full-size snapshots left to the plain test run")
		return out
	}
	for _, d := range []string{"2026-06-14", "2026-07-02"} {
		if b, err := os.ReadFile(testbin.Shared("realworld", "models.dev", "api-"+d+".json")); err == nil {
			out[d] = b
		}
	}
	return out
}

func generic(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// assertRoundTrip checks that parse → marshal keeps every field and value.
func assertRoundTrip(t *testing.T, raw []byte) Catalog {
	t.Helper()
	cat, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cat.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	want, got := generic(t, raw), generic(t, out)
	if !reflect.DeepEqual(want, got) {
		for pid, p := range want.(map[string]any) {
			if !reflect.DeepEqual(p, got.(map[string]any)[pid]) {
				w, _ := json.Marshal(p)
				g, _ := json.Marshal(got.(map[string]any)[pid])
				t.Fatalf("provider %s lost data in the round trip:\nwant %.2000s\ngot  %.2000s", pid, w, g)
			}
		}
		t.Fatal("round trip changed the catalog")
	}
	return cat
}

func TestRoundTripRealSnapshots(t *testing.T) {
	files := map[string][]byte{
		"testdata 2026-06-14": testdata(t, "api-2026-06-14.json"),
		"testdata 2026-07-02": testdata(t, "api-2026-07-02.json"),
		"embedded fallback":   fallbackJSON,
	}
	for d, b := range fullSnapshots(t) {
		files["full "+d] = b
	}
	for name, raw := range files {
		t.Run(name, func(t *testing.T) {
			cat := assertRoundTrip(t, raw)
			var rawMap map[string]struct {
				Models map[string]json.RawMessage `json:"models"`
			}
			if err := json.Unmarshal(raw, &rawMap); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, p := range rawMap {
				n += len(p.Models)
			}
			if len(cat) != len(rawMap) || cat.ModelCount() != n {
				t.Fatalf("parsed %d providers, %d models; file has %d, %d", len(cat), cat.ModelCount(), len(rawMap), n)
			}
		})
	}
}

const quirks = `{
  "acme": {
    "id": "acme", "name": "Acme", "env": ["ACME_KEY"], "npm": "@ai-sdk/acme", "doc": "https://acme.example/docs",
    "region_hint": {"default": "eu"},
    "models": {
      "rocket-1": {
        "id": "rocket-1", "name": "Rocket 1", "family": "rocket",
        "attachment": false, "reasoning": true,
        "tool_call": {"supported": true, "streaming": false, "parallel": true, "max_tools": 128},
        "structured_output": true, "temperature": false,
        "knowledge": "2025-03", "release_date": "2025-06", "last_updated": "2025-07-14",
        "modalities": {"input": ["text", "image"], "output": ["text"], "latent": ["vector"]},
        "open_weights": false,
        "cost": {"input": 2.5, "output": 10, "reasoning": 12, "cache_read": 1.25, "cache_write": 3,
                 "input_audio": 40, "output_audio": 80, "tiers": [{"tier": {"size": 200000}, "input": 5}]},
        "limit": {"context": 200000, "input": 180000, "output": 32768, "images": 20},
        "status": "beta",
        "benchmarks": {"mmlu": 0.91},
        "interleaved": {"field": "reasoning_content"}
      },
      "pebble": {
        "id": "pebble", "name": "", "tool_call": false, "family": null,
        "modalities": {"input": [], "output": ["text"]}, "cost": {}, "limit": {"context": 8192, "output": 1024}
      }
    }
  }
}`

func TestParseQuirks(t *testing.T) {
	cat := assertRoundTrip(t, []byte(quirks))
	p := cat["acme"]
	if string(p.Extra["region_hint"]) != `{"default":"eu"}` {
		t.Errorf("provider unknown field: %s", p.Extra["region_hint"])
	}
	m := p.Models["rocket-1"]
	if !m.Supports("tool_call") || !m.Supports("reasoning") || m.Supports("attachment") || !m.Supports("structured_output") {
		t.Errorf("capabilities of rocket-1 misread: %+v", m)
	}
	if tc := m.ToolCall; tc.Streaming == nil || *tc.Streaming || tc.Parallel == nil || !*tc.Parallel || string(tc.Extra["max_tools"]) != "128" {
		t.Errorf("tool_call object misread: %+v", tc)
	}
	if *m.Cost.Input != 2.5 || *m.Cost.OutputAudio != 80 || *m.Limit.Context != 200000 || *m.Limit.Input != 180000 {
		t.Errorf("cost or limit misread: %+v %+v", m.Cost, m.Limit)
	}
	if m.Status != "beta" || m.Extra["benchmarks"] == nil || m.Limit.Extra["images"] == nil || m.Cost.Extra["tiers"] == nil {
		t.Errorf("status or unknown fields lost: %+v", m)
	}
	if d, ok := m.ReleaseDate.Time(); !ok || !d.Equal(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("release_date YYYY-MM: %v %v", d, ok)
	}
	if d, ok := m.LastUpdated.Time(); !ok || !d.Equal(time.Date(2025, 7, 14, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("last_updated YYYY-MM-DD: %v %v", d, ok)
	}
	pebble := p.Models["pebble"]
	if pebble.Supports("tool_call") {
		t.Error("tool_call false read as supported")
	}
	b, _ := json.Marshal(pebble)
	if !strings.Contains(string(b), `"tool_call":false`) {
		t.Errorf("tool_call bool not written back as a bool: %s", b)
	}
}

func TestParseErrorsNameTheModel(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"malformed":  {`{"acme": {"models": {`, "malformed catalog JSON"},
		"not object": {`[1, 2]`, "malformed catalog JSON"},
		"bad limit":  {`{"acme": {"id": "acme", "models": {"m1": {"id": "m1", "limit": {"context": "big"}}}}}`, "provider acme: model m1:"},
		"bad tool":   {`{"acme": {"id": "acme", "models": {"m1": {"id": "m1", "tool_call": "yes"}}}}`, "provider acme: model m1:"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	cat, err := Parse(testdata(t, "api-2026-07-02.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, missing := cat.Filter([]string{"openai", "anthropic", "nope"})
	if len(got) != 2 || got["openai"] == nil || got["anthropic"] == nil {
		t.Errorf("filter kept %v", got.ProviderIDs())
	}
	if !reflect.DeepEqual(missing, []string{"nope"}) {
		t.Errorf("missing = %v", missing)
	}
}

// FuzzParse checks that whatever parses survives a second round trip unchanged.
func FuzzParse(f *testing.F) {
	f.Add([]byte(quirks))
	f.Add([]byte(`{"p": {"models": {"m": {"tool_call": {"supported": true}}}}}`))
	f.Add([]byte(`{"p": {"id": "p", "models": {}}}`))
	f.Add([]byte(`{"p": {"id": "", "x": {"b": 1, "a": [1.50, {"d": null, "c": ""}]}, "models": {"m": {"id": "m", "name": null}}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		cat, err := Parse(in)
		if err != nil {
			return
		}
		once, err := cat.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse(once)
		if err != nil {
			t.Fatalf("canonical output does not parse: %v\n%s", err, once)
		}
		twice, err := again.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		if string(once) != string(twice) {
			t.Fatalf("not stable:\n%s\n%s", once, twice)
		}
	})
}
