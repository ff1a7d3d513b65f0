package synccmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/syncer"
	"github.com/helixhq/helix/internal/testbin"
)

// devicesEditing: entities edited by three devices that sync now and then.
func devicesEditing(r *rand.Rand, entities, perEntity int) []syncer.Pending {
	users := []uuid.UUID{uuid.MustParse(user), uuid.MustParse("00000000-0000-4000-8000-000000000002")}
	var ps []syncer.Pending
	base := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	for e := 0; e < entities; e++ {
		devs := []string{"phone", "laptop", "web"}
		clocks := []syncer.Clock{{}, {}, {}}
		for i := 0; i < perEntity; i++ {
			d := r.Intn(3)
			if r.Intn(2) == 0 {
				clocks[d] = clocks[d].Merge(clocks[r.Intn(3)])
			}
			clocks[d][devs[d]]++
			doc := fmt.Sprintf(`{"k%d":{"v":%d},"n":%d}`, r.Intn(4), r.Intn(100), i)
			op := syncer.OpPatch
			if r.Intn(10) == 0 {
				op, doc = syncer.OpDelete, ""
			}
			p := syncer.Pending{EntityType: []string{"memory", "setting"}[e%2], EntityID: fmt.Sprintf("e%d", e), UserID: users[e%2],
				Change: syncer.Change{Device: devs[d], Clock: clocks[d].Copy(), TS: base.Add(time.Duration(i+r.Intn(3)) * time.Second), Op: op}}
			if doc != "" {
				p.Doc = json.RawMessage(doc)
			}
			ps = append(ps, p)
		}
	}
	r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	return ps
}

func states(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var s string
	if err := pool.QueryRow(context.Background(), `SELECT coalesce(string_agg(concat_ws(' ', entity_type, user_id, entity_id, doc::text, clock::text, version, merge_state), E'\n' ORDER BY entity_type, user_id, entity_id), '') FROM sync_state`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTwoProcesses starts two helix processes at once on one backlog: both
// succeed, each change is processed exactly once, and the states equal
// those one process reaches.
func TestTwoProcesses(t *testing.T) {
	ctx := context.Background()
	bin := testbin.Helix(t)
	ps := devicesEditing(rand.New(rand.NewSource(3)), 300, 10)
	reconcile := func(url string, n int) []ReconcileResult {
		cmds := make([]*exec.Cmd, n)
		outs := make([]*bytes.Buffer, n)
		for i := range cmds {
			cmds[i] = exec.Command(bin, "sync", "reconcile", "--batch-size", "100", "--output", "json")
			cmds[i].Env = append(os.Environ(), "HELIX_DATABASE_URL="+url, "HELIX_SYNC_STRATEGIES=setting=lww", "HELIX_CONFIG=")
			outs[i] = &bytes.Buffer{}
			cmds[i].Stdout = outs[i]
			cmds[i].Stderr = &bytes.Buffer{}
			if err := cmds[i].Start(); err != nil {
				t.Fatal(err)
			}
		}
		res := make([]ReconcileResult, n)
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Fatalf("helix %d: %v\n%s", i+1, err, c.Stderr)
			}
			if err := json.Unmarshal(outs[i].Bytes(), &res[i]); err != nil {
				t.Fatalf("helix %d output %q: %v", i+1, outs[i], err)
			}
		}
		return res
	}
	open := func() (string, *pgxpool.Pool) {
		url := pgtest.URL(t)
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		if _, err := syncer.Enqueue(ctx, pool, ps); err != nil {
			t.Fatal(err)
		}
		return url, pool
	}

	url1, single := open()
	if r := reconcile(url1, 1); r[0].Changes != len(ps) {
		t.Fatalf("single: %+v", r[0])
	}
	url2, pool := open()
	r := reconcile(url2, 2)
	t.Logf("process 1: %+v; process 2: %+v", r[0], r[1])
	if sum := r[0].Changes + r[1].Changes; sum != len(ps) {
		t.Errorf("processed %d changes, want exactly %d", sum, len(ps))
	}
	var pending, byRuns, okRuns int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE processed_at IS NULL), count(*) FILTER (WHERE run_id IN ($1, $2)),
		(SELECT count(*) FROM job_runs WHERE job = 'sync reconcile' AND status = 'ok') FROM sync_changes`, r[0].RunID, r[1].RunID).Scan(&pending, &byRuns, &okRuns); err != nil {
		t.Fatal(err)
	}
	if pending != 0 || byRuns != len(ps) || okRuns != 2 {
		t.Errorf("%d pending, %d processed by the two runs, %d ok job_runs", pending, byRuns, okRuns)
	}
	if a, b := states(t, single), states(t, pool); a != b {
		t.Errorf("two processes reached other states than one")
	}
}
