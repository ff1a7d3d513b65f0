package syncer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

var testStrategies = map[string]Strategy{"setting": LWW, "skill": Manual} // "memory": field-lww

// genPending builds cases random histories per entity type, each on its own entity.
func genPending(r *rand.Rand, cases int, types []string) ([]Pending, map[entityKey][]Change) {
	user := uuid.MustParse("00000000-0000-4000-8000-000000000001")
	var ps []Pending
	byKey := map[entityKey][]Change{}
	for _, typ := range types {
		for i := 0; i < cases; i++ {
			k := entityKey{Type: typ, UserID: user, ID: fmt.Sprintf("e%04d", i)}
			cs := genChanges(r, 4+r.Intn(30))
			byKey[k] = cs
			for _, c := range cs {
				ps = append(ps, Pending{EntityType: k.Type, EntityID: k.ID, UserID: k.UserID, Change: c})
			}
		}
	}
	r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	return ps, byKey
}

type stateRow struct {
	Doc     any
	Clock   Clock
	Version int64
	State   string // canonical merge state
}

func loadStates(t *testing.T, q db.Querier) map[entityKey]stateRow {
	t.Helper()
	// A manual entity in conflict keeps the document it had before: that
	// one depends on arrival order, so only its siblings are compared.
	rows, err := q.Query(context.Background(), `
		SELECT entity_type, user_id, entity_id,
		       CASE WHEN EXISTS (SELECT 1 FROM sync_conflicts c WHERE c.status = 'open' AND (c.entity_type, c.user_id, c.entity_id) = (s.entity_type, s.user_id, s.entity_id))
		            THEN '"in conflict"' ELSE doc::text END,
		       clock::text, version, merge_state
		FROM sync_state s`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[entityKey]stateRow{}
	for rows.Next() {
		var k entityKey
		var doc *string
		var clock, ms string
		var sr stateRow
		if err := rows.Scan(&k.Type, &k.UserID, &k.ID, &doc, &clock, &sr.Version, &ms); err != nil {
			t.Fatal(err)
		}
		if doc != nil {
			_ = json.Unmarshal([]byte(*doc), &sr.Doc)
		}
		_ = json.Unmarshal([]byte(clock), &sr.Clock)
		var st State
		if err := json.Unmarshal([]byte(ms), &st); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(&st)
		sr.State = string(b)
		out[k] = sr
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func openConflicts(t *testing.T, q db.Querier) map[entityKey][]Sibling {
	t.Helper()
	cs, err := ListConflicts(context.Background(), q, Filter{}, false)
	if err != nil {
		t.Fatal(err)
	}
	out := map[entityKey][]Sibling{}
	for _, c := range cs {
		out[entityKey{c.EntityType, c.UserID, c.EntityID}] = c.Siblings
	}
	return out
}

func newReconciler(runID int64, batch int) *Reconciler {
	return &Reconciler{Strategies: testStrategies, Batch: batch, RunID: runID, Now: time.Now}
}

// TestReconcileRandomBatches runs a few hundred random histories through
// the real reconcile path, in shuffled arrival order and batches of random
// size, and checks each entity against folding its changes in memory.
func TestReconcileRandomBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	r := rand.New(rand.NewSource(10))
	cases := 100 // per entity type
	if testing.Short() || raceEnabled {
		cases = 40
	}
	ps, byKey := genPending(r, cases, []string{"memory", "setting", "skill"})
	if _, err := Enqueue(ctx, pool, ps); err != nil {
		t.Fatal(err)
	}
	rec := newReconciler(1, 1)
	var total Counts
	for {
		rec.Batch = 1 + r.Intn(60)
		c, err := rec.runBatch(ctx, pool, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Total() == 0 {
			break
		}
		total.add(c)
	}
	if total.Total() != len(ps) || total.Invalid != 0 {
		t.Fatalf("processed %+v, want %d changes", total, len(ps))
	}
	got := loadStates(t, pool)
	conflicts := openConflicts(t, pool)
	for k, cs := range byKey {
		strat := rec.Strategy(k.Type)
		ref := fold(t, strat, cs)
		g := got[k]
		b, _ := json.Marshal(ref)
		if g.State != string(b) || !reflect.DeepEqual(g.Clock, ref.Clock) || g.Version != int64(len(cs)) {
			t.Fatalf("%v: state differs\n got %s v%d\nwant %s v%d", k, g.State, g.Version, b, len(cs))
		}
		if strat == Manual && len(ref.Writes) > 1 {
			if want := SiblingsOf(ref); !sameSiblings(conflicts[k], want) {
				t.Fatalf("%v: siblings %+v, want %+v", k, conflicts[k], want)
			}
			continue
		}
		if _, open := conflicts[k]; open {
			t.Fatalf("%v: conflict left open", k)
		}
		var want any
		if d := ref.Document(); d != nil {
			_ = json.Unmarshal(d, &want)
		}
		if !reflect.DeepEqual(g.Doc, want) {
			t.Fatalf("%v: doc %v, want %v", k, g.Doc, want)
		}
	}
}

func sameSiblings(a, b []Sibling) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var x, y any
	_ = json.Unmarshal(ja, &x)
	_ = json.Unmarshal(jb, &y)
	return reflect.DeepEqual(x, y)
}

// TestConcurrentReconcilers: two reconcilers with separate pools start at
// once on the same backlog; every change is processed exactly once and the
// states equal those a single reconciler reaches on the same input.
func TestConcurrentReconcilers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// 100,000 in BenchmarkReconcile; here what stays within a minute on a
	// shared two-core machine.
	n := 20000
	if testing.Short() || raceEnabled {
		n = 5000
	}
	r := rand.New(rand.NewSource(20))
	var ps []Pending
	for len(ps) < n {
		p, _ := genPending(r, 50, []string{"memory", "setting", "skill"})
		for i := range p {
			p[i].EntityID += fmt.Sprintf("-%d", len(ps))
		}
		ps = append(ps, p...)
	}
	ps = ps[:n]

	single := pgtest.New(t)
	if _, err := Enqueue(ctx, single, ps); err != nil {
		t.Fatal(err)
	}
	c, err := newReconciler(1, 500).Run(ctx, single, Filter{})
	if err != nil || c.Total() != n {
		t.Fatalf("single run: %+v, %v", c, err)
	}

	url := pgtest.URL(t)
	pools := make([]*pgxpool.Pool, 2)
	for i := range pools {
		p, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		pools[i] = p
	}
	if _, err := Enqueue(ctx, pools[0], ps); err != nil {
		t.Fatal(err)
	}
	counts := make([]Counts, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range pools {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			counts[i], errs[i] = newReconciler(int64(i+1), 500).Run(ctx, pools[i], Filter{})
		}(i)
	}
	close(start)
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("reconciler %d: %v", i+1, errs[i])
		}
	}
	t.Logf("reconciler 1: %+v; reconciler 2: %+v", counts[0], counts[1])
	if sum := counts[0].Total() + counts[1].Total(); sum != n {
		t.Errorf("processed %d changes in all, want exactly %d", sum, n)
	}
	var unprocessed, byRun1, byRun2 int
	if err := pools[0].QueryRow(ctx, `SELECT count(*) FILTER (WHERE processed_at IS NULL),
		count(*) FILTER (WHERE run_id = 1), count(*) FILTER (WHERE run_id = 2) FROM sync_changes`).Scan(&unprocessed, &byRun1, &byRun2); err != nil {
		t.Fatal(err)
	}
	if unprocessed != 0 || byRun1 != counts[0].Total() || byRun2 != counts[1].Total() {
		t.Errorf("table: %d unprocessed, %d by run 1, %d by run 2; runs counted %d and %d", unprocessed, byRun1, byRun2, counts[0].Total(), counts[1].Total())
	}
	want, got := loadStates(t, single), loadStates(t, pools[0])
	if len(got) != len(want) {
		t.Fatalf("%d entities, want %d", len(got), len(want))
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Fatalf("%v: concurrent %+v\nsingle %+v", k, got[k], w)
		}
	}
	if a, b := openConflicts(t, single), openConflicts(t, pools[0]); !reflect.DeepEqual(a, b) {
		t.Errorf("open conflicts differ: %d vs %d", len(a), len(b))
	}
}
