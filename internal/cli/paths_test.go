package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/embed/embedtest"
	"github.com/helixhq/helix/internal/pgtest"
)

// Issue 28: helix through each connection path the platform gives it — a
// direct connection, a session-mode and a transaction-mode PgBouncer
// configured as Supabase's (pgtest.Bouncer) — with the same database result.

var connectionPaths = []db.Path{db.PathDirect, db.PathSession, db.PathTransaction}

// pathURL creates a fresh database and returns its direct URL and the URL
// through p.
func pathURL(t *testing.T, p db.Path, empty bool) (direct, through string) {
	t.Helper()
	if empty {
		direct = pgtest.Empty(t)
	} else {
		direct = pgtest.URL(t)
	}
	switch p {
	case db.PathSession:
		return direct, pgtest.Bouncer(t, pgtest.SessionMode, direct)
	case db.PathTransaction:
		return direct, pgtest.Bouncer(t, pgtest.TransactionMode, direct)
	}
	return direct, direct
}

// embeddings is an OpenAI-compatible embeddings server; gate, when not nil,
// holds every request until it is closed.
type embeddings struct {
	*embedtest.Server
	gate chan struct{}
}

func newEmbeddings(t *testing.T, gated bool) *embeddings {
	e := &embeddings{Server: &embedtest.Server{Dim: 384}} // the demo memories' embeddings have 384
	if gated {
		e.gate = make(chan struct{})
		e.Before = func(_ http.ResponseWriter, r *http.Request, _ int64) bool {
			select {
			case <-e.gate:
				return false
			case <-r.Context().Done():
				return true
			}
		}
	}
	embedtest.Start(t, e.Server)
	t.Cleanup(e.open)
	return e
}

var gateMu sync.Mutex

func (e *embeddings) open() {
	gateMu.Lock()
	defer gateMu.Unlock()
	if e.gate != nil {
		select {
		case <-e.gate:
		default:
			close(e.gate)
		}
	}
}

func (e *embeddings) env() []string {
	return []string{"HELIX_EMBED_BASE_URL=" + e.URL, "HELIX_EMBED_API_KEY=", "OPENAI_API_KEY=", "HELIX_EMBED_MODEL=mini"}
}

func mustRun(t *testing.T, env []string, args ...string) result {
	t.Helper()
	r := helix(t, env, "", args...)
	if r.code != 0 {
		t.Fatalf("helix %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// dbResult is what a user would check after the job suite: every row the
// jobs wrote, less the instants and ids of the run itself.
func dbResult(t *testing.T, url string) string {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.Open(t, url)
	var parts []string
	for _, q := range []string{
		`SELECT count(*)::text || ' ' || md5(coalesce(string_agg(user_id::text || pattern_type || fingerprint, ',' ORDER BY user_id, pattern_type, fingerprint), '')) FROM memory_synthesis`,
		`SELECT count(*)::text || ' ' || md5(coalesce(string_agg(id::text || coalesce(forget_at::text, '-') || coalesce(embedding::text, '-'), ',' ORDER BY id), '')) FROM memories`,
		`SELECT string_agg(job || ':' || status || ':' || n, ',' ORDER BY job, status) FROM (SELECT job, status, count(*)::text n FROM job_runs GROUP BY 1, 2) r`,
	} {
		var s string
		if err := pool.QueryRow(ctx, q).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		parts = append(parts, s)
	}
	held, err := db.HeldLocks(ctx, pool)
	if err != nil || len(held) > 0 {
		t.Errorf("helix locks held after the suite (%v): %v", err, held)
	}
	return strings.Join(parts, "\n")
}

// TestJobsThroughEveryPath is the job contract suite through each path:
// migrate up, doctor, import, synthesize --user-id and --all-users, decay
// run (full, then incremental), embed --all-users, memory search, and a
// worker firing a schedule. Every command exits 0 on every path and the
// database ends the same as through the direct connection; doctor names
// the path.
func TestJobsThroughEveryPath(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs("../..")
	var mu sync.Mutex
	got := map[db.Path]string{}
	searches := map[db.Path]string{}
	t.Run("paths", func(t *testing.T) {
		for _, p := range connectionPaths {
			t.Run(string(p), func(t *testing.T) {
				t.Parallel()
				direct, url := pathURL(t, p, true)
				emb := newEmbeddings(t, false)
				env := append([]string{"DATABASE_URL=" + url}, emb.env()...)
				mustRun(t, env, "migrate", "up")
				var doc struct {
					Healthy bool
					Checks  []struct{ Name, Status, Detail string }
				}
				r := mustRun(t, env, "doctor", "-o", "json")
				if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
					t.Fatal(err)
				}
				found := false
				for _, c := range doc.Checks {
					if c.Name == "connection path" {
						found = strings.HasPrefix(c.Detail, p.String()+",")
						if !found {
							t.Errorf("doctor: connection path %q, want %s", c.Detail, p)
						}
					}
				}
				if !doc.Healthy || !found {
					t.Errorf("doctor: healthy %v, connection path reported %v\n%s", doc.Healthy, found, r.stdout)
				}
				mustRun(t, env, "import", "memories", filepath.Join(root, "testdata/demo/memories.jsonl"))
				mustRun(t, env, "synthesize", "--user-id", matrixUser)
				mustRun(t, env, "synthesize", "--all-users")
				for i, at := range []string{"2026-07-01T00:00:00Z", "2026-07-02T00:00:00Z"} {
					r := mustRun(t, env, "decay", "run", "--at", at, "-o", "json")
					want := []string{`"mode":"full"`, `"mode":"incremental"`}[i]
					if !strings.Contains(strings.ReplaceAll(r.stdout, " ", ""), want) {
						t.Errorf("decay run %d: want %s in %s", i+1, want, r.stdout)
					}
				}
				mustRun(t, env, "embed", "--all-users", "--reembed")
				s := mustRun(t, env, "memory", "search", "garden", "--user-id", matrixUser, "-o", "json")

				// A worker firing a schedule every second.
				mustRun(t, env, "schedule", "add", "sync", "--cron", "@every 1s", "--", "sync", "reconcile")
				w := start(t, env, "worker", "--poll-interval", "100ms", "--concurrency", "2")
				pool, err := pgxpool.New(context.Background(), direct)
				if err != nil {
					t.Fatal(err)
				}
				defer pool.Close()
				deadline := time.Now().Add(90 * time.Second)
				for {
					var ok int
					if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM helix_schedule_fires WHERE status = 'ok'`).Scan(&ok); err != nil {
						t.Fatal(err)
					}
					if ok >= 2 {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("%d schedule fires ok after 90 s; worker stderr:\n%s", ok, w.Stderr.String())
					}
					time.Sleep(200 * time.Millisecond)
				}
				mustRun(t, env, "schedule", "pause", "sync")
				_ = w.Cmd.Process.Signal(syscall.SIGTERM)
				if code := w.Wait(t, time.Minute); code != 0 {
					t.Errorf("worker after SIGTERM: exit %d\n%s", code, w.Stderr.String())
				}
				if !strings.Contains(w.Stderr.String(), "worker connection budget") || !strings.Contains(w.Stderr.String(), "needs=") {
					t.Errorf("worker did not say its connection budget:\n%s", w.Stderr.String())
				}
				if p == db.PathTransaction && !strings.Contains(w.Stderr.String(), "River polls for jobs") {
					t.Errorf("worker through the transaction pooler did not say it polls:\n%s", w.Stderr.String())
				}
				if n := strings.Count(w.Stderr.String(), "River polls for jobs"); p != db.PathTransaction && n != 0 || n > 1 {
					t.Errorf("poll-only said %d times through %s", n, p)
				}
				if _, err := pool.Exec(context.Background(), `DELETE FROM job_runs WHERE job = 'sync reconcile'`); err != nil {
					t.Fatal(err)
				}
				res := dbResult(t, direct)
				mu.Lock()
				got[p], searches[p] = res, s.stdout
				mu.Unlock()
			})
		}
	})
	t.Logf("database after the suite, direct:\n%s", got[db.PathDirect])
	for _, p := range []db.Path{db.PathSession, db.PathTransaction} {
		if got[p] != got[db.PathDirect] {
			t.Errorf("through the %s the database ends\n%s\nthrough the direct connection\n%s", p, got[p], got[db.PathDirect])
		}
		if searches[p] != searches[db.PathDirect] {
			t.Errorf("memory search through the %s:\n%s\ndirect:\n%s", p, searches[p], searches[db.PathDirect])
		}
	}
}

// TestLockedJobsThroughEveryPath: two embed --all-users at once through each
// path (the first held mid-run by its provider): the second exits 5 naming
// the first, and never sends a request. Then the holder is SIGKILLed: the
// next run proceeds within db.lock-ttl (20 s by default; the bound the
// README promises is 30 s). Every other locked job exits 5 with its lock
// held. Afterwards no helix lock is held.
func TestLockedJobsThroughEveryPath(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs("../..")
	for _, p := range connectionPaths {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			direct, url := pathURL(t, p, false)
			seed(t, direct)
			emb := newEmbeddings(t, true)
			env := append([]string{"DATABASE_URL=" + url, "HELIX_EMBED_CONCURRENCY=1"}, emb.env()...)
			// --reembed: the demo memories come embedded already.
			a := start(t, env, "embed", "--all-users", "--reembed")
			waitUntil(t, 30*time.Second, "the first run's first request", func() bool { return emb.Requests.Load() > 0 })
			before := emb.Requests.Load()
			b := helix(t, env, "", "embed", "--all-users", "--reembed")
			if b.code != 5 || !strings.Contains(b.stderr, "held by helix-embed") {
				t.Errorf("second embed while the first runs: exit %d, want 5 naming the holder\n%s", b.code, b.stderr)
			}
			if n := emb.Requests.Load(); n != before {
				t.Errorf("the second run sent %d requests", n-before)
			}
			// SIGKILL the holder: nothing releases its lease but expiry.
			_ = a.Cmd.Process.Signal(syscall.SIGKILL)
			a.Code()
			emb.open()
			killed := time.Now()
			for {
				r := helix(t, env, "", "embed", "--all-users", "--reembed")
				if r.code == 0 {
					break
				}
				if r.code != 5 {
					t.Fatalf("after SIGKILL: exit %d\n%s", r.code, r.stderr)
				}
				if time.Since(killed) > 30*time.Second {
					t.Fatalf("the killed holder's lock still held after %s", time.Since(killed))
				}
				time.Sleep(time.Second)
			}
			t.Logf("%s: second run's stderr: %s", p, b.stderr)
			t.Logf("%s: next run proceeded %s after SIGKILL", p, time.Since(killed).Round(100*time.Millisecond))
			pool, err := pgxpool.New(context.Background(), direct)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			var interrupted int
			if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM job_runs WHERE job = 'embed' AND status = 'interrupted'`).Scan(&interrupted); err != nil || interrupted != 1 {
				t.Errorf("%d interrupted embed runs (%v), want the killed one", interrupted, err)
			}
			// Every other locked job, its lock held through the same path
			// by another process: exit 5, naming the holder.
			hp, err := db.Open(context.Background(), url, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer hp.Close()
			for _, j := range []struct {
				lock string
				args []string
			}{
				{"synthesize", []string{"synthesize", "--all-users", "--full"}},
				{"decay", []string{"decay", "run"}},
				{"catalog-fetch", []string{"catalog", "fetch", "--source", filepath.Join(root, "testdata", "catalog", "api-2026-06-14.json")}},
				{"migrate", []string{"migrate", "down", "--to", "0", "--yes", "--lock-wait", "1s"}},
			} {
				l, err := db.TryLock(context.Background(), hp, j.lock)
				if err != nil {
					t.Fatal(err)
				}
				r := helix(t, env, "", j.args...)
				_ = l.Release(context.Background())
				if r.code != 5 || !strings.Contains(r.stderr, "held by "+db.SessionName(j.lock)) {
					t.Errorf("%s with its lock held: exit %d, want 5 naming the holder\n%s", strings.Join(j.args, " "), r.code, r.stderr)
				}
			}
			held, err := db.HeldLocks(context.Background(), pool)
			if err != nil || len(held) > 0 {
				t.Errorf("helix locks held (%v): %v", err, held)
			}
		})
	}
}

func waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %s", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConnectionRefusalsAreExit2: what retrying cannot fix exits 2 with the
// cause, never 4: TLS demanded of a pooler without it, a database the
// pooler's server does not have, a setting the server refuses. A pooler
// that is down is 4.
func TestConnectionRefusalsAreExit2(t *testing.T) {
	t.Parallel()
	u, b := pathURL(t, db.PathTransaction, false)
	for _, c := range []struct {
		name, url, want string
		code            int
	}{
		{"tls refused", strings.Replace(b, "sslmode=disable", "sslmode=require", 1), "does not accept TLS", 2},
		{"no database", strings.Replace(b, "/helix_test_", "/nope_", 1), "does not exist", 2},
		{"bad setting", u + "&statement_timeout=abc", "statement_timeout", 2},
		{"setting a transaction pooler loses", b + "&statement_timeout=5s", "transaction pooler cannot keep", 2},
		{"pooler down", closedPortURL(t), "retry later", 4},
	} {
		r := helix(t, []string{"DATABASE_URL=" + c.url}, "", "migrate", "status")
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, want %d with %q\n%s", c.name, r.code, c.code, c.want, r.stderr)
		}
	}
}

// TestPoolerExhaustedIsExit4WithHint: a session pooler whose one server
// connection another client holds: helix exits 4 (retry later) and says
// what to size.
func TestPoolerExhaustedIsExit4WithHint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := pgtest.URL(t)
	b := pgtest.BouncerWith(t, pgtest.SessionMode, u, "default_pool_size = 1\nquery_wait_timeout = 1")
	c, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := c.Ping(ctx); err != nil { // the session pooler's one server connection is now c's
		t.Fatal(err)
	}
	r := helix(t, []string{"DATABASE_URL=" + b}, "", "migrate", "status")
	if r.code != 4 || !strings.Contains(r.stderr, "ran out of connections") || !strings.Contains(r.stderr, "db.max-conns") {
		t.Errorf("exit %d, want 4 with the pool-size hint\n%s", r.code, r.stderr)
	}
}
