package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
)

const smallCatalog = `{
  "openai": {"id": "openai", "name": "OpenAI", "env": ["OPENAI_API_KEY"], "npm": "@ai-sdk/openai", "models": {
    "gpt-4o": {"id": "gpt-4o", "name": "GPT-4o", "attachment": true, "reasoning": false, "tool_call": true,
      "structured_output": true, "temperature": true, "cost": {"input": 2.5, "output": 10}, "limit": {"context": 128000, "output": 16384}},
    "o3": {"id": "o3", "name": "o3", "reasoning": true, "tool_call": true, "cost": {"input": 2, "output": 8},
      "limit": {"context": 200000, "output": 100000}}}},
  "groq": {"id": "groq", "name": "Groq", "models": {
    "llama-3.1-8b-instant": {"id": "llama-3.1-8b-instant", "tool_call": false, "open_weights": true,
      "cost": {"input": 0.05, "output": 0.08}, "limit": {"context": 131072, "output": 8192}, "status": "deprecated"}}}
}`

const smallOverrides = `providers:
  groq:
    tool_call: true
models:
  openai/gpt-4o:
    limit: {context: 256000}
`

// showDB is a database whose pinned snapshot is smallCatalog, and an overrides file.
func showDB(t *testing.T) (*pgxpool.Pool, string) {
	dir := t.TempDir()
	src, over := filepath.Join(dir, "api.json"), filepath.Join(dir, "overrides.yaml")
	if err := os.WriteFile(src, []byte(smallCatalog), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(over, []byte(smallOverrides), 0o644); err != nil {
		t.Fatal(err)
	}
	pool := pgtest.New(t)
	if _, err := runFetch(t, pool, src, false, nil); err != nil {
		t.Fatal(err)
	}
	return pool, over
}

func runShow(t *testing.T, pool *pgxpool.Pool, tty bool, mutate func(*ShowOptions)) (cmdtest.Streams, error) {
	t.Helper()
	f, s := cmdtest.Factory(t, tty)
	if pool != nil {
		cmdtest.WithDB(f, pool)
	} else {
		f.DB = func(context.Context) (*pgxpool.Pool, error) {
			return nil, cmdutil.UnavailableError(errors.New("database unavailable (retry later): connection refused"))
		}
	}
	opts := &ShowOptions{IO: f.IOStreams, F: f}
	if mutate != nil {
		mutate(opts)
	}
	return s, showRun(context.Background(), opts)
}

func TestShowWithOverrides(t *testing.T) {
	pool, over := showDB(t)
	withOverrides := func(o *ShowOptions) { o.OverridesFile = over }

	s, err := runShow(t, pool, true, withOverrides)
	if err != nil {
		t.Fatal(err)
	}
	want := `PROVIDER  MODEL                 CONTEXT  OUTPUT  INPUT $/M  OUTPUT $/M  CAPABILITIES                                        STATUS
groq      llama-3.1-8b-instant  131072   8192    0.05       0.08        tool_call*,open_weights                             deprecated
openai    gpt-4o                256000*  16384   2.5        10          tool_call,attachment,structured_output,temperature  -
openai    o3                    200000   100000  2          8           tool_call,reasoning                                 -
`
	if s.Out.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", s.Out, want)
	}
	if s.Err.String() != "* set by the overrides file\n" {
		t.Errorf("stderr %q", s.Err)
	}

	s, err = runShow(t, pool, false, withOverrides)
	if err != nil {
		t.Fatal(err)
	}
	want = "groq\tllama-3.1-8b-instant\t131072\t8192\t0.05\t0.08\ttool_call*,open_weights\tdeprecated\n" +
		"openai\tgpt-4o\t256000*\t16384\t2.5\t10\ttool_call,attachment,structured_output,temperature\t-\n" +
		"openai\to3\t200000\t100000\t2\t8\ttool_call,reasoning\t-\n"
	if s.Out.String() != want || s.Err.String() != "" {
		t.Errorf("tab-separated:\n%q\nwant\n%q\nstderr %q", s.Out, want, s.Err)
	}
}

func TestShowFilters(t *testing.T) {
	pool, over := showDB(t)
	for _, tc := range []struct {
		name string
		opts ShowOptions
		want []string
	}{
		{"provider", ShowOptions{Providers: []string{"groq"}}, []string{"groq/llama-3.1-8b-instant"}},
		{"model pattern", ShowOptions{Models: []string{"gpt-*"}}, []string{"openai/gpt-4o"}},
		{"provider/model", ShowOptions{Models: []string{"openai/o3", "groq/*"}}, []string{"groq/llama-3.1-8b-instant", "openai/o3"}},
		{"capabilities", ShowOptions{Capabilities: []string{"tool_call", "reasoning"}}, []string{"openai/o3"}},
		{"capability from an override", ShowOptions{Capabilities: []string{"tool_call", "open_weights"}}, []string{"groq/llama-3.1-8b-instant"}},
		{"min context after override", ShowOptions{MinContext: 150000}, []string{"openai/gpt-4o", "openai/o3"}},
		{"nothing", ShowOptions{Providers: []string{"anthropic"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := runShow(t, pool, false, func(o *ShowOptions) {
				o.Providers, o.Models, o.Capabilities, o.MinContext = tc.opts.Providers, tc.opts.Models, tc.opts.Capabilities, tc.opts.MinContext
				o.OverridesFile = over
				o.F.Global.Output = "json"
			})
			if err != nil {
				t.Fatal(err)
			}
			var doc ShowResult
			if err := json.Unmarshal(s.Out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range doc.Models {
				got = append(got, catalog.Key(e.Provider, e.Model))
			}
			if !reflect.DeepEqual(got, tc.want) || doc.Snapshot == nil || doc.Models == nil {
				t.Errorf("models %q, want %q (snapshot %v)", got, tc.want, doc.Snapshot)
			}
		})
	}
}

func TestShowFallsBackToEmbeddedSnapshot(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "catalog", "fallback.json"))
	if err != nil {
		t.Fatal(err)
	}
	// What the filter should keep, computed from the raw JSON.
	var doc map[string]struct {
		Models map[string]struct {
			Reasoning bool `json:"reasoning"`
			Limit     struct {
				Context int64 `json:"context"`
			} `json:"limit"`
		} `json:"models"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, m := range doc["anthropic"].Models {
		if m.Reasoning && m.Limit.Context >= 200000 {
			want++
		}
	}
	if want == 0 {
		t.Fatal("the embedded snapshot has no anthropic reasoning model with 200k context")
	}
	filter := func(o *ShowOptions) {
		o.Providers, o.Capabilities, o.MinContext = []string{"anthropic"}, []string{"reasoning"}, 200000
	}
	for name, pool := range map[string]*pgxpool.Pool{"database unreachable": nil, "no snapshot": pgtest.New(t)} {
		t.Run(name, func(t *testing.T) {
			s, err := runShow(t, pool, false, filter)
			if err != nil {
				t.Fatal(err)
			}
			rows := strings.Split(strings.TrimSuffix(s.Out.String(), "\n"), "\n")
			if len(rows) != want {
				t.Errorf("%d rows, want %d:\n%s", len(rows), want, s.Out)
			}
			for _, r := range rows {
				if f := strings.Split(r, "\t"); f[0] != "anthropic" || !strings.Contains(f[6], "reasoning") {
					t.Errorf("row %q does not match the filter", r)
				}
			}
			if !strings.Contains(s.Err.String(), "using the catalog compiled into helix") {
				t.Errorf("no warning on stderr: %q", s.Err)
			}
		})
	}
}

func TestShowArgs(t *testing.T) {
	over := filepath.Join(t.TempDir(), "o.yaml")
	t.Setenv("HELIX_CATALOG_OVERRIDES", over)
	f, _ := cmdtest.Factory(t, false)
	var got *ShowOptions
	cmd := NewCmdShow(f, func(o *ShowOptions) error { got = o; return nil })
	if err := parseArgs(t, cmd, "--only-provider", "openai", "--model", "gpt-4o*,o3", "--capability", "reasoning,tool_call", "--min-context", "100000"); err != nil {
		t.Fatal(err)
	}
	want := &ShowOptions{IO: f.IOStreams, F: f, Providers: []string{"openai"}, Models: []string{"gpt-4o*", "o3"},
		Capabilities: []string{"reasoning", "tool_call"}, MinContext: 100000, OverridesFile: over}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("options %+v", got)
	}
	for _, args := range [][]string{{"--capability", "vision"}, {"--model", "[x"}, {"--min-context", "-1"}} {
		var fe *cmdutil.FlagError
		if err := parseArgs(t, NewCmdShow(f, func(*ShowOptions) error { return nil }), args...); !errors.As(err, &fe) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

func TestShowBadOverrides(t *testing.T) {
	over := filepath.Join(t.TempDir(), "o.yaml")
	if err := os.WriteFile(over, []byte("modles: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runShow(t, nil, false, func(o *ShowOptions) { o.OverridesFile = over })
	if exitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "overrides "+over) {
		t.Errorf("error %v", err)
	}
}
