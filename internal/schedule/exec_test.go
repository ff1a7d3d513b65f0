package schedule

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestJobOutput(t *testing.T) {
	stderr := `{"time":"t","level":"INFO","msg":"decay run finished"}
{"error":{"message":"no catalog snapshot is pinned: run helix catalog fetch","code":2,"kind":"input"}}
{"time":"t","level":"INFO","msg":"after"}
`
	if got := lastError([]byte(stderr)); got != "no catalog snapshot is pinned: run helix catalog fetch" {
		t.Errorf("lastError = %q", got)
	}
	if got := lastError([]byte("panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n")); got != "main.main()" {
		t.Errorf("lastError of a crash = %q", got)
	}
	if got := lastError(nil); got != "" {
		t.Errorf("lastError(nil) = %q", got)
	}
	got := string(counts([]byte(`{"run_id": 12345678901234567890, "ok": true, "name": "x", "long": "` + strings.Repeat("a", 300) + `", "n": {"a": 1}}`)))
	if got != `{"name":"x","ok":true,"run_id":12345678901234567890}` {
		t.Errorf("counts = %s", got)
	}
	// synthesize keeps its figures under "counts" (issue 49: history showed only run_id)
	got = string(counts([]byte(`{"run_id": 7, "dry_run": false, "params": {"k": 3}, "users": [{"memories": 2}], "counts": {"users": 4, "done": 4, "patterns": 9, "run_id": 1}}`)))
	if got != `{"done":4,"dry_run":false,"patterns":9,"run_id":7,"users":4}` {
		t.Errorf("counts of a synthesize report = %s", got)
	}
	for _, in := range []string{"", "[1,2]", "null", "{}", "not json", `{"a": {"b": 1}}`, `{"counts": {"b": {"c": 1}}}`} {
		if c := counts([]byte(in)); c != nil {
			t.Errorf("counts(%q) = %s, want nil", in, c)
		}
	}
	c := &capped{max: 4, tail: true}
	_, _ = c.Write([]byte("abc"))
	_, _ = c.Write([]byte("defg"))
	h := &capped{max: 4}
	_, _ = h.Write([]byte("abc"))
	_, _ = h.Write([]byte("defg"))
	if string(c.Bytes()) != "defg" || string(h.Bytes()) != "abcd" {
		t.Errorf("capped: tail %q head %q", c.Bytes(), h.Bytes())
	}
}

// FuzzJobOutput feeds a job's stdout and stderr (bytes of a child process) to
// the parsers that keep a fire's counts and error.
func FuzzJobOutput(f *testing.F) {
	f.Add([]byte(`{"run_id": 1, "memories": 3}`), []byte(`{"error":{"message":"boom","code":1}}`))
	f.Add([]byte(`{"a": 1e999, "b": "x"}`), []byte("plain\n{\"error\": null}\n"))
	f.Add([]byte{0xff, '{'}, []byte("\n\n"))
	f.Fuzz(func(t *testing.T, stdout, stderr []byte) {
		if c := counts(stdout); c != nil {
			var m map[string]any
			d := json.NewDecoder(bytes.NewReader(c))
			d.UseNumber()
			if err := d.Decode(&m); err != nil || len(m) == 0 {
				t.Fatalf("counts %q: not a JSON object: %v", c, err)
			}
			for k, v := range m {
				if _, nested := v.(map[string]any); nested {
					t.Fatalf("counts kept nested %s", k)
				}
			}
		}
		// a line that is no JSON is kept whole up to 1000 bytes
		if msg := lastError(stderr); !json.Valid([]byte(strings.TrimSpace(msg))) && len(msg) > 1000 && !strings.Contains(string(stderr), `"message"`) {
			t.Fatalf("lastError kept %d bytes", len(msg))
		}
	})
}

// A job line in logs and tables reads as a command line, not Go's
// [sync reconcile] (issue 49).
func TestJobLine(t *testing.T) {
	if got := JobLine([]string{"sync", "reconcile"}); got != "sync reconcile" {
		t.Errorf("JobLine = %q", got)
	}
	if got := JobLine([]string{"catalog", "verify", "--source", "a b.json", ""}); got != `catalog verify --source "a b.json" ""` {
		t.Errorf("JobLine = %q", got)
	}
}
