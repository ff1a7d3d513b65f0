package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/llmsynth/llmtest"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/testbin"
)

func TestListenAddr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"9464": "127.0.0.1:9464", ":9464": "127.0.0.1:9464", "0.0.0.0:80": "0.0.0.0:80",
		"[::1]:9464": "[::1]:9464", "localhost:0": "localhost:0"} {
		if got, err := listenAddr(in); err != nil || got != want {
			t.Errorf("listenAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "host", "1.2.3.4:http", ":99999"} {
		if _, err := listenAddr(in); err == nil {
			t.Errorf("listenAddr(%q): no error", in)
		}
	}
}

var listening = regexp.MustCompile(`msg="worker listening" addr=(\S+)`)

// listenWorker starts `helix worker --listen 127.0.0.1:0` and returns it
// with the base URL of its endpoints, once it says where it listens.
func listenWorker(t *testing.T, dbURL string, args ...string) (*testbin.Proc, string) {
	t.Helper()
	return listenWorkerEnv(t, dbURL, nil, args...)
}

// listenWorkerEnv is listenWorker with more environment.
func listenWorkerEnv(t *testing.T, dbURL string, env []string, args ...string) (*testbin.Proc, string) {
	t.Helper()
	w := testbin.Start(t, append(append(os.Environ(), "DATABASE_URL="+dbURL, "HELIX_DB_MAX_CONNS=12"), env...),
		append([]string{"worker", "--listen", "127.0.0.1:0", "--poll-interval", "200ms"}, args...)...)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(w.Stderr.String()); m != nil {
			return w, "http://" + m[1]
		}
		select {
		case <-w.Done():
			t.Fatalf("worker exited %d:\n%s", w.Code(), w.Stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("worker does not say where it listens:\n%s", w.Stderr.String())
	return nil, ""
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// eventually polls f every 100 ms until it returns "" or limit passes.
func eventually(t *testing.T, limit time.Duration, f func() string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		why := f()
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", limit, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sample reads one sample of a /metrics body (0 when absent).
func sample(body, series string) float64 {
	for line := range strings.SplitSeq(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}

// promtool installs Debian's prometheus package's checker (make test does).
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool not found: apt-get install prometheus (make test installs it)")
	}
	return p
}

// TestWorkerMetrics works good, failing and discarded jobs under a worker
// with --listen and checks what /metrics says of them, in a format
// promtool accepts; then SIGTERM: /readyz answers 503 while a running job
// still finishes, and the worker exits 0.
func TestWorkerMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := pgtest.URL(t)
	pool := pgtest.Open(t, dbURL)
	seed(t, pool, 20, 4)
	w, base := listenWorker(t, dbURL, "--queues", "synthesize", "--shutdown-timeout", "1m")

	if code, body := get(t, base+"/healthz"); code != 200 {
		t.Fatalf("/healthz: %d %s", code, body)
	}
	eventually(t, 20*time.Second, func() string {
		if code, body := get(t, base+"/readyz"); code != 200 {
			return fmt.Sprintf("/readyz %d %s", code, body)
		}
		return ""
	})
	if p := start(t, dbURL, "synthesize", "--all-users", "--enqueue", "--users-per-job", "1"); p.Wait(t, time.Minute) != 0 {
		t.Fatalf("enqueue: %s", p.Stderr.String())
	}
	// Arguments that do not decode fail every attempt: one job with a
	// single attempt is discarded, one with 25 is retried (River waits
	// attempt⁴ seconds between attempts: it stays retryable for as long as
	// the test waits, where one with 3 was discarded after ~17 s).
	if _, err := pool.Exec(ctx, `INSERT INTO river_job (kind, queue, state, args, max_attempts)
		VALUES ('synthesize', 'synthesize', 'available', '{"user_id": "not a uuid"}', 1),
		       ('synthesize', 'synthesize', 'available', '{"user_id": 42}', 25)`); err != nil {
		t.Fatal(err)
	}
	var body string
	// A finalized group's count may be the one of the first scrape, taken
	// while jobs still ran, for a minute (queuestats.DefaultFinishedTTL):
	// it must be right by the recount after that.
	eventually(t, 2*time.Minute, func() string {
		_, body = get(t, base+"/metrics")
		got := map[string]float64{}
		for _, s := range []string{"completed", "failed", "retried", "discarded"} {
			got[s] = sample(body, `helix_jobs_`+s+`_total{kind="synthesize"}`)
		}
		if got["completed"] != 20 || got["discarded"] != 1 || got["retried"] < 1 || got["failed"] != got["retried"]+got["discarded"] {
			return fmt.Sprintf("job counters %v, want 20 completed, 1 discarded, some retried, failed = retried + discarded", got)
		}
		// The queue figures are read at most every 5 s.
		if sample(body, `helix_queue_jobs{kind="synthesize",queue="synthesize",state="discarded"}`) != 1 {
			return "helix_queue_jobs: no discarded synthesize job yet"
		}
		if n := sample(body, `helix_queue_jobs{kind="synthesize",queue="synthesize",state="completed"}`); n != 20 {
			return fmt.Sprintf("helix_queue_jobs: %v completed synthesize jobs, want 20", n)
		}
		return ""
	})
	for _, series := range []string{`helix_job_duration_seconds_count{kind="synthesize",outcome="completed"} 20`,
		`helix_job_duration_seconds_count{kind="synthesize",outcome="failed"}`,
		`helix_db_pool_max_conns 12`, `helix_build_info{`, `helix_jobs_started_total{kind="synthesize"}`} {
		if !strings.Contains(body, series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	check := exec.Command(promtool(t), "check", "metrics")
	check.Stdin = strings.NewReader(body)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}

	// Drain: a job blocked on a table lock is running when SIGTERM comes.
	// The lock is on the table the job writes, taken before the job is
	// enqueued (enqueuing does not touch it): the job cannot finish first.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE memory_synthesis IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	seedUser(t, pool, 1000)
	if p := start(t, dbURL, "synthesize", "--all-users", "--enqueue", "--users-per-job", "1"); p.Wait(t, time.Minute) != 0 {
		t.Fatalf("enqueue: %s", p.Stderr.String())
	}
	eventually(t, 30*time.Second, func() string {
		_, body := get(t, base+"/metrics")
		if sample(body, `helix_jobs_running{kind="synthesize"}`) != 1 {
			return "the new job is not running"
		}
		return ""
	})
	if err := w.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, func() string {
		if code, body := get(t, base+"/readyz"); code != 503 || !strings.Contains(body, "draining") {
			return fmt.Sprintf("/readyz after SIGTERM: %d %s", code, body)
		}
		return ""
	})
	select {
	case <-w.Done():
		t.Fatalf("worker exited before its running job finished:\n%s", w.Stderr.String())
	case <-time.After(500 * time.Millisecond):
	}
	if code, _ := get(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz while draining: %d, want 200 (alive)", code)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if code := w.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("worker exit %d after SIGTERM, want 0:\n%s", code, w.Stderr.String())
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'synthesize' AND state = 'completed'`); n != 21 {
		t.Errorf("%d synthesize jobs completed, want 21: the running one finished", n)
	}
}

// seedUser gives one more user (number u) memories.
func seedUser(t *testing.T, pool *pgxpool.Pool, u int) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `INSERT INTO memories (id, user_id, type, content, created_at)
		SELECT gen_random_uuid(), md5('u' || $1::int)::uuid, 'episodic', 'note ' || k, now() - k * interval '1 day'
		FROM generate_series(1, 4) k`, u); err != nil {
		t.Fatal(err)
	}
}

// TestReadyWhenDatabaseGoes drops a worker's database under it: /readyz
// turns 503 while /healthz (the process is alive) stays 200.
func TestReadyWhenDatabaseGoes(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	w, base := listenWorker(t, dbURL, "--queues", "decay", "--shutdown-timeout", "5s")
	eventually(t, 20*time.Second, func() string {
		if code, body := get(t, base+"/readyz"); code != 200 {
			return fmt.Sprintf("/readyz %d %s", code, body)
		}
		return ""
	})
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(context.Background(), pgtest.ServerURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), `DROP DATABASE `+pgx.Identifier{strings.TrimPrefix(u.Path, "/")}.Sanitize()+` WITH (FORCE)`); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, func() string {
		if code, body := get(t, base+"/readyz"); code != 503 || !strings.Contains(body, "database") {
			return fmt.Sprintf("/readyz with the database gone: %d %s", code, body)
		}
		return ""
	})
	if code, body := get(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz with the database gone: %d %s, want 200", code, body)
	}
	_ = w.Cmd.Process.Signal(syscall.SIGTERM)
	w.Wait(t, 30*time.Second)
}

// freePort is a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// promQuery asks Prometheus's HTTP API for an instant vector's first value.
func promQuery(t *testing.T, base, q string) (float64, bool) {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" || len(r.Data.Result) == 0 {
		return 0, false
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// TestPrometheusScrapesWorker runs a real Prometheus (Debian's package)
// scraping a worker every 500 ms while its jobs wait and run, and checks
// through Prometheus's HTTP API that the queue depth rose and fell and the
// completed-job counter moved as the jobs did.
func TestPrometheusScrapesWorker(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus not found: apt-get install prometheus (make test installs it)")
	}
	ctx := context.Background()
	dbURL := pgtest.URL(t)
	pool := pgtest.Open(t, dbURL)
	const users = 30
	seed(t, pool, users, 4)
	w, base := listenWorker(t, dbURL, "--queues", "synthesize", "--concurrency", "2")
	defer func() { _ = w.Cmd.Process.Signal(syscall.SIGTERM); w.Wait(t, 30*time.Second) }()

	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\nscrape_configs:\n  - job_name: helix\n    static_configs:\n      - targets: ['%s']\n",
		strings.TrimPrefix(base, "http://"))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	promAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	var promErr testbin.Buffer
	prom := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr, "--storage.tsdb.retention.time=1h")
	prom.Stdout, prom.Stderr = &promErr, &promErr
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = prom.Process.Kill(); _ = prom.Wait() }()
	api := "http://" + promAddr
	eventually(t, 30*time.Second, func() string {
		if v, ok := promQuery(t, api, `up{job="helix"}`); !ok || v != 1 {
			return "prometheus does not scrape the worker yet:\n" + promErr.String()
		}
		return ""
	})

	// The jobs wait behind a lock on job_runs (each job's first write):
	// two run (blocked), the rest stay available for Prometheus to see.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE job_runs IN EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	if p := start(t, dbURL, "synthesize", "--all-users", "--enqueue", "--users-per-job", "1"); p.Wait(t, time.Minute) != 0 {
		t.Fatalf("enqueue: %s", p.Stderr.String())
	}
	want := func(q string, ok func(float64) bool, what string) func() string {
		return func() string {
			v, got := promQuery(t, api, q)
			if !got || !ok(v) {
				return fmt.Sprintf("%s = %v (%v), want %s", q, v, got, what)
			}
			return ""
		}
	}
	eventually(t, 30*time.Second, want(`helix_queue_jobs{state="available",kind="synthesize"}`,
		func(v float64) bool { return v == users-2 }, fmt.Sprint(users-2)))
	eventually(t, 10*time.Second, want(`helix_jobs_running{kind="synthesize"}`, func(v float64) bool { return v == 2 }, "2"))
	// The README's backlog query.
	eventually(t, 10*time.Second, want(`sum by (kind) (helix_queue_jobs{state=~"available|retryable|scheduled|pending",kind="synthesize"})`,
		func(v float64) bool { return v == users-2 }, fmt.Sprint(users-2)))
	if v, ok := promQuery(t, api, `helix_queue_oldest_available_age_seconds{queue="synthesize"}`); !ok || v <= 0 {
		t.Errorf("oldest available synthesize job: %v s (%v), want > 0", v, ok)
	}
	if v, ok := promQuery(t, api, `sum(helix_jobs_completed_total{kind="synthesize"}) or vector(0)`); !ok || v != 0 {
		t.Errorf("completed before the lock is released: %v (%v)", v, ok)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, want(`helix_jobs_completed_total{kind="synthesize"}`, func(v float64) bool { return v == users }, fmt.Sprint(users)))
	eventually(t, 30*time.Second, want(`helix_queue_jobs{state="completed",kind="synthesize"}`, func(v float64) bool { return v == users }, fmt.Sprint(users)))
	eventually(t, 30*time.Second, want(`sum(helix_queue_jobs{state="available",kind="synthesize"}) or vector(0)`,
		func(v float64) bool { return v == 0 }, "0"))
	// The README's other queries run and say what they should.
	if v, ok := promQuery(t, api, `sum by (kind) (rate(helix_jobs_failed_total[1m])) / sum by (kind) (rate(helix_jobs_started_total[1m]))`); ok && v != 0 {
		t.Errorf("failure rate %v, want 0 (or no data)", v)
	}
	if v, ok := promQuery(t, api, `histogram_quantile(0.95, sum by (kind, le) (rate(helix_job_duration_seconds_bucket{outcome="completed"}[5m])))`); !ok || v <= 0 {
		t.Errorf("p95 duration %v (%v), want > 0", v, ok)
	}
}

// TestDrainHandsBack: a job still running when --shutdown-timeout ends is
// cancelled and given back to the queue, and the worker exits 0.
func TestDrainHandsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := pgtest.URL(t)
	pool := pgtest.Open(t, dbURL)
	seed(t, pool, 1, 4)
	if p := start(t, dbURL, "synthesize", "--all-users", "--enqueue", "--users-per-job", "1"); p.Wait(t, time.Minute) != 0 {
		t.Fatalf("enqueue: %s", p.Stderr.String())
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE memories IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	w, base := listenWorker(t, dbURL, "--queues", "synthesize", "--shutdown-timeout", "1s")
	eventually(t, 30*time.Second, func() string {
		if _, body := get(t, base+"/metrics"); sample(body, `helix_jobs_running{kind="synthesize"}`) != 1 {
			return "the job is not running"
		}
		return ""
	})
	if err := w.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, func() string {
		if code, body := get(t, base+"/readyz"); code != 503 {
			return fmt.Sprintf("/readyz after SIGTERM: %d %s", code, body)
		}
		return ""
	})
	if code := w.Wait(t, 45*time.Second); code != 0 {
		t.Fatalf("worker exit %d, want 0:\n%s", code, w.Stderr.String())
	}
	if !strings.Contains(w.Stderr.String(), "giving running jobs back to the queue") {
		t.Errorf("no hand-back logged:\n%s", w.Stderr.String())
	}
	if st := scalar[string](t, pool, `SELECT state::text FROM river_job WHERE kind = 'synthesize'`); st != "retryable" && st != "available" {
		t.Errorf("job state %s after the hand-back, want retryable or available", st)
	}
}

// TestProviderAndLLMMetrics: LLM jobs on a worker with --listen, against a
// local server speaking Anthropic's Messages API; /metrics counts the
// provider requests (a 529 retried) and the tokens and dollars by model.
func TestProviderAndLLMMetrics(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-api03-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"
	srv := llmtest.NewAnthropic(t, key, func(c llmtest.Call) llmtest.Reply {
		if c.N == 0 {
			return llmtest.Reply{Status: 529, Body: llmtest.AnthropicError("overloaded_error", "Overloaded")}
		}
		ids := llmtest.ShortIDs(c.Body)
		return llmtest.Reply{Body: llmtest.AnthropicToolUse("record_patterns", llmtest.Answer(llmtest.RequestedTypes(c), ids[0], ids[1]),
			llmtest.Usage{Input: 1000, Output: 200})}
	})
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var ms []memories.Memory
	for i := range 2 {
		ms = append(ms, synthesis.Synthetic(uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i)}), 30, 8, uint64(i+1))...)
	}
	if _, err := memories.Insert(context.Background(), pool, ms); err != nil {
		t.Fatal(err)
	}
	if p := start(t, dbURL, "synthesize", "--llm", "--all-users", "--enqueue"); p.Wait(t, time.Minute) != 0 {
		t.Fatalf("enqueue: %s", p.Stderr.String())
	}
	env := []string{"HELIX_LLM_ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=" + key, "HELIX_LLM_MAX_TOKENS=1000"}
	w, base := listenWorkerEnv(t, dbURL, env, "--queues", "llm")
	defer func() { _ = w.Cmd.Process.Signal(syscall.SIGTERM); w.Wait(t, 30*time.Second) }()
	var body string
	// A finalized group's count may be the one of the first scrape, taken
	// while jobs still ran, for a minute (queuestats.DefaultFinishedTTL):
	// it must be right by the recount after that.
	eventually(t, 2*time.Minute, func() string {
		_, body = get(t, base+"/metrics")
		if n := sample(body, `helix_jobs_completed_total{kind="synthesize_llm"}`); n != 2 {
			return fmt.Sprintf("%v synthesize_llm jobs completed, want 2\n%s", n, w.Stderr.String())
		}
		return ""
	})
	calls := len(srv.Calls())
	host := strings.TrimPrefix(srv.URL, "http://")
	model := regexp.MustCompile(`helix_llm_tokens_total\{model="(anthropic/[^"]+)",type="input"\} (\d+)`).FindStringSubmatch(body)
	switch {
	case model == nil:
		t.Fatalf("no input tokens by model in /metrics:\n%s", body)
	case model[2] != strconv.Itoa(1000*(calls-1)):
		t.Errorf("input tokens %s for %d answered calls, want %d", model[2], calls-1, 1000*(calls-1))
	}
	for series, want := range map[string]float64{
		`helix_provider_requests_total{provider="` + host + `"}`:            float64(calls),
		`helix_provider_errors_total{provider="` + host + `",reason="5xx"}`: 1,
		`helix_provider_retries_total{provider="` + host + `"}`:             1,
		`helix_llm_tokens_total{model="` + model[1] + `",type="output"}`:    float64(200 * (calls - 1)),
	} {
		if got := sample(body, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	if usd := sample(body, `helix_llm_cost_usd_total{model="`+model[1]+`"}`); usd <= 0 {
		t.Errorf("no spending for %s in /metrics", model[1])
	}
}
