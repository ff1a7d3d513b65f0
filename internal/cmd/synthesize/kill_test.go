package synthesize

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// TestKilledRunKeepsPreviousSynthesis runs helix synthesize as a process,
// kills it (SIGKILL) while it is writing — after its transaction has deleted
// the previous rows — and checks that the previous synthesis is untouched.
func TestKilledRunKeepsPreviousSynthesis(t *testing.T) {
	t.Parallel()
	bin := testbin.Helix(t)
	url := pgtest.URL(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	f, err := os.Open("../../../testdata/demo/memories.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := memories.Parse(f, time.Now())
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := memories.Insert(ctx, pool, ms); err != nil {
		t.Fatal(err)
	}
	helix := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"synthesize"}, args...)...)
		cmd.Env = append(os.Environ(), "HELIX_DATABASE_URL="+url)
		return cmd
	}
	if out, err := helix("--user-id", ana).CombinedOutput(); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	snapshot := func() string {
		var s string
		if err := pool.QueryRow(ctx, `SELECT string_agg(fingerprint || confidence_score::text, ',' ORDER BY fingerprint) FROM memory_synthesis`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := snapshot()
	if _, err := pool.Exec(ctx, `
		CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_sleep(60); RETURN NEW; END $$;
		CREATE TRIGGER stall BEFORE INSERT ON memory_synthesis FOR EACH ROW EXECUTE FUNCTION stall();`); err != nil {
		t.Fatal(err)
	}
	cmd := helix("--user-id", ana, "--min-confidence", "0.5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	// The server notices the dead client and rolls back; stop the stalled backend to be quick.
	if _, err := pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()`); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(); after != before || !strings.Contains(after, "semantic_cluster") {
		t.Fatalf("killed run changed the previous synthesis")
	}
}
