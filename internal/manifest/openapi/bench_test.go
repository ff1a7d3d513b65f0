package openapi

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/third_party/openapi3"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/pgtest"
)

var (
	bigOnce sync.Once
	bigDoc  []byte
)

// bigOpenAPI builds a JSON OpenAPI document of at least 5 MB from the real
// OpenAI description: the document itself, a copy with every path, operationId
// and component renamed, then renamed copies of its paths, in path order, until 5 MB.
func bigOpenAPI(b testing.TB) []byte {
	bigOnce.Do(func() {
		d, err := manifest.Decode("openai", readTestdata(b, openAIFile))
		if err != nil {
			b.Fatal(err)
		}
		root := d.Tree.(map[string]any)
		copy1 := rename(root, "_c1", "/c1").(map[string]any)
		paths := root["paths"].(map[string]any)
		for p, v := range copy1["paths"].(map[string]any) {
			paths[p] = v
		}
		comps := root["components"].(map[string]any)
		for kind, v := range copy1["components"].(map[string]any) {
			if m, ok := v.(map[string]any); ok {
				dst, _ := comps[kind].(map[string]any)
				for k, x := range m {
					dst[k] = x
				}
			}
		}
		size := func() int { bs, _ := json.Marshal(root); return len(bs) }
		orig := rename(d.Tree, "_c2", "/c2").(map[string]any)["paths"].(map[string]any)
		keys := make([]string, 0, len(orig))
		for p := range orig {
			keys = append(keys, p)
		}
		// Sorted: the same document, and the same tools, every run.
		sort.Strings(keys)
		n := 0
		for _, p := range keys {
			// Keep the references to the original components.
			paths[p] = restoreRefs(orig[p], "_c2")
			if n++; n%20 == 0 && size() >= 5<<20 {
				break
			}
		}
		bigDoc, err = json.Marshal(root)
		if err != nil {
			b.Fatal(err)
		}
	})
	return bigDoc
}

// TestWriteBenchDocument writes the benchmark's 5 MB document to the file
// named by HELIX_BENCH_OPENAPI_OUT, for scripts/bench/manifest.sh to time the
// whole `helix manifest import` process on it; without it, it is skipped.
func TestWriteBenchDocument(t *testing.T) {
	out := os.Getenv("HELIX_BENCH_OPENAPI_OUT")
	if out == "" {
		t.Skip("HELIX_BENCH_OPENAPI_OUT not set")
	}
	if err := os.WriteFile(out, bigOpenAPI(t), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rename gives paths, operationIds and component names a suffix (or prefix for paths).
func rename(v any, suffix, prefix string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = rename(e, suffix, prefix)
		}
		if id, ok := x["operationId"].(string); ok {
			out["operationId"] = id + suffix
		}
		if r, ok := x["$ref"].(string); ok && strings.HasPrefix(r, "#/components/") {
			parts := strings.SplitN(r, "/", 5)
			parts[3] += suffix
			out["$ref"] = strings.Join(parts, "/")
		}
		if ps, ok := x["paths"].(map[string]any); ok {
			np := make(map[string]any, len(ps))
			for p, e := range ps {
				np[prefix+p] = rename(e, suffix, prefix)
			}
			out["paths"] = np
		}
		if cs, ok := x["components"].(map[string]any); ok {
			nc := make(map[string]any, len(cs))
			for kind, e := range cs {
				m, ok := e.(map[string]any)
				if !ok {
					continue
				}
				nm := make(map[string]any, len(m))
				for k, s := range m {
					nm[k+suffix] = rename(s, suffix, prefix)
				}
				nc[kind] = nm
			}
			out["components"] = nc
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = rename(e, suffix, prefix)
		}
		return out
	}
	return v
}

func restoreRefs(v any, suffix string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = restoreRefs(e, suffix)
		}
		if r, ok := x["$ref"].(string); ok {
			parts := strings.SplitN(r, "/", 5)
			if len(parts) >= 4 {
				parts[3] = strings.TrimSuffix(parts[3], suffix)
				x["$ref"] = strings.Join(parts, "/")
			}
		}
	case []any:
		for i, e := range x {
			x[i] = restoreRefs(e, suffix)
		}
	}
	return v
}

// BenchmarkImport5MB is the whole import of a 5 MB document: parse, check
// references, validate with kin-openapi, build and compile every tool's
// parameters schema, and record all of them in one transaction.
func BenchmarkImport5MB(b *testing.B) {
	doc := bigOpenAPI(b)
	pool := pgtest.New(b)
	ctx := context.Background()
	b.SetBytes(int64(len(doc)))
	var tools int
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := pool.Exec(ctx, "TRUNCATE tool_manifests CASCADE"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		l, err := Parse(ctx, "big.json", doc, LoadOptions{OpenAPI: Options{Timeout: "30s"}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := manifest.Record(ctx, pool, l.Candidates, manifest.ImportOptions{Actor: "bench", Now: time.Now()}); err != nil {
			b.Fatal(err)
		}
		tools = len(l.Candidates)
	}
	b.ReportMetric(float64(tools), "tools")
	// On a shared machine wall time mostly measures the neighbours; CPU time does not.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkKinOpenAPILoad5MB is the reference: kin-openapi alone loading and
// validating the same document (what any Go importer would pay at least).
func BenchmarkKinOpenAPILoad5MB(b *testing.B) {
	doc := bigOpenAPI(b)
	b.SetBytes(int64(len(doc)))
	ctx := context.Background()
	cpu0 := cpuTime()
	b.ResetTimer()
	defer func() { b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op") }()
	for i := 0; i < b.N; i++ {
		d, err := openapi3.NewLoader().LoadFromData(doc)
		if err != nil {
			b.Fatal(err)
		}
		_ = d.Validate(ctx, openapi3.EnableMultiError())
	}
}

var (
	hugeOnce sync.Once
	hugeDoc  []byte
)

// hugeOpenAPI builds a JSON OpenAPI document of at least 20 MB and 10,000
// operations, the size of the largest published descriptions (one seen had
// 11,422 operations in 20 MB): the OpenAI description, then renamed copies
// of its paths referring to the original components, with or without their
// x-oaiMeta examples so that the document keeps about 2 KB per operation.
func hugeOpenAPI(b testing.TB) []byte {
	hugeOnce.Do(func() {
		d, err := manifest.Decode("openai", readTestdata(b, openAIFile))
		if err != nil {
			b.Fatal(err)
		}
		root := d.Tree.(map[string]any)
		paths := root["paths"].(map[string]any)
		whole, _ := json.Marshal(root)
		size, ops := len(whole), countOps(paths)
		keys := make([]string, 0, len(paths))
		for p := range paths {
			keys = append(keys, p)
		}
		sort.Strings(keys)
		for i := 2; ops < 10_000 || size < 20<<20; i++ {
			suffix := "_h" + strconv.Itoa(i)
			keepMeta := size < 2100*ops
			for _, p := range keys {
				c := rename(map[string]any{"paths": map[string]any{p: paths[p]}}, suffix, "/h"+strconv.Itoa(i)).(map[string]any)
				for np, item := range c["paths"].(map[string]any) {
					item = restoreRefs(item, suffix)
					if !keepMeta {
						stripMeta(item)
					}
					js, _ := json.Marshal(item)
					size += len(js) + len(np) + 4
					ops += countOps(map[string]any{np: item})
					paths[np] = item
				}
			}
		}
		if hugeDoc, err = json.Marshal(root); err != nil {
			b.Fatal(err)
		}
	})
	return hugeDoc
}

func countOps(paths map[string]any) int {
	n := 0
	for _, it := range paths {
		if item, ok := it.(map[string]any); ok {
			for _, m := range methods {
				if _, ok := item[m]; ok {
					n++
				}
			}
		}
	}
	return n
}

// stripMeta drops the operations' x-oaiMeta (their long code examples).
func stripMeta(item any) {
	if m, ok := item.(map[string]any); ok {
		for _, v := range m {
			if op, ok := v.(map[string]any); ok {
				delete(op, "x-oaiMeta")
			}
		}
	}
}

// TestWriteHugeBenchDocument writes the 20 MB, 10,000-operation document to
// HELIX_BENCH_OPENAPI_HUGE_OUT for scripts/bench/manifest.sh; without it, it is skipped.
func TestWriteHugeBenchDocument(t *testing.T) {
	out := os.Getenv("HELIX_BENCH_OPENAPI_HUGE_OUT")
	if out == "" {
		t.Skip("HELIX_BENCH_OPENAPI_HUGE_OUT not set")
	}
	doc := hugeOpenAPI(t)
	if err := os.WriteFile(out, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes, %d operations", len(doc), countOps(v["paths"].(map[string]any)))
}

// BenchmarkParseFile is `manifest import --dry-run` of the document named by
// HELIX_BENCH_OPENAPI_FILE (a large one of the corpus, such as
// microsoft.com/graph.json; see scripts/bench/openapi_corpus.sh), for
// profiling with -cpuprofile and -memprofile; without it, it is skipped.
func BenchmarkParseFile(b *testing.B) {
	file := os.Getenv("HELIX_BENCH_OPENAPI_FILE")
	if file == "" {
		b.Skip("HELIX_BENCH_OPENAPI_FILE not set")
	}
	doc, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	ctx := context.Background()
	var tools int
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := Parse(ctx, file, doc, LoadOptions{OpenAPI: Options{Timeout: "30s"}})
		if err != nil {
			b.Fatal(err)
		}
		tools = len(l.Candidates)
	}
	b.ReportMetric(float64(tools), "tools")
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
