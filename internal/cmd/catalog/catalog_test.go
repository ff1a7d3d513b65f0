package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/helixhq/helix/internal/catalog/catalogtest"
	"github.com/helixhq/helix/internal/testbin"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "catalog", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// upstream is a models.dev stand-in: it serves one body with a strong ETag and honours If-None-Match.
type upstream struct {
	mu       sync.Mutex
	body     []byte
	status   int
	delay    time.Duration
	requests int
	*httptest.Server
}

func newUpstream(t *testing.T, body []byte) *upstream {
	u := &upstream{body: body, status: http.StatusOK}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		body, status, delay := u.body, u.status, u.delay
		u.requests++
		u.mu.Unlock()
		if r.Method != http.MethodGet || r.URL.Path != "/api.json" {
			http.NotFound(w, r)
			return
		}
		if delay > 0 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(delay):
			}
		}
		if status != http.StatusOK {
			http.Error(w, "upstream trouble", status)
			return
		}
		sum := sha256.Sum256(body)
		etag := `"` + hex.EncodeToString(sum[:8]) + `"`
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) set(body []byte, status int, delay time.Duration) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.body, u.status, u.delay = body, status, delay
}

func (u *upstream) url() string { return u.URL + "/api.json" }

func testNet() NetOptions {
	return NetOptions{AllowPrivate: true, Timeout: time.Minute, MaxBytes: 8 << 20, Retries: 1, Backoff: time.Millisecond}
}

// exitCode is the exit status helix gives err: the one table.
func exitCode(err error) cmdutil.ExitCode { return cmdutil.Code(err) }

func runFetch(t *testing.T, pool *pgxpool.Pool, source string, tty bool, mutate func(*FetchOptions)) (cmdtest.Streams, error) {
	t.Helper()
	f, s := cmdtest.Factory(t, tty)
	cmdtest.WithDB(f, pool)
	opts := &FetchOptions{IO: f.IOStreams, F: f, Source: source, Net: testNet()}
	if mutate != nil {
		mutate(opts)
	}
	return s, fetchRun(context.Background(), opts)
}

func runVerify(t *testing.T, pool *pgxpool.Pool, tty, asJSON bool) (cmdtest.Streams, error) {
	t.Helper()
	f, s := cmdtest.Factory(t, tty)
	cmdtest.WithDB(f, pool)
	if asJSON {
		f.Global.Output = "json"
	}
	return s, verifyRun(context.Background(), &VerifyOptions{IO: f.IOStreams, F: f, Net: testNet()})
}

func snapshotState(t *testing.T, pool *pgxpool.Pool) (pinned catalog.Snapshot, snapshots int) {
	t.Helper()
	ctx := context.Background()
	pinned, err := catalog.Pinned(ctx, pool)
	if err != nil && !errors.Is(err, catalog.ErrNoSnapshot) {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM model_catalog_snapshots`).Scan(&snapshots); err != nil {
		t.Fatal(err)
	}
	return pinned, snapshots
}

func jobRuns(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT job || ':' || status FROM job_runs ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func TestFetchVerifyLifecycle(t *testing.T) {
	t.Run("testdata", func(t *testing.T) {
		testLifecycle(t, fixture(t, "api-2026-06-14.json"), fixture(t, "api-2026-07-02.json"))
	})
	// The full snapshots (~3 MB, ~5,270 models each) when the shared data is
	// present; the race detector makes them take minutes.
	dir := testbin.Shared("realworld", "models.dev") + "/"
	oldRaw, err1 := os.ReadFile(dir + "api-2026-06-14.json")
	newRaw, err2 := os.ReadFile(dir + "api-2026-07-02.json")
	if err1 == nil && err2 == nil && !raceEnabled {
		t.Run("full", func(t *testing.T) { testLifecycle(t, oldRaw, newRaw) })
	}
}

func testLifecycle(t *testing.T, oldRaw, newRaw []byte) {
	pool := pgtest.New(t)
	up := newUpstream(t, oldRaw)
	oldCat, err := catalog.Parse(oldRaw)
	if err != nil {
		t.Fatal(err)
	}

	// First fetch stores and pins a snapshot.
	s, err := runFetch(t, pool, up.url(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	pinned, n := snapshotState(t, pool)
	wantLine := "stored new snapshot " + itoa(pinned.ID) + ": " + itoa(len(oldCat)) + " providers, " + itoa(oldCat.ModelCount()) + " models, sha256 " + pinned.SHA256[:12] + ", from " + up.url() + "\n"
	if s.Out.String() != wantLine || n != 1 {
		t.Fatalf("fetch stdout %q (%d snapshots), want %q", s.Out.String(), n, wantLine)
	}
	if pinned.ETag == "" || pinned.Source != up.url() {
		t.Errorf("pinned snapshot %+v lacks its ETag or source", pinned)
	}

	// Re-fetch: the server answers 304 to the pinned ETag; nothing new.
	s, err = runFetch(t, pool, up.url(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Out.String(), "unchanged upstream (304), kept snapshot "+itoa(pinned.ID)+":") {
		t.Errorf("re-fetch stdout %q", s.Out.String())
	}
	// Without the ETag (a server that ignores it), sha256 still dedupes.
	s, err = runFetch(t, pool, up.url(), false, func(o *FetchOptions) { o.Out = filepath.Join(t.TempDir(), "out.json") })
	if err != nil {
		t.Fatal(err)
	}
	if _, n = snapshotState(t, pool); n != 1 {
		t.Errorf("identical content stored again: %d snapshots", n)
	}

	// Verify with no drift: exit 0, nothing on stdout, a status line on stderr.
	s, err = runVerify(t, pool, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Out.String() != "" || !strings.HasPrefix(s.Err.String(), "no drift: "+up.url()+" matches snapshot") {
		t.Errorf("verify without drift: stdout %q stderr %q", s.Out, s.Err)
	}

	// Upstream moves on: verify reports every added, removed and changed model and exits 1.
	up.set(newRaw, http.StatusOK, 0)
	added, removed, changed := catalogtest.ExpectedDiff(t, oldRaw, newRaw)
	s, err = runVerify(t, pool, false, false)
	if exitCode(err) != cmdutil.ExitFailed || !strings.Contains(err.Error(), "catalog drift: "+itoa(len(added))+" added, "+itoa(len(removed))+" removed") {
		t.Fatalf("verify after drift: %v", err)
	}
	got := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(s.Out.String(), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("row %q has %d fields", line, len(f))
		}
		if f[0] == "changed" && !strings.Contains(f[1], "/") {
			continue // a provider's own field
		}
		if k := f[0]; len(got[k]) == 0 || got[k][len(got[k])-1] != f[1] {
			got[k] = append(got[k], f[1])
		}
	}
	for _, l := range got {
		sort.Strings(l)
	}
	if !reflect.DeepEqual(got["added"], added) || !reflect.DeepEqual(got["removed"], removed) || !reflect.DeepEqual(got["changed"], changed) {
		t.Errorf("verify rows: %d added, %d removed, %d changed; want %d, %d, %d",
			len(got["added"]), len(got["removed"]), len(got["changed"]), len(added), len(removed), len(changed))
	}

	// The same as JSON, and as lines on a terminal.
	s, err = runVerify(t, pool, false, true)
	if exitCode(err) != cmdutil.ExitFailed {
		t.Fatalf("verify --output json: %v", err)
	}
	var doc struct {
		Drift   bool     `json:"drift"`
		Added   []string `json:"added"`
		Removed []string `json:"removed"`
		Changed []struct {
			Key    string `json:"key"`
			Fields []struct {
				Path string `json:"path"`
			} `json:"fields"`
		} `json:"changed"`
	}
	if err := json.Unmarshal(s.Out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var jsonChanged []string
	for _, c := range doc.Changed {
		if strings.Contains(c.Key, "/") {
			jsonChanged = append(jsonChanged, c.Key)
		}
	}
	sort.Strings(doc.Added)
	sort.Strings(doc.Removed)
	sort.Strings(jsonChanged)
	if !doc.Drift || !reflect.DeepEqual(doc.Added, added) || !reflect.DeepEqual(doc.Removed, removed) || !reflect.DeepEqual(jsonChanged, changed) {
		t.Errorf("verify JSON: drift=%v, %d added, %d removed, %d changed", doc.Drift, len(doc.Added), len(doc.Removed), len(jsonChanged))
	}
	s, _ = runVerify(t, pool, true, false)
	if !strings.Contains(s.Out.String(), "added    "+added[0]+"\n") || !strings.Contains(s.Out.String(), "removed  "+removed[0]+"\n") ||
		!strings.Contains(s.Out.String(), "changed  "+changed[0]+": ") || !strings.Contains(s.Out.String(), " → ") {
		t.Errorf("verify on a terminal:\n%.1500s", s.Out)
	}

	// Fetching the new catalog pins it; verify is clean again.
	if _, err := runFetch(t, pool, up.url(), false, nil); err != nil {
		t.Fatal(err)
	}
	if p, n := snapshotState(t, pool); n != 2 || p.ID == pinned.ID {
		t.Errorf("after fetching the new catalog: pinned %d, %d snapshots", p.ID, n)
	}
	if _, err := runVerify(t, pool, false, false); err != nil {
		t.Errorf("verify after re-pinning: %v", err)
	}
	want := []string{"catalog fetch:ok", "catalog fetch:ok", "catalog fetch:ok", "catalog verify:ok",
		"catalog verify:failed", "catalog verify:failed", "catalog verify:failed", "catalog fetch:ok", "catalog verify:ok"}
	if got := jobRuns(t, pool); !reflect.DeepEqual(got, want) {
		t.Errorf("job_runs = %q\nwant %q", got, want)
	}
}

func TestFetchProviderFilterAndOut(t *testing.T) {
	pool := pgtest.New(t)
	up := newUpstream(t, fixture(t, "api-2026-07-02.json"))
	out := filepath.Join(t.TempDir(), "catalog.json")
	_, err := runFetch(t, pool, up.url(), false, func(o *FetchOptions) {
		o.Providers = []string{"anthropic", "openai"}
		o.Out = out
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	written, err := catalog.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	pinned, _ := snapshotState(t, pool)
	if !reflect.DeepEqual(written.ProviderIDs(), []string{"anthropic", "openai"}) || pinned.Models != written.ModelCount() ||
		!reflect.DeepEqual(pinned.ProviderFilter, []string{"anthropic", "openai"}) {
		t.Errorf("--out has %v; pinned %+v", written.ProviderIDs(), pinned)
	}
	if _, err := runFetch(t, pool, up.url(), false, func(o *FetchOptions) { o.Providers = []string{"nope"} }); exitCode(err) != cmdutil.ExitUsage ||
		!strings.Contains(err.Error(), "has no provider nope") {
		t.Errorf("unknown provider: %v", err)
	}
}

func TestFetchFailuresLeavePinnedSnapshot(t *testing.T) {
	pool := pgtest.New(t)
	good := fixture(t, "api-2026-06-14.json")
	up := newUpstream(t, good)
	if _, err := runFetch(t, pool, up.url(), false, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := snapshotState(t, pool)
	for _, tc := range []struct {
		name   string
		body   []byte
		status int
		delay  time.Duration
		code   cmdutil.ExitCode
		want   string
	}{
		{"malformed JSON", append([]byte(nil), good[:len(good)/2]...), 200, 0, cmdutil.ExitUsage, "parse catalog from " + up.url() + ": malformed catalog JSON"},
		{"server error", good, 500, 0, cmdutil.ExitUnavailable, "500 Internal Server Error"},
		{"slow server", good, 200, 3 * time.Second, cmdutil.ExitUnavailable, "timed out after 300ms"},
		{"oversized body", append(good, make([]byte, 8<<20)...), 200, 0, cmdutil.ExitUsage, "response body too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up.set(tc.body, tc.status, tc.delay)
			_, err := runFetch(t, pool, up.url(), false, func(o *FetchOptions) {
				if tc.delay > 0 {
					o.Net.Timeout = 300 * time.Millisecond
				}
				o.Net.Retries = 0
			})
			if exitCode(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (exit %d), want exit %d with %q", err, exitCode(err), tc.code, tc.want)
			}
			after, n := snapshotState(t, pool)
			if after.ID != before.ID || after.SHA256 != before.SHA256 || n != 1 {
				t.Errorf("pinned snapshot touched: %+v (%d snapshots)", after, n)
			}
		})
	}
}

func TestFetchRefusesLoopbackUnlessAllowed(t *testing.T) {
	pool := pgtest.New(t)
	up := newUpstream(t, fixture(t, "api-2026-06-14.json"))
	_, err := runFetch(t, pool, up.url(), false, func(o *FetchOptions) { o.Net.AllowPrivate = false })
	if exitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "pass --allow-private") {
		t.Fatalf("error %v, want a refusal naming --allow-private", err)
	}
	if _, n := snapshotState(t, pool); n != 0 || up.requests != 0 {
		t.Errorf("%d snapshots stored, %d requests reached the server", n, up.requests)
	}
}

func TestVerifyWithoutSnapshot(t *testing.T) {
	_, err := runVerify(t, pgtest.New(t), false, false)
	if exitCode(err) != cmdutil.ExitUsage || !errors.Is(err, catalog.ErrNoSnapshot) {
		t.Errorf("error %v", err)
	}
}

func parseArgs(t *testing.T, cmd *cobra.Command, args ...string) error {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetOut(new(strings.Builder))
	cmd.SetErr(new(strings.Builder))
	return cmd.Execute()
}

func TestFetchArgs(t *testing.T) {
	t.Setenv("HELIX_CATALOG_SOURCE", "https://mirror.example/api.json")
	f, _ := cmdtest.Factory(t, false)
	var got *FetchOptions
	var got2 *VerifyOptions
	cmd := NewCmdFetch(f, func(o *FetchOptions) error { got = o; return nil })
	if err := parseArgs(t, cmd, "--only-provider", "openai, anthropic,openai", "--out", "c.json", "--fetch-timeout", "5s", "--retries", "0", "--allow-private"); err != nil {
		t.Fatal(err)
	}
	if got.Source != "https://mirror.example/api.json" || !reflect.DeepEqual(got.Providers, []string{"anthropic", "openai"}) ||
		got.Out != "c.json" || got.Net.Timeout != 5*time.Second || got.Net.Retries != 0 || !got.Net.AllowPrivate || got.Net.MaxBytes != 64<<20 {
		t.Errorf("options %+v", got)
	}
	cmd = NewCmdFetch(f, func(o *FetchOptions) error { got = o; return nil })
	// a file is stored absolute, so catalog verify from another directory finds it
	wd, _ := os.Getwd()
	if err := parseArgs(t, cmd, "--source", "./api.json"); err != nil || got.Source != filepath.Join(wd, "api.json") {
		t.Errorf("--source: %v %q", err, got.Source)
	}
	cmd = NewCmdVerify(f, func(o *VerifyOptions) error { got2 = o; return nil })
	if err := parseArgs(t, cmd, "--source", "file://api.json"); err != nil || got2.Source != filepath.Join(wd, "api.json") {
		t.Errorf("verify --source: %v %q", err, got2.Source)
	}
	var fe *cmdutil.FlagError
	if err := parseArgs(t, NewCmdFetch(f, func(*FetchOptions) error { return nil }), "--fetch-timeout", "0s"); !errors.As(err, &fe) {
		t.Errorf("--timeout 0: %v", err)
	}
}

func TestVerifyArgs(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	var got *VerifyOptions
	cmd := NewCmdVerify(f, func(o *VerifyOptions) error { got = o; return nil })
	if err := parseArgs(t, cmd, "--source", "https://models.dev/api.json", "--max-bytes", "1000"); err != nil {
		t.Fatal(err)
	}
	if got.Source != "https://models.dev/api.json" || got.Net.MaxBytes != 1000 || got.Net.AllowPrivate {
		t.Errorf("options %+v", got)
	}
	if err := parseArgs(t, NewCmdVerify(f, nil), "extra"); err == nil {
		t.Error("verify took an argument")
	}
}

func itoa[T int | int64](v T) string { return strconv.FormatInt(int64(v), 10) }

// A snapshot fetched with --allow-private is verified by a command with its
// own setting: the refusal names it (issue 49).
func TestVerifyRefusalNamesItsSetting(t *testing.T) {
	pool := pgtest.New(t)
	up := newUpstream(t, fixture(t, "api-2026-06-14.json"))
	if _, err := runFetch(t, pool, up.url(), false, nil); err != nil {
		t.Fatal(err)
	}
	f, _ := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	nt := testNet()
	nt.AllowPrivate = false
	err := verifyRun(context.Background(), &VerifyOptions{IO: f.IOStreams, F: f, Net: nt})
	if exitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "catalog.verify.allow-private") ||
		!strings.Contains(err.Error(), "HELIX_CATALOG_VERIFY_ALLOW_PRIVATE") {
		t.Fatalf("error %v, want exit 2 naming catalog.verify.allow-private", err)
	}
}
