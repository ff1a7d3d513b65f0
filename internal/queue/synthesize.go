package queue

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/synthesis/synthstore"
)

// SynthesizeArgs is one user's synthesis.
type SynthesizeArgs struct {
	UserID uuid.UUID        `json:"user_id" river:"unique"`
	Since  time.Time        `json:"since,omitzero"`
	Limit  int              `json:"limit,omitempty"`
	Params synthesis.Params `json:"params"`
}

// Kind names the job in river_job.kind.
func (SynthesizeArgs) Kind() string { return jobs.KindSynthesize }

// InsertOpts makes the job unique per user while live.
func (a SynthesizeArgs) InsertOpts() river.InsertOpts { return uniqueOpts(a.Kind()) }

// SynthesizeUsersArgs is the synthesis of several users in one job
// (`synthesize --all-users --enqueue`): the queue's cost per job (fetch,
// envelope, completion) is shared by its users. An in-process
// --all-users run records the same args without the users.
type SynthesizeUsersArgs struct {
	UserIDs []uuid.UUID      `json:"user_ids,omitempty" river:"unique"`
	Since   time.Time        `json:"since,omitzero"`
	Limit   int              `json:"limit,omitempty"`
	Params  synthesis.Params `json:"params"`
}

// Kind names the job in river_job.kind.
func (SynthesizeUsersArgs) Kind() string { return jobs.KindSynthesizeUsers }

// InsertOpts makes the job unique per list of users while live.
func (a SynthesizeUsersArgs) InsertOpts() river.InsertOpts { return uniqueOpts(a.Kind()) }

// UserOutcome is what became of one user of a synthesize run.
type UserOutcome struct {
	User     uuid.UUID
	Memories int
	Patterns []synthesis.Pattern
	// Err is the user's failure; with Skipped, the lock another run held.
	Err error
	// Skipped: another run holds the user's lock; the user is that run's.
	Skipped bool
	reached bool
}

// Reached says the run got to the user (false: it stopped before).
func (o UserOutcome) Reached() bool { return o.reached }

// Synthesis is one synthesize run over users: `synthesize` in-process
// (--user-id, --all-users, --dry-run) and every synthesize job on a worker.
type Synthesis struct {
	// Pool streams the users' memories (with State) and lends the
	// connections users are written on unless Conn is set.
	Pool *pgxpool.Pool
	// Conn, with Concurrency 1, is the connection users are written on
	// (a job's run connection): the job then holds two, not three.
	Conn  db.Querier
	Users []uuid.UUID
	// State gives each user's state taken before the stream started
	// (synthstore.StateOf, Ahead.State): the users' memories are then read
	// in one stream (synthstore.Each). nil: each user is read on its own,
	// on the connection it is written on (one user).
	State       func(context.Context, uuid.UUID) (*synthstore.State, error)
	Filter      synthstore.Filter
	Params      synthesis.Params
	Concurrency int
	// RunID is the job_runs row the users' synthesis is written under;
	// nil is a dry run: nothing is written, nothing locked.
	RunID    *int64
	Now      func() time.Time
	LockWait time.Duration
	// Complete runs inside each user's write (a one-user job completes its
	// River job there).
	Complete func(ctx context.Context, tx pgx.Tx) error
	// Step is called after each user reached, from the goroutine that did it.
	Step func(UserOutcome)
}

// WriteBatch is how many users a streamed run (Synthesis.State set) writes
// in one transaction (synthstore.Write.Many), and WriteWait how long a user
// analysed waits for its batch to fill before the batch is written anyway.
const (
	WriteBatch = 64
	WriteWait  = time.Second
)

// SynthesizeUsers is the one unit of work of synthesis, called in-process
// and by River alike. Its rules:
//   - lock: each user is written in a transaction that holds the user's
//     transaction lock (synthstore.UserLock), waited for up to LockWait; a
//     user another run holds is Skipped: it is that run's to write.
//   - failure: a user that fails (its memories, its analysis, its write)
//     is recorded in its outcome and the other users go on; only a
//     cancelled ctx or an unreachable database stops the run, returned as
//     the error (users it did not reach have outcomes not Reached).
//
// A user's synthesis and its state commit together, so a user done is
// never done again for the same memories (exactly once per change). A
// streamed run writes its users WriteBatch to a transaction (one lock query,
// one COPY, one state statement); a batch that fails is written again
// user by user, so that only the failing user fails.
func SynthesizeUsers(ctx context.Context, s Synthesis) ([]UserOutcome, error) {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	r := &synthRun{Synthesis: s, ctx: ctx, stop: stop, out: make([]UserOutcome, len(s.Users))}
	if r.Now == nil {
		r.Now = time.Now
	}
	switch {
	case s.State == nil:
		r.eachAlone()
	case s.RunID == nil || s.Complete != nil:
		synthstore.Each(ctx, s.Pool, s.Users, s.State, s.Filter, max(s.Concurrency, 1), func(i int, read *synthstore.Read) {
			res, err := synthstore.Compute(ctx, s.Users[i], read, s.Params)
			if err == nil && s.RunID != nil {
				r.one(i, res)
				return
			}
			r.finish(i, res, err)
		})
	default:
		r.streamBatched()
	}
	return r.out, context.Cause(ctx)
}

// synthRun is one SynthesizeUsers call: its users' outcomes, and the
// cancellation that an unreachable database or a cancelled ctx causes.
type synthRun struct {
	Synthesis
	ctx  context.Context
	stop context.CancelCauseFunc
	out  []UserOutcome
}

// conn is the connection a user is written on: the run's own Conn when it
// writes one user at a time, else one from the pool.
func (r *synthRun) conn() (db.Querier, func(), error) {
	if r.Conn != nil && r.Concurrency <= 1 {
		return r.Conn, func() {}, nil
	}
	c, err := r.Pool.Acquire(r.ctx)
	if err != nil {
		return nil, nil, err
	}
	return c, c.Release, nil
}

func (r *synthRun) write() *synthstore.Write {
	return &synthstore.Write{RunID: r.RunID, Now: r.Now(), LockWait: r.LockWait, Complete: r.Complete}
}

// finish records what became of user i; a cancelled run or an unreachable
// database stops the run instead.
func (r *synthRun) finish(i int, res synthstore.Result, err error) {
	o := UserOutcome{User: r.Users[i], Memories: res.Memories, Patterns: []synthesis.Pattern{}}
	if res.Patterns != nil { // [] in JSON for a user with nothing to find, never null
		o.Patterns = res.Patterns
	}
	switch {
	case err == nil:
	case db.IsLockHeld(err):
		o.Skipped, o.Err = true, err
	case r.ctx.Err() != nil || db.IsUnavailable(err):
		r.stop(err)
		return
	default:
		o.Err = err
	}
	o.reached = true
	r.out[i] = o
	if r.Step != nil {
		r.Step(o)
	}
}

// one writes user i's result alone, on a connection of its own.
func (r *synthRun) one(i int, res synthstore.Result) {
	q, release, err := r.conn()
	if err == nil {
		err = r.write().One(r.ctx, q, res)
		release()
	}
	r.finish(i, res, err)
}

// eachAlone reads, analyses and writes each user on its own connection
// (no State: one user, or a run without a stream).
func (r *synthRun) eachAlone() {
	for i, u := range r.Users {
		if r.ctx.Err() != nil {
			return
		}
		q, release, err := r.conn()
		if err != nil {
			r.finish(i, synthstore.Result{}, err)
			continue
		}
		res, err := synthstore.Compute(r.ctx, u, synthstore.ReadUser(r.ctx, q, u, r.Filter, r.Params), r.Params)
		if err == nil && r.RunID != nil {
			err = r.write().One(r.ctx, q, res)
		}
		release()
		r.finish(i, res, err)
	}
}

// analysed is user i's result, waiting for its batch to be written.
type analysed struct {
	i   int
	res synthstore.Result
}

// streamBatched analyses the stream's users and writes them WriteBatch to
// a transaction, a batch at most WriteWait after its first user.
func (r *synthRun) streamBatched() {
	results := make(chan analysed, WriteBatch)
	written := make(chan struct{})
	go func() {
		defer close(written)
		r.batches(results)
	}()
	synthstore.Each(r.ctx, r.Pool, r.Users, r.State, r.Filter, max(r.Concurrency, 1), func(i int, read *synthstore.Read) {
		res, err := synthstore.Compute(r.ctx, r.Users[i], read, r.Params)
		if err != nil {
			r.finish(i, res, err)
			return
		}
		results <- analysed{i, res}
	})
	close(results)
	<-written
}

// batches gathers results into batches and flushes each when full, when
// WriteWait has passed since its first user, when a user comes a second
// time (its writes in order, one a batch) and when results closes.
func (r *synthRun) batches(results <-chan analysed) {
	var batch []analysed
	users := map[uuid.UUID]bool{}
	var wait <-chan time.Time
	send := func() {
		r.flush(batch)
		batch, wait = nil, nil
		clear(users)
	}
	for {
		select {
		case d, ok := <-results:
			if !ok {
				send()
				return
			}
			if users[d.res.User] {
				send()
			}
			batch = append(batch, d)
			users[d.res.User] = true
			if len(batch) == 1 {
				wait = time.After(WriteWait)
			}
			if len(batch) >= WriteBatch {
				send()
			}
		case <-wait:
			send()
		}
	}
}

// flush writes a batch: together, then whoever it could not take or that
// failed with it, alone.
func (r *synthRun) flush(batch []analysed) {
	if len(batch) == 0 || r.ctx.Err() != nil {
		return
	}
	rs := make([]synthstore.Result, len(batch))
	for k, d := range batch {
		rs[k] = d.res
	}
	q, release, err := r.conn()
	var held []int
	if err == nil {
		held, err = r.write().Many(r.ctx, q, rs)
		release()
	}
	switch {
	case err != nil && (r.ctx.Err() != nil || db.IsUnavailable(err)):
		r.stop(err)
	case err != nil:
		for _, d := range batch {
			r.one(d.i, d.res)
		}
	default:
		for k, d := range batch {
			if !slices.Contains(held, k) {
				r.finish(d.i, d.res, nil)
			}
		}
		for _, k := range held {
			r.one(batch[k].i, batch[k].res)
		}
	}
}

// SynthesisCounts tallies outcomes as every synthesize run records them
// (patterns by type too).
func SynthesisCounts(out []UserOutcome) (counts map[string]int, failed []string, errs []error) {
	counts = map[string]int{"users": len(out), "done": 0, "failed": 0, "skipped": 0, "memories": 0, "patterns": 0}
	for _, o := range out {
		switch {
		case !o.reached:
		case o.Skipped:
			counts["skipped"]++
		case o.Err != nil:
			counts["failed"]++
			failed = append(failed, fmt.Sprintf("%s: %v", o.User, o.Err))
			errs = append(errs, o.Err)
		default:
			counts["done"]++
			counts["memories"] += o.Memories
			counts["patterns"] += len(o.Patterns)
			for _, p := range o.Patterns {
				counts[p.Type]++
			}
		}
	}
	return counts, failed, errs
}

// SynthesizeWorker works SynthesizeArgs: SynthesizeUsers for its one user,
// reading the user on the run's connection, and completes the job in the
// transaction that writes the user. A user another run holds is tried
// again later (that run may be a desktop --user-id one, not a nightly run
// that will record it); a user that fails fails the job's run and cancels
// the job: retrying the same memories fails the same way, and the next
// `synthesize --all-users` takes the user again (its state is unrecorded).
// An unreachable database is retried by River.
type SynthesizeWorker struct {
	river.WorkerDefaults[SynthesizeArgs]
	d *Deps
}

// Work synthesizes one user.
func (w *SynthesizeWorker) Work(ctx context.Context, job *river.Job[SynthesizeArgs]) error {
	a := job.Args
	var failed error
	err := jobrun.Do(ctx, w.d.Pool, jobrun.Spec{Job: jobs.RunSynthesize, Params: RunParamsOf(job, 1), NoReap: true, Now: w.d.now(), ExitCode: w.d.ExitCode},
		func(ctx context.Context, run *jobrun.Run) (any, error) {
			var counts map[string]int
			s := Synthesis{Pool: w.d.Pool, Conn: run.Conn, Users: []uuid.UUID{a.UserID}, Filter: synthstore.Filter{Since: a.Since, Limit: a.Limit},
				Params: a.Params, Concurrency: 1, RunID: &run.ID, Now: w.d.now(),
				Complete: func(ctx context.Context, tx pgx.Tx) error {
					if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
						return err
					}
					return run.OKTx(ctx, tx, counts)
				}}
			// the counts the write records, as they will be if it commits
			counts = map[string]int{"users": 1, "done": 1, "failed": 0, "skipped": 0, "memories": 0, "patterns": 0}
			out, err := SynthesizeUsers(ctx, s)
			counts, _, _ = SynthesisCounts(out)
			if err == nil {
				err, failed = out[0].Err, out[0].Err
				if out[0].Skipped {
					failed = nil
				}
			}
			return counts, err
		})
	switch {
	case db.IsLockHeld(err):
		return river.JobSnooze(5 * time.Second)
	case failed != nil:
		return river.JobCancel(err)
	}
	return err
}

// SynthesizeUsersWorker works SynthesizeUsersArgs: SynthesizeUsers over the
// job's users whose recorded synthesis is not current, their memories
// streamed on a connection of their own while each user is written on the
// run's, under one job_runs row. Its failure rule is the in-process run's:
// a user that fails does not fail the others; the run is recorded partial
// and the job completes (River does not retry it: the users done are done,
// and the failed users' state is unrecorded, so the next
// `synthesize --all-users` takes them again, as it does after an
// in-process run that exited 3). A user another run holds is that run's.
// An unreachable database or a lost lease fails the job and River retries
// it: a retried job (or one rescued after a crash) skips the users already
// current, so each change is synthesized once.
type SynthesizeUsersWorker struct {
	river.WorkerDefaults[SynthesizeUsersArgs]
	d *Deps
}

// Work synthesizes the job's users.
func (w *SynthesizeUsersWorker) Work(ctx context.Context, job *river.Job[SynthesizeUsersArgs]) error {
	a := job.Args
	filter := synthstore.Filter{Since: a.Since, Limit: a.Limit}
	err := jobrun.Do(ctx, w.d.Pool, jobrun.Spec{Job: jobs.RunSynthesize, Params: RunParamsOf(job, len(a.UserIDs)), NoReap: true, Now: w.d.now(), ExitCode: w.d.ExitCode},
		func(ctx context.Context, run *jobrun.Run) (any, error) {
			counts := map[string]int{"users": len(a.UserIDs)}
			states, err := synthstore.Snapshots(ctx, run.Conn, a.UserIDs, filter, a.Params)
			if err != nil {
				return counts, err
			}
			current, err := synthstore.Recorded(ctx, run.Conn, states)
			if err != nil {
				return counts, err
			}
			todo := slices.DeleteFunc(slices.Clone(a.UserIDs), func(u uuid.UUID) bool { return current[u] })
			out, err := SynthesizeUsers(ctx, Synthesis{Pool: w.d.Pool, Conn: run.Conn, Users: todo, State: synthstore.StateOf(states),
				Filter: filter, Params: a.Params, Concurrency: 1, RunID: &run.ID, Now: w.d.now()})
			counts, failed, _ := SynthesisCounts(out)
			counts["users"], counts["unchanged"] = len(a.UserIDs), len(a.UserIDs)-len(todo)
			if err != nil {
				return counts, err
			}
			if len(failed) > 0 {
				slices.Sort(failed)
				return counts, &exitcode.PartialError{Failed: failed, Total: len(a.UserIDs)}
			}
			return counts, nil
		})
	if _, ok := err.(*exitcode.PartialError); ok {
		return nil // recorded partial; River completes the job
	}
	return err
}
