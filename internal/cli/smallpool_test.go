package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/pgtest"
)

// smallPool is Supabase's smallest pooler: PgBouncer in session mode with
// 15 server connections (its defaults otherwise: query_wait_timeout 120 s).
const smallPool = "default_pool_size = 15"

// TestManyProcessesOnASmallSessionPool (issue 48): 24 helix processes
// started together through a session pooler of 15 connections all finish
// with exit 0. Each holds one server connection at a time while it finds
// the path (db.pool-mode auto) and while it works, so the ones that wait,
// wait for a process that will finish; none waits for itself.
func TestManyProcessesOnASmallSessionPool(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs("../..")
	direct := pgtest.URL(t)
	through := pgtest.BouncerWith(t, pgtest.SessionMode, direct, smallPool)
	mustRun(t, []string{"DATABASE_URL=" + direct}, "import", "memories", filepath.Join(root, "testdata/demo/memories.jsonl"))
	users := []string{matrixUser}
	for len(users) < 24 {
		users = append(users, uuid.NewString())
	}
	var wg sync.WaitGroup
	results := make([]result, len(users))
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = helix(t, []string{"DATABASE_URL=" + through}, "", "synthesize", "--user-id", u)
		}()
	}
	wg.Wait()
	var bad []string
	for i, r := range results {
		if r.code != 0 {
			bad = append(bad, fmt.Sprintf("user %s: exit %d: %s", users[i], r.code, strings.TrimSpace(r.stderr)))
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d of %d processes failed:\n%s", len(bad), len(users), strings.Join(bad, "\n"))
	}
	var n int
	if err := pgtest.Open(t, direct).QueryRow(context.Background(),
		`SELECT count(*) FROM job_runs WHERE job = 'synthesize' AND status = 'ok'`).Scan(&n); err != nil || n != len(users) {
		t.Errorf("job_runs: %d synthesize runs ok (%v), want %d", n, err, len(users))
	}
}
