package manifest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/manifest/openapi"
	"github.com/helixhq/helix/internal/pgtest"
)

// The tests of what imports record: the documents are parsed by package openapi.

const testdata = "../../testdata/manifest/"

// parseFile parses a document of testdata (gzipped when its name ends in .gz).
func parseFile(t testing.TB, name string) (*openapi.Loaded, error) {
	t.Helper()
	if name == openAIFile {
		// The 3 MB document is parsed once for all tests: its YAML is slow under -race.
		openAIOnce.Do(func() { openAILoaded, openAIErr = parse(t, name) })
		return openAILoaded, openAIErr
	}
	return parse(t, name)
}

var (
	openAIOnce   sync.Once
	openAILoaded *openapi.Loaded
	openAIErr    error
)

func parse(t testing.TB, name string) (*openapi.Loaded, error) {
	b, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(name) == ".gz" {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return openapi.Parse(context.Background(), name, b, openapi.LoadOptions{})
}

func candidates(t *testing.T, names ...string) []manifest.Candidate {
	t.Helper()
	var out []manifest.Candidate
	for _, n := range names {
		l, err := parseFile(t, n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, l.Candidates...)
	}
	return out
}

const openAIFile = "openai-openapi.yaml.gz"

// The encoder that reuses shared schema parts writes exactly what
// encoding/json does: digests of tools recorded before it are unchanged.
func TestSharedEncodingIsJSONMarshal(t *testing.T) {
	for _, f := range []string{openAIFile, "oai-v3.0-petstore-expanded.yaml", "tools/recursive.yaml"} {
		l, err := parseFile(t, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range l.Candidates {
			if manifest.SharedOf(c.Manifest) == nil {
				t.Fatalf("%s: no shared parts", c.Manifest.Name)
			}
			_, got, err := manifest.Digest(c.Manifest)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(c.Manifest)
			if string(got) != string(want) {
				t.Fatalf("%s: encodings differ:\n%.300s\n%.300s", c.Manifest.Name, got, want)
			}
		}
	}
}

// erringCtx ends (its Err, not its Done) after its Err has been asked n times.
type erringCtx struct {
	context.Context
	mu sync.Mutex
	n  int
}

func (c *erringCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// Interrupted while it stores the tools, an import writes nothing.
func TestRecordInterruptedWritesNothing(t *testing.T) {
	pool := pgtest.New(t)
	cands := candidates(t, "oai-v3.0-uspto.json", "oai-v3.0-petstore.yaml")
	if len(cands) < 3 {
		t.Fatalf("%d candidates", len(cands))
	}
	// The first row of the COPY goes out, the second finds the import interrupted.
	ctx := &erringCtx{Context: context.Background(), n: 1}
	_, err := manifest.Record(ctx, pool, cands, manifest.ImportOptions{Actor: "test", Now: time.Now()})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Record: %v", err)
	}
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT (SELECT count(*) FROM tool_manifests) + (SELECT count(*) FROM tool_audit)").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d rows written", n)
	}
}
