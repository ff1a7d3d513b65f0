package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
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
	cl := newClaimer(rec.RunID)
	var total Counts
	for {
		rec.Batch = 1 + r.Intn(60)
		c, err := rec.runBatch(ctx, pool, Filter{}, cl)
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

// TestConcurrentReconcilers: two reconcilers with separate pools, each
// with two walks at once, start together on the same backlog; every change
// is processed exactly once and the states equal those a single reconciler
// walking one batch at a time reaches on the same input.
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
			r := newReconciler(int64(i+1), 500)
			r.Concurrency = 2
			counts[i], errs[i] = r.Run(ctx, pools[i], Filter{})
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

// TestBatchRollsBackWhatAnotherRunTook: a change another transaction
// processed after this batch read it, or a state row another one created
// meanwhile, fails the batch with errRace (retried by Run) and leaves
// nothing of it behind; the retry then folds only what is still pending.
func TestBatchRollsBackWhatAnotherRunTook(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	user := uuid.MustParse("00000000-0000-4000-8000-000000000002")
	clock := func(n uint64) Clock { return Clock{"phone": n} }
	var ps []Pending
	for i := range 3 {
		ps = append(ps, Pending{EntityType: "memory", EntityID: "m1", UserID: user,
			Change: Change{Device: "phone", Clock: clock(uint64(i + 1)), TS: time.Unix(int64(1000+i), 0), Op: OpPatch, Doc: json.RawMessage(fmt.Sprintf(`{"k%d":1}`, i))}})
	}
	if _, err := Enqueue(ctx, pool, ps); err != nil {
		t.Fatal(err)
	}
	rec := newReconciler(7, 100)
	for _, interfere := range []string{
		// an old-style reconciler marks one of the changes processed
		`UPDATE sync_changes SET processed_at = now(), outcome = 'applied' WHERE id = (SELECT min(id) FROM sync_changes)`,
		// another transaction creates the entity's state row
		`INSERT INTO sync_state (entity_type, user_id, entity_id) VALUES ('memory', '` + user.String() + `', 'm1')`,
	} {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := newClaimer(rec.RunID).claim(ctx, tx, Filter{}, rec.Batch)
		if err != nil || len(cs) == 0 {
			t.Fatalf("claim: %d changes, %v", len(cs), err)
		}
		// The other transaction does its work first and commits while the
		// batch waits on its row.
		other, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.Exec(ctx, interfere); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := rec.fold(ctx, tx, cs)
			done <- err
		}()
		for waiting := 0; waiting == 0; time.Sleep(10 * time.Millisecond) {
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
		}
		if err := other.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		err = <-done
		_ = tx.Rollback(ctx)
		if !errors.Is(err, errRace) {
			t.Fatalf("%s: fold returned %v, want errRace", interfere, err)
		}
		if strings.HasPrefix(interfere, "INSERT") {
			if _, err := pool.Exec(ctx, `DELETE FROM sync_state`); err != nil {
				t.Fatal(err)
			}
		}
		var processedByRun int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM sync_changes WHERE run_id = $1`, rec.RunID).Scan(&processedByRun); err != nil || processedByRun != 0 {
			t.Fatalf("rolled-back batch left %d changes marked (%v)", processedByRun, err)
		}
	}
	c, err := rec.Run(ctx, pool, Filter{})
	if err != nil || c.Total() != 2 || c.Applied != 2 {
		t.Fatalf("retry: %+v, %v; want the 2 changes still pending", c, err)
	}
	var pending int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM sync_changes WHERE processed_at IS NULL`).Scan(&pending); err != nil || pending != 0 {
		t.Fatalf("%d changes left pending (%v)", pending, err)
	}
}

// TestClaimWalksBucketsWithCursor: one run visits every bucket once, each
// from where its last batch stopped, and comes back for changes that
// arrived behind its cursor.
func TestClaimWalksBucketsWithCursor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	r := rand.New(rand.NewSource(30))
	ps, _ := genPending(r, 60, []string{"memory"})
	if _, err := Enqueue(ctx, pool, ps); err != nil {
		t.Fatal(err)
	}
	rec := newReconciler(3, 25)
	cl := newClaimer(rec.RunID)
	total := 0
	late := false
	for {
		c, err := rec.runBatch(ctx, pool, Filter{}, cl)
		if err != nil {
			t.Fatal(err)
		}
		if c.Total() == 0 {
			break
		}
		total += c.Total()
		if !late && total > len(ps)/2 {
			// a change behind every cursor: entity ids sort before the others
			late = true
			extra := []Pending{{EntityType: "memory", EntityID: "a-late", UserID: ps[0].UserID,
				Change: Change{Device: "web", Clock: Clock{"web": 1}, TS: time.Unix(5, 0), Op: OpPut, Doc: json.RawMessage(`{"x":1}`)}}}
			if _, err := Enqueue(ctx, pool, extra); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, extra...)
		}
	}
	var pending int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM sync_changes WHERE processed_at IS NULL`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if total != len(ps) || pending != 0 {
		t.Fatalf("processed %d of %d changes, %d left pending", total, len(ps), pending)
	}
}

// TestOutcomeUpdateProbesPrimaryKey: right after an upload, before the
// table has statistics, the outcome UPDATEs find their changes through the
// primary key, never through a scan of the whole bucket index.
func TestOutcomeUpdateProbesPrimaryKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	ps, _ := genPending(rand.New(rand.NewSource(40)), 200, []string{"memory"})
	if _, err := Enqueue(ctx, tx, ps); err != nil {
		t.Fatal(err)
	}
	cs, err := newClaimer(1).claim(ctx, tx, Filter{}, 100)
	if err != nil || len(cs) == 0 {
		t.Fatalf("claim: %d changes, %v", len(cs), err)
	}
	outcomes, errs := make([]string, len(cs)), make([]*string, len(cs))
	msg := "bad"
	for i := range cs {
		outcomes[i] = string(Applied)
		if i%10 == 0 {
			errs[i] = &msg
		}
	}
	b := &pgx.Batch{}
	queueProcessed(b, cs, outcomes, errs, 1, time.Now())
	if len(b.QueuedQueries) != 2 {
		t.Fatalf("%d statements queued, want one per outcome", len(b.QueuedQueries))
	}
	for _, q := range b.QueuedQueries {
		var plan string
		if err := tx.QueryRow(ctx, `EXPLAIN (FORMAT JSON) `+q.SQL, q.Arguments...).Scan(&plan); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plan, "sync_changes_bucket_idx") {
			t.Errorf("%s\nis planned as %s", q.SQL, plan)
		}
	}
}
