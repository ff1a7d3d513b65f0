package queue

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"

	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/notify"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/schedule"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/synthesis/synthstore"
)

// argsOf is every kind's typed args, as the table names them.
var argsOf = []interface {
	river.JobArgs
	river.JobArgsWithInsertOpts
}{
	SynthesizeArgs{}, SynthesizeUsersArgs{}, SynthesizeLLMArgs{}, ProfileUpdateArgs{}, EmbedArgs{}, DecayArgs{}, TranscribeArgs{},
	ReconcileArgs{}, CatalogFetchArgs{}, ManifestImportArgs{}, schedule.TickArgs{}, schedule.FireArgs{},
	notify.DeliverArgs{},
}

// TestJobTable: every kind of the table has typed args that put it on the
// table's queue with the table's attempts, and a worker; every worker
// works a kind of the table; the README's table of kinds is this one.
func TestJobTable(t *testing.T) {
	if len(argsOf) != len(jobs.Table) {
		t.Fatalf("%d typed args for %d kinds", len(argsOf), len(jobs.Table))
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ws := Workers(&Deps{})
	sc := river.NewWorkers()
	schedule.AddWorkers(sc, schedule.Config{})
	for _, a := range argsOf {
		j, ok := jobs.Lookup(a.Kind())
		if !ok {
			t.Errorf("kind %s is not in the job table", a.Kind())
			continue
		}
		o := a.InsertOpts()
		if o.Queue != j.Queue || o.MaxAttempts != j.Attempts {
			t.Errorf("%s: queue %s, %d attempts; the table says %s, %d", j.Kind, o.Queue, o.MaxAttempts, j.Queue, j.Attempts)
		}
		if !slices.Contains(Queues, j.Queue) {
			t.Errorf("%s: queue %s is not one a worker works", j.Kind, j.Queue)
		}
		row := "| `" + j.Kind + "` | `" + j.Queue + "` |"
		if !strings.Contains(string(readme), row) {
			t.Errorf("README has no row starting %q", row)
		}
	}
	registeredKinds := map[string]bool{
		jobs.KindSynthesize: registered(ws, SynthesizeArgs{}), jobs.KindSynthesizeUsers: registered(ws, SynthesizeUsersArgs{}),
		jobs.KindSynthesizeLLM: registered(ws, SynthesizeLLMArgs{}), jobs.KindEmbed: registered(ws, EmbedArgs{}),
		jobs.KindDecay: registered(ws, DecayArgs{}), jobs.KindTranscribe: registered(ws, TranscribeArgs{}),
		jobs.KindReconcile: registered(ws, ReconcileArgs{}), jobs.KindCatalogFetch: registered(ws, CatalogFetchArgs{}),
		jobs.KindManifestImport: registered(ws, ManifestImportArgs{}), jobs.KindProfileUpdate: registered(ws, ProfileUpdateArgs{}),
		jobs.KindScheduleTick: registered(sc, schedule.TickArgs{}), jobs.KindScheduleFire: registered(sc, schedule.FireArgs{}),
		jobs.KindNotifyDeliver: registered(ws, notify.DeliverArgs{}),
	}
	for _, j := range jobs.Table {
		if !registeredKinds[j.Kind] {
			t.Errorf("%s: no worker", j.Kind)
		}
	}
}

// registered says a worker for a's kind is in ws (a second one panics).
func registered[T river.JobArgs](ws *river.Workers, a T) (ok bool) {
	defer func() { ok = recover() != nil }()
	river.AddWorkerArgs(ws, a, river.WorkFunc(func(context.Context, *river.Job[T]) error { return nil }))
	return false
}

// txInserter enqueues inside tx, as Enqueue's Inserter.
type txInserter struct {
	c  *river.Client[pgx.Tx]
	tx pgx.Tx
}

func (i txInserter) InsertMany(ctx context.Context, ps []river.InsertManyParams) ([]*rivertype.JobInsertResult, error) {
	return i.c.InsertManyTx(ctx, i.tx, ps)
}

// TestEnqueueBatches (rivertest, on a rolled-back transaction): by default
// `synthesize --all-users --enqueue` batches users by their memories; each
// batch is a synthesize_users job on the table's queue with its attempts.
func TestEnqueueBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	// 1,500 users of 10 memories (20 of weight each), one of 15,000:
	// batches of 500 (10,000 of weight) but the one the big user closes,
	// and the last.
	if _, err := tx.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, created_at)
		SELECT gen_random_uuid(), md5('u' || u)::uuid, 'episodic', 'note', now()
		FROM generate_series(1, 1501) u, generate_series(1, CASE WHEN u = 501 THEN 15000 ELSE 10 END) k`); err != nil {
		t.Fatal(err)
	}
	users, err := synthstore.Users(ctx, tx, synthstore.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var big uuid.UUID
	if err := tx.QueryRow(ctx, `SELECT md5('u501')::uuid`).Scan(&big); err != nil {
		t.Fatal(err)
	}
	batches, err := SynthesizeBatches(ctx, tx, users, synthstore.Filter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, b := range batches {
		sizes = append(sizes, len(b))
		if slices.Contains(b, big) && len(b) > 1 && b[len(b)-1] != big {
			t.Errorf("the user of 15,000 memories shares a batch after it: %d users", len(b))
		}
	}
	if total := len(slices.Concat(batches...)); total != 1501 || !slices.Equal(slices.Concat(batches...), users) {
		t.Fatalf("batches hold %d users, want the 1,501 in order", total)
	}
	c, err := river.NewClient(riverpgxv5.New(nil), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	args := make([]SynthesizeUsersArgs, len(batches))
	var want []rivertest.ExpectedJob
	j := jobs.MustLookup(jobs.KindSynthesizeUsers)
	for i, b := range batches {
		args[i] = SynthesizeUsersArgs{UserIDs: b, Params: synthesis.DefaultParams()}
		want = append(want, rivertest.ExpectedJob{Args: args[i], Opts: &rivertest.RequireInsertedOpts{Queue: j.Queue, MaxAttempts: j.Attempts}})
	}
	res, err := Enqueue(ctx, txInserter{c, tx}, args, PriorityBatch)
	if err != nil || res.Enqueued != len(batches) {
		t.Fatalf("enqueue: %+v, %v", res, err)
	}
	rows := rivertest.RequireManyInsertedTx[*riverpgxv5.Driver](ctx, t, tx, want)
	for i, r := range rows {
		var got SynthesizeUsersArgs
		if err := json.Unmarshal(r.EncodedArgs, &got); err != nil || !reflect.DeepEqual(got.UserIDs, batches[i]) {
			t.Errorf("job %d: args %v (%v)", i, got.UserIDs, err)
		}
	}
	t.Logf("batch sizes: %v", sizes)
	full := 0
	for i, b := range batches[:len(batches)-1] {
		if slices.Contains(b, big) {
			continue
		}
		if full++; sizes[i] != 500 {
			t.Errorf("batch %d: %d users of 10 memories, want 500", i, sizes[i])
		}
	}
	if full == 0 {
		t.Errorf("no full batch of users of 10 memories: %v", sizes)
	}
}

// failingUsers seeds n users of 6 memories, and one more whose memory has
// an embedding no reader can decode (a NULL element): that user fails.
func failingUsers(t *testing.T, pool *pgxpool.Pool, n int) (users []uuid.UUID, bad uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, emotional_valence, created_at)
		SELECT md5('m' || u || '-' || k)::uuid, md5('u' || u)::uuid, 'episodic',
		       'user ' || u || ' wrote note ' || k || ' about ' || (ARRAY['coffee', 'running', 'work', 'family'])[1 + (u + k) % 4],
		       ((k % 5) - 2) / 2.0, timestamptz '2026-01-01' + k * interval '1 day'
		FROM generate_series(1, $1) u, generate_series(1, 6) k`, n); err != nil {
		t.Fatal(err)
	}
	bad = uuid.NewSHA1(uuid.NameSpaceOID, []byte("bad"))
	if _, err := pool.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, embedding, created_at)
		VALUES (gen_random_uuid(), $1, 'episodic', 'broken', ARRAY[1, NULL]::real[], now())`, bad); err != nil {
		t.Fatal(err)
	}
	users, err := synthstore.Users(ctx, pool, synthstore.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return users, bad
}

// TestSynthesizeUsersJobFailingUser (River in-process, on a database of
// its own: the worker writes on connections of its own, which a test
// transaction could not share): a batch with a failing user completes, its
// run is recorded partial with the typed args, the other users are done,
// and working the job again recomputes none of them.
func TestSynthesizeUsersJobFailingUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	users, bad := failingUsers(t, pool, 12)
	args := SynthesizeUsersArgs{UserIDs: users, Params: benchParams()}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:  map[string]river.QueueConfig{QueueSynthesize: {MaxWorkers: 1}},
		Workers: Workers(&Deps{Pool: pool, Now: time.Now}), FetchPollInterval: 50 * time.Millisecond, FetchCooldown: 5 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	done, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled)
	defer cancel()
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Stop(ctx) }()
	work := func() {
		t.Helper()
		if _, err := client.Insert(ctx, args, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case e := <-done:
			if e.Kind != river.EventKindJobCompleted {
				t.Fatalf("job %s, want completed: %v", e.Kind, e.Job.Errors)
			}
		case <-time.After(time.Minute):
			t.Fatal("job not worked within a minute")
		}
	}
	work()
	var status, params, counts string
	if err := pool.QueryRow(ctx, `SELECT status, params::text, counts::text FROM job_runs ORDER BY id DESC LIMIT 1`).Scan(&status, &params, &counts); err != nil {
		t.Fatal(err)
	}
	var rp struct {
		Args  SynthesizeUsersArgs `json:"args"`
		Units int                 `json:"units"`
	}
	var c map[string]int
	if err := json.Unmarshal([]byte(params), &rp); err != nil || json.Unmarshal([]byte(counts), &c) != nil {
		t.Fatalf("params %s, counts %s: %v", params, counts, err)
	}
	if status != "partial" || c["failed"] != 1 || c["done"] != len(users)-1 || rp.Units != len(users) || !reflect.DeepEqual(rp.Args, args) {
		t.Errorf("run %s, counts %v, params %s", status, c, params)
	}
	var stateless []uuid.UUID
	rows, _ := pool.Query(ctx, `SELECT u FROM unnest($1::uuid[]) u WHERE NOT EXISTS (SELECT 1 FROM helix_synthesis_state s WHERE s.user_id = u)`, users)
	for rows.Next() {
		var u uuid.UUID
		_ = rows.Scan(&u)
		stateless = append(stateless, u)
	}
	if len(stateless) != 1 || stateless[0] != bad {
		t.Errorf("users without a recorded synthesis %v, want only the failing one %s", stateless, bad)
	}
	// Worked again (a retry, a rescue): the users done are current.
	args.UserIDs = append([]uuid.UUID{}, users...) // same users, a new job: not unique while the first is completed
	work()
	if err := pool.QueryRow(ctx, `SELECT counts::text FROM job_runs ORDER BY id DESC LIMIT 1`).Scan(&counts); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(counts), &c); err != nil || c["unchanged"] != len(users)-1 || c["done"] != 0 || c["failed"] != 1 {
		t.Errorf("worked again: counts %s, want %d unchanged, 0 done, 1 failed", counts, len(users)-1)
	}
}
