package cli

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/decay"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// The CLI contract over every job command: a bad flag and a bad setting are
// exit 2, an unreachable database 4, PostgreSQL killed mid-run 4, the job's
// lock held 5, SIGINT 130 — and with -o json (given first, late, or as
// HELIX_OUTPUT) every stderr line is one JSON object.

const matrixUser = "11111111-1111-4111-8111-111111111111"

// job is one job command and how the tests hold it mid-run.
type job struct {
	name string
	args []string
	// lock is the table an open transaction locks (ACCESS EXCLUSIVE) so the
	// job waits on it mid-run; stall, when set, is committed DDL instead
	// (a trigger that sleeps) for jobs that must get past their reads first.
	lock  string
	stall string
	seed  bool // needs the demo memories
	// jobLock is the job's lock (a lease): held by another process → exit 5.
	jobLock string
	// sigint is the documented exit status after SIGINT mid-run: 130, but
	// helix worker stops cleanly (running jobs go back to the queue) with 0.
	sigint int
	// sigintOr is another acceptable status: helix worker exits 130 when its
	// stop cannot give jobs back because river_job is locked.
	sigintOr int
}

func jobs(t *testing.T) []job {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	wav := filepath.Join(t.TempDir(), "a.wav")
	writeWAV(t, wav)
	td := func(p string) string { return filepath.Join(root, "testdata", p) }
	u := matrixUser
	js := []job{
		{name: "synthesize user", args: []string{"synthesize", "--user-id", u}, lock: "memories"},
		{name: "synthesize all-users", args: []string{"synthesize", "--all-users"}, seed: true, jobLock: "synthesize",
			stall: `CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(60); RETURN NEW; END $$;
				CREATE TRIGGER stall BEFORE INSERT ON memory_synthesis FOR EACH ROW EXECUTE FUNCTION stall();`},
		{name: "decay run", args: []string{"decay", "run"}, lock: "memories", jobLock: decay.JobName},
		{name: "sync reconcile", args: []string{"sync", "reconcile"}, lock: "sync_changes"},
		{name: "catalog fetch", args: []string{"catalog", "fetch", "--source", td("catalog/api-2026-06-14.json")}, lock: "model_catalog_snapshots", jobLock: "catalog-fetch"},
		{name: "catalog verify", args: []string{"catalog", "verify"}, lock: "model_catalog_snapshots"},
		{name: "manifest import", args: []string{"manifest", "import", td("manifest/tools/ocr.yaml")}, lock: "tool_manifests"},
		{name: "voice transcribe", args: []string{"voice", "transcribe", wav, "--user-id", u}, lock: "voice_recordings"},
		{name: "embed", args: []string{"embed", "--user-id", u}, lock: "memories", jobLock: "embed"},
		{name: "memory search", args: []string{"memory", "search", "garden", "--user-id", u, "--mode", "text"}, lock: "helix_memory_search"},
		{name: "tool exec", args: []string{"tool", "exec", "ocr"}, lock: "tool_manifests"},
		{name: "skill exec", args: []string{"skill", "exec", "echo"}, lock: "helix_skills"},
		{name: "import memories", args: []string{"import", "memories", td("demo/memories.jsonl")}, lock: "memories"},
		{name: "migrate up", args: []string{"migrate", "up"}, lock: "goose_db_version"},
		{name: "jobs list", args: []string{"jobs", "list"}, lock: "river_job"},
		// River's fetches wait on the locked river_job up to their own 10 s timeout
		// before the worker can stop
		{name: "worker once", args: []string{"worker", "--once", "--shutdown-timeout", "2s"}, lock: "river_job", sigint: -1, sigintOr: 130},
	}
	for i := range js {
		switch js[i].sigint {
		case 0:
			js[i].sigint = 130
		case -1:
			js[i].sigint = 0
		}
	}
	return js
}

// providerEnv points the commands that need a provider at a closed port:
// they must get as far as the database.
var providerEnv = []string{
	"DEEPGRAM_API_KEY=test-key", "HELIX_VOICE_DEEPGRAM_BASE_URL=http://127.0.0.1:9",
	"HELIX_EMBED_BASE_URL=http://127.0.0.1:9/v1",
}

// jsonModes are the three ways to ask for JSON.
var jsonModes = []struct {
	name string
	env  []string
	args func([]string) []string
}{
	{"-o json first", nil, func(a []string) []string { return append([]string{"-o", "json"}, a...) }},
	{"-o json late", nil, func(a []string) []string { return append(append([]string{}, a...), "--output", "json") }},
	{"HELIX_OUTPUT", []string{"HELIX_OUTPUT=json"}, func(a []string) []string { return a }},
}

func TestJobContractWithoutDatabase(t *testing.T) {
	t.Parallel()
	closed := closedPortURL(t)
	for _, j := range jobs(t) {
		t.Run(j.name, func(t *testing.T) {
			t.Parallel()
			for _, m := range jsonModes {
				env := append(append([]string{"DATABASE_URL=" + closed}, providerEnv...), m.env...)
				for _, c := range []struct {
					what string
					env  []string
					args []string
					code int
				}{
					{"bad flag", nil, append(append([]string{}, j.args...), "--no-such-flag"), 2},
					{"bad setting", []string{"HELIX_DB_STATEMENT_TIMEOUT=banana"}, j.args, 2},
					{"unreachable database", nil, j.args, 4},
				} {
					r := helix(t, append(append([]string{}, env...), c.env...), "", m.args(c.args)...)
					if r.code != c.code {
						t.Errorf("%s, %s: exit %d, want %d; stderr %s", c.what, m.name, r.code, c.code, r.stderr)
					}
					jsonLines(t, c.what+", "+m.name, r.stderr)
				}
			}
			// and as text: one line, "helix: ..."
			r := helix(t, append([]string{"DATABASE_URL=" + closed}, providerEnv...), "", j.args...)
			if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); r.code != 4 || len(lines) != 1 || !strings.HasPrefix(lines[0], "helix: ") {
				t.Errorf("unreachable database, text: exit %d, stderr %q", r.code, r.stderr)
			}
		})
	}
}

// start runs helix in the background with isolatedEnv(env).
func start(t *testing.T, env []string, args ...string) *testbin.Proc {
	t.Helper()
	return testbin.Start(t, isolatedEnv(t, env...), args...)
}

// hold blocks j mid-run in the database at url: it returns the session that
// holds the table lock (nil for a stall) for the caller to keep open.
func hold(t *testing.T, ctx context.Context, url string, j job) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	if j.stall != "" {
		if _, err := c.Exec(ctx, j.stall); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if _, err := c.Exec(ctx, "BEGIN; LOCK TABLE "+pgx.Identifier{j.lock}.Sanitize()+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	return c
}

// blocked waits until a helix session of the database at url waits on a lock
// or sleeps. It asks on a connection of its own: in the holder's open
// transaction pg_stat_activity would be a snapshot that never changes.
func blocked(t *testing.T, ctx context.Context, url string, r *testbin.Proc, limit time.Duration) bool {
	t.Helper()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Errorf("watch %s: %v", url, err) // not Fatal: called from goroutines
		return false
	}
	defer c.Close(ctx)
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		var n int
		err := c.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND application_name LIKE 'helix%' AND (wait_event_type = 'Lock' OR wait_event = 'PgSleep')`).Scan(&n)
		if err != nil {
			t.Errorf("watch %s: %v", url, err)
			return false
		}
		if n > 0 {
			return true
		}
		select {
		case <-r.Done():
			t.Errorf("helix %s ended (exit %d) before it blocked; stderr %s", strings.Join(r.Cmd.Args[1:], " "), r.Code(), r.Stderr.String())
			return false
		case <-time.After(25 * time.Millisecond):
		}
	}
	t.Errorf("helix %s did not block within %v; stderr %s", strings.Join(r.Cmd.Args[1:], " "), limit, r.Stderr.String())
	return false
}

func seed(t *testing.T, url string) {
	t.Helper()
	root, _ := filepath.Abs("../..")
	if r := helix(t, []string{"DATABASE_URL=" + url}, "", "import", "memories", filepath.Join(root, "testdata/demo/memories.jsonl")); r.code != 0 {
		t.Fatalf("seed: exit %d: %s", r.code, r.stderr)
	}
}

// TestJobContractLockHeldAndInterrupted: with the job's lock held by
// another process a job exits 5; stopped by SIGINT mid-run it exits 130.
func TestJobContractLockHeldAndInterrupted(t *testing.T) {
	t.Parallel()
	for i, j := range jobs(t) {
		m := jsonModes[i%len(jsonModes)]
		t.Run(j.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url := pgtest.URL(t)
			if j.seed {
				seed(t, url)
			}
			env := append(append([]string{"DATABASE_URL=" + url}, providerEnv...), m.env...)
			if j.jobLock != "" {
				pool, err := pgxpool.New(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				l, err := db.TryLock(ctx, pool, j.jobLock)
				if err != nil {
					t.Fatal(err)
				}
				r := helix(t, env, "", m.args(j.args)...)
				if r.code != 5 {
					t.Errorf("lock held, %s: exit %d, want 5; stderr %s", m.name, r.code, r.stderr)
				}
				jsonLines(t, "lock held, "+m.name, r.stderr)
				_ = l.Release(ctx)
				pool.Close()
			}
			hold(t, ctx, url, j)
			r := start(t, env, m.args(j.args)...)
			if !blocked(t, ctx, url, r, 20*time.Second) {
				return
			}
			if err := r.Cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			if code := r.Wait(t, 45*time.Second); code != j.sigint && (j.sigintOr == 0 || code != j.sigintOr) {
				t.Errorf("SIGINT, %s: exit %d, want %d; stderr %s", m.name, code, j.sigint, r.Stderr.String())
			}
			jsonLines(t, "SIGINT, "+m.name, r.Stderr.String())
		})
	}
}

// TestJobContractDatabaseKilled starts every job command against its own
// database of a throwaway cluster, holds each mid-run, kills the cluster
// (pg_ctl stop -m immediate) and expects exit 4 from all of them.
func TestJobContractDatabaseKilled(t *testing.T) {
	t.Parallel()
	cl := newCluster(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, cl.url("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE tpl"); err != nil {
		t.Fatal(err)
	}
	if r := helix(t, []string{"DATABASE_URL=" + cl.url("tpl")}, "", "migrate", "up"); r.code != 0 {
		t.Fatalf("migrate the throwaway cluster: exit %d: %s", r.code, r.stderr)
	}
	seed(t, cl.url("tpl"))
	type started struct {
		j    job
		mode int
		r    *testbin.Proc
	}
	var all []started
	var urls []string
	for i, j := range jobs(t) {
		name := "job" + strconv.Itoa(i)
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE tpl"); err != nil {
			t.Fatal(err)
		}
		m := jsonModes[i%len(jsonModes)]
		url := cl.url(name)
		hold(t, ctx, url, j)
		r := start(t, append(append([]string{"DATABASE_URL=" + url}, providerEnv...), m.env...), m.args(j.args)...)
		all = append(all, started{j, i % len(jsonModes), r})
		urls = append(urls, url)
	}
	// every job waits mid-run before the cluster dies
	var wg sync.WaitGroup
	ok := make([]bool, len(all))
	for i := range all {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ok[i] = blocked(t, ctx, urls[i], all[i].r, 30*time.Second)
		}(i)
	}
	wg.Wait()
	cl.kill(t)
	for i, s := range all {
		if !ok[i] {
			continue
		}
		m := jsonModes[s.mode]
		if code := s.r.Wait(t, 30*time.Second); code != 4 {
			t.Errorf("%s: database killed mid-run, %s: exit %d, want 4; stderr %s", s.j.name, m.name, code, s.r.Stderr.String())
		}
		jsonLines(t, s.j.name+": database killed, "+m.name, s.r.Stderr.String())
	}
}

// cluster is a throwaway PostgreSQL cluster in a temporary directory.
type cluster struct {
	bin, data string
	port      int
	runas     []string
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if p, err := exec.LookPath("initdb"); err == nil {
		bins = append(bins, p)
	}
	if len(bins) == 0 {
		t.Skip("no initdb (install the PostgreSQL server): the database-killed cases need a throwaway cluster")
	}
	sort.Strings(bins)
	cl := &cluster{bin: filepath.Dir(bins[len(bins)-1])}
	dir, err := os.MkdirTemp("", "helix-throwaway-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	cl.data = filepath.Join(dir, "data")
	if os.Geteuid() == 0 {
		// initdb refuses root: run the cluster as the postgres user
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root and no postgres user to own a throwaway cluster")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		cl.runas = []string{"runuser", "-u", "postgres", "--"}
	}
	l := closedPortURL(t) // a free port
	cl.port, _ = strconv.Atoi(l[strings.LastIndex(l, ":")+1 : strings.Index(l, "/x")])
	cl.run(t, filepath.Join(cl.bin, "initdb"), "-D", cl.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "-N")
	cl.run(t, filepath.Join(cl.bin, "pg_ctl"), "-D", cl.data, "-l", filepath.Join(dir, "server.log"), "-w", "-t", "60",
		"-o", fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=100 -c fsync=off -c synchronous_commit=off -c full_page_writes=off", cl.port),
		"start")
	t.Cleanup(func() { cl.kill(t) })
	return cl
}

func (cl *cluster) run(t *testing.T, name string, args ...string) {
	t.Helper()
	argv := append(append([]string{}, cl.runas...), append([]string{name}, args...)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

func (cl *cluster) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=2", cl.port, db)
}

// kill stops the cluster the way a crash would.
func (cl *cluster) kill(t *testing.T) {
	argv := append(append([]string{}, cl.runas...), filepath.Join(cl.bin, "pg_ctl"), "-D", cl.data, "-m", "immediate", "-w", "stop")
	_ = exec.Command(argv[0], argv[1:]...).Run()
}

// writeWAV writes one second of a 16 kHz tone.
func writeWAV(t *testing.T, path string) {
	const n = 16000
	var b bytes.Buffer
	le := func(v any) {
		switch x := v.(type) {
		case uint32:
			b.Write([]byte{byte(x), byte(x >> 8), byte(x >> 16), byte(x >> 24)})
		case uint16:
			b.Write([]byte{byte(x), byte(x >> 8)})
		}
	}
	b.WriteString("RIFF")
	le(uint32(36 + 2*n))
	b.WriteString("WAVEfmt ")
	le(uint32(16))
	le(uint16(1))
	le(uint16(1))
	le(uint32(16000))
	le(uint32(32000))
	le(uint16(2))
	le(uint16(16))
	b.WriteString("data")
	le(uint32(2 * n))
	for i := 0; i < n; i++ {
		le(uint16(int16(3000 * math.Sin(float64(i)/10))))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
