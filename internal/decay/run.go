package decay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/jobrun"
)

// JobName names the job in job_runs and its advisory lock.
const JobName = "decay"

// DefaultChunkSize is how many rows one transaction updates.
const DefaultChunkSize = 50000

// Options are the inputs of one run.
type Options struct {
	At          time.Time // the instant retention is computed for
	ForgetBelow float64   // flag items whose retention is below this; 0: off
	UserID      string    // only this user; "": everyone
	ChunkSize   int
	// Full recomputes every row in scope. Otherwise, after a complete run over
	// all users with the same settings, a run touches only rows that are new,
	// accessed since their state was computed, or due to cross ForgetBelow.
	Full   bool
	Memory FSRSParams
	Layers Layers
	// Tick is the scheduled instant of the schedule fire this run is ("" for
	// a manual run), recorded in job_runs.params. Once per tick is the
	// scheduler's (internal/schedule: one fire per schedule and tick).
	Tick string
	// OnStart is called once the run knows its mode and how many chunks it
	// will commit (about: a full run's estimate counts rows; progress reporting).
	OnStart func(mode string, chunks int)
	// OnChunk is called after every committed chunk (progress reporting).
	OnChunk func(phase string, rows int64)
	Log     *slog.Logger
}

// Result is what a run did.
type Result struct {
	RunID     int64     `json:"run_id"`
	At        time.Time `json:"at"`
	Memories  int64     `json:"memories"`
	Layers    int64     `json:"layers"`
	Forgotten int64     `json:"forgotten"` // flagged below --forget-below by this run
	// Skipped rows are ones no run can update: memories of a type the
	// platform's CHECK no longer allows (an old app wrote them: any UPDATE of
	// such a row fails), and layers without an id (NoID of them).
	Skipped int64 `json:"skipped,omitempty"`
	// NoID layers have a NULL id, which the platform's psychology_layers
	// allows (its documents give it no key): helix updates rows by id, so it
	// skips them, counts them here and names them in a warning.
	NoID int64 `json:"no_id,omitempty"`
	// DryRun: nothing was written; the counts are those of a full run as of At.
	DryRun bool `json:"dry_run,omitempty"`
	// Cleared (dry run only) is how many forgotten flags the run would clear.
	Cleared     int64   `json:"cleared,omitempty"`
	Chunks      int     `json:"chunks"`
	Mode        string  `json:"mode"`                   // "full" or "incremental"
	FullReason  string  `json:"full_reason,omitempty"`  // why a run that could be incremental was not
	ResumedFrom string  `json:"resumed_from,omitempty"` // "memories:<id>" when an interrupted run was continued
	Seconds     float64 `json:"seconds"`
}

// chunk adds one committed chunk of table to the result and reports it.
func (res *Result) chunk(o Options, table string, n, forgotten, skipped int64, forgetting bool) {
	res.Chunks++
	res.Skipped += skipped
	if forgetting {
		res.Forgotten += forgotten
	}
	if table == phaseMemories {
		res.Memories += n
	} else {
		res.Layers += n
	}
	if o.OnChunk != nil {
		o.OnChunk(table, n)
	}
}

func (o Options) withDefaults() Options {
	if o.ChunkSize <= 0 {
		o.ChunkSize = DefaultChunkSize
	}
	if o.Layers == nil {
		o.Layers = DefaultLayers()
	}
	if o.Memory == (FSRSParams{}) {
		o.Memory = DefaultFSRS()
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// runRecord is job_runs.params of an in-process run, in the shape a worker's
// run records (queue.RunParams): the args a decay job carries (less its id
// range), and the options no job carries. Its units are 0: how many chunks
// (a worker's unit, one id range) a run commits is known only at its end,
// and its counts record them ("chunks").
func runRecord(o Options) map[string]any {
	args := map[string]any{"at": o.At.UTC(), "memory": o.Memory, "layers": o.Layers}
	if o.ForgetBelow > 0 {
		args["forget_below"] = o.ForgetBelow
	}
	if o.UserID != "" {
		args["user_id"] = o.UserID
	}
	options := map[string]any{"chunk_size": o.ChunkSize}
	if o.Tick != "" {
		options["tick"] = o.Tick
	}
	if o.Full {
		options["full"] = true
	}
	return map[string]any{"args": args, "units": 0, "options": options}
}

// Run takes the decay lock, records a job_runs row and updates every memory
// and layer in scope, one committed key-range chunk at a time. An interrupted
// run leaves a checkpoint; the next run over the same scope resumes after it.
// When another session holds the lock it records a skipped run and returns *db.ErrLockHeld.
// The work is sequential and goes on the run's own connection (jobrun.Run.Conn):
// a second one would cost a nightly run nothing but a server backend's start.
func Run(ctx context.Context, pool *pgxpool.Pool, o Options) (*Result, error) {
	o = o.withDefaults()
	params := runRecord(o)

	var res *Result
	spec := jobrun.Spec{Job: JobName, Params: params, Lock: JobName, RecordSkipped: true}
	err := jobrun.Do(ctx, pool, spec, func(ctx context.Context, run *jobrun.Run) (any, error) {
		start := time.Now()
		res = &Result{RunID: run.ID, At: o.At.UTC()}
		err := runMode(ctx, run.Conn, o, res)
		res.Seconds = time.Since(start).Seconds()
		return res, err
	})
	if res == nil {
		return nil, err
	}
	return res, err
}

type checkpoint struct {
	phase  string
	lastID *string
}

func runChunks(ctx context.Context, q db.Querier, o Options, res *Result) error {
	scope := "all"
	if o.UserID != "" {
		scope = o.UserID
	}
	cp := checkpoint{phase: phaseMemories}
	err := q.QueryRow(ctx, `SELECT phase, last_id::text FROM decay_progress WHERE scope = $1`, scope).Scan(&cp.phase, &cp.lastID)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := q.Exec(ctx, `INSERT INTO decay_progress (scope, phase, job_run_id, at) VALUES ($1, $2, $3, $4)`,
			scope, phaseMemories, res.RunID, o.At); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		res.ResumedFrom = cp.phase
		if cp.lastID != nil {
			res.ResumedFrom += ":" + *cp.lastID
		}
		o.Log.Info("resuming an interrupted run", "scope", scope, "after", res.ResumedFrom)
		if _, err := q.Exec(ctx, `UPDATE decay_progress SET job_run_id = $2, at = $3, updated_at = now() WHERE scope = $1`,
			scope, res.RunID, o.At); err != nil {
			return err
		}
	}

	phases := []phase{memoriesPhase(o), layersPhase(o)}
	for i, ph := range phases {
		if cp.phase == phaseLayers && ph.table == phaseMemories {
			continue
		}
		var lo *string
		if ph.table == cp.phase {
			lo = cp.lastID
		}
		if err := runPhase(ctx, q, o, scope, ph, lo, res); err != nil {
			return err
		}
		if i+1 < len(phases) {
			if _, err := q.Exec(ctx, `UPDATE decay_progress SET phase = $2, last_id = NULL, updated_at = now() WHERE scope = $1`,
				scope, phases[i+1].table); err != nil {
				return err
			}
		}
	}
	_, err = q.Exec(ctx, `DELETE FROM decay_progress WHERE scope = $1`, scope)
	return err
}

const (
	phaseMemories = "memories"
	phaseLayers   = "psychology_layers"
)

// phase is one table's chunked update: set is the SET list, args its
// parameters from $6 on ($1 lo, $2 hi, $3 user id, $4 at, $5 forget-below are
// fixed), and only rows matching where are updated (the rest are counted as skipped).
type phase struct {
	table string
	set   string
	where string
	args  []any
	rt    string // the retention the update writes (DryRun)
}

// knownType is the platform's CHECK on memories.type: a row outside it
// cannot be updated at all.
const knownType = `(type IS NULL OR type IN ('episodic', 'semantic', 'procedural'))`

// userFilter limits a chunk to --user-id ($3) when set.
const userFilter = ` AND ($3::uuid IS NULL OR user_id = $3::uuid)`

func runPhase(ctx context.Context, q db.Querier, o Options, scope string, ph phase, lo *string, res *Result) error {
	// The first chunk includes its lower bound (the nil uuid); a resumed one starts after its checkpoint.
	from := ""
	if lo != nil {
		from = *lo
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi, err := nextBound(ctx, q, ph.table, from, o)
		if err != nil || hi == "" {
			return err
		}
		r := Range{Table: ph.table, Lo: from, Hi: hi}
		var c ChunkResult
		err = db.InTx(ctx, q, func(tx pgx.Tx) error {
			var err error
			if c, err = ph.chunk(ctx, tx, o, r); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `UPDATE decay_progress SET last_id = $2, updated_at = now() WHERE scope = $1`, scope, hi)
			return err
		})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%s: chunk %s: %w", ph.table, r, err)
		}
		res.chunk(o, ph.table, c.Rows, c.Forgotten, c.Skipped, o.ForgetBelow > 0)
		from = hi
	}
}

// Range is one chunk of a full run: the rows of Table with Lo < id <= Hi
// (Lo "": from the first id, inclusive).
type Range struct {
	Table string `json:"table"`
	Lo    string `json:"lo,omitempty"`
	Hi    string `json:"hi"`
}

func (r Range) String() string {
	lo := "("
	if r.Lo == "" {
		lo = "[00000000-0000-0000-0000-000000000000"
	}
	return fmt.Sprintf("%s%s, %s]", lo, r.Lo, r.Hi)
}

// ChunkResult is what one chunk did.
type ChunkResult struct {
	Rows      int64 `json:"rows"`
	Forgotten int64 `json:"forgotten"`
	Skipped   int64 `json:"skipped,omitempty"`
}

// nextBound is the last id of the chunk after from ("": from the start), or "" at the end.
func nextBound(ctx context.Context, q db.Querier, table, from string, o Options) (string, error) {
	op, lo := ">", from
	if from == "" {
		op, lo = ">=", "00000000-0000-0000-0000-000000000000"
	}
	var user any
	if o.UserID != "" {
		user = o.UserID
	}
	var hi string
	err := q.QueryRow(ctx, fmt.Sprintf(`SELECT id::text FROM (SELECT id FROM %s WHERE id %s $1::uuid%s ORDER BY id LIMIT $2) s ORDER BY id DESC LIMIT 1`,
		table, op, userFilter), lo, o.ChunkSize, user).Scan(&hi)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("%s: find chunk after %q: %w", table, from, err)
	}
	return hi, nil
}

// Ranges splits the memories and layers in scope (o.UserID, o.ChunkSize)
// into the chunks a full run commits one by one: `decay run --enqueue`
// queues one job per range.
func Ranges(ctx context.Context, q db.Querier, o Options) ([]Range, error) {
	o = o.withDefaults()
	var rs []Range
	for _, table := range []string{phaseMemories, phaseLayers} {
		from := ""
		for {
			hi, err := nextBound(ctx, q, table, from, o)
			if err != nil {
				return nil, err
			}
			if hi == "" {
				break
			}
			rs = append(rs, Range{Table: table, Lo: from, Hi: hi})
			from = hi
		}
	}
	return rs, nil
}

// Chunk recomputes the rows of one range as of o.At inside tx, the same
// update a full run commits per chunk; a queue worker completes its job in
// the same transaction. It also records the run's model for helix_retention
// and drops the incremental state when its settings differ from o's (the
// range's forget_at values no longer match it).
func Chunk(ctx context.Context, tx pgx.Tx, o Options, r Range) (ChunkResult, error) {
	o = o.withDefaults()
	var ph phase
	switch r.Table {
	case phaseMemories:
		ph = memoriesPhase(o)
	case phaseLayers:
		ph = layersPhase(o)
	default:
		return ChunkResult{}, fmt.Errorf("decay: unknown table %q", r.Table)
	}
	if err := saveModel(ctx, tx, o); err != nil {
		return ChunkResult{}, fmt.Errorf("record the decay model: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM helix_decay_state WHERE scope = $1 AND settings <> $2`, scopeAll, settings(o)); err != nil {
		return ChunkResult{}, err
	}
	return ph.chunk(ctx, tx, o, r)
}

// chunk runs the phase's update over one range.
func (ph phase) chunk(ctx context.Context, tx pgx.Tx, o Options, r Range) (ChunkResult, error) {
	where := ph.where
	if where == "" {
		where = "true"
	}
	op, from := ">", r.Lo
	if from == "" {
		op, from = ">=", "00000000-0000-0000-0000-000000000000"
	}
	rng := fmt.Sprintf(`id %s $1::uuid AND id <= $2::uuid%s`, op, userFilter)
	sql := fmt.Sprintf(`WITH u AS (UPDATE %[1]s SET %[2]s WHERE %[3]s AND %[4]s RETURNING forgotten)
			SELECT count(*), count(*) FILTER (WHERE forgotten),
			       (SELECT count(*) FROM %[1]s WHERE %[3]s AND NOT %[4]s) FROM u`, ph.table, ph.set, rng, where)
	var user, forgetBelow any
	if o.UserID != "" {
		user = o.UserID
	}
	if o.ForgetBelow > 0 {
		forgetBelow = o.ForgetBelow
	}
	var c ChunkResult
	args := append([]any{from, r.Hi, user, o.At, forgetBelow}, ph.args...)
	err := tx.QueryRow(ctx, sql, args...).Scan(&c.Rows, &c.Forgotten, &c.Skipped)
	return c, err
}

// forgetSet is the forgotten column's new value: the verdict of this run's
// --forget-below ($5), false without one. A flag is each run's, like
// retention: a "what if" run with a high threshold must not leave flags that
// later runs without one would keep (issue 49). Changing the threshold makes
// the next run full (settings), so every row gets the new verdict. Where
// retention is unknown (NULL: a platform column it needs, a layer's
// layer_number or last_updated, a memory's created_at, is NULL) a run with a
// threshold cannot judge, and the flag stays as it was.
func forgetSet(retention string) string {
	return fmt.Sprintf("forgotten = CASE WHEN $5::float8 IS NULL THEN false ELSE coalesce((%s) < $5::float8, forgotten) END", retention)
}

// memoriesPhase is FSRSParams.Advance in SQL. Parameters: $4 at, $6 decay,
// $7 factor, $8 e^w8, $9 w9, $10 w10, $11 initial stability, $12 initial
// difficulty, $13 w7, $14 D0(Easy), $15 e^(w17·w18), $16 w19.
func memoriesPhase(o Options) phase {
	s, d, rt := MemoriesSQL()
	ref := fmt.Sprintf(`CASE WHEN %s THEN last_accessed ELSE coalesce(reviewed_at, created_at) END`, isNewAccess)
	// Days until R = $5: S·($5^(1/DECAY) − 1)/FACTOR, in log space so that a
	// flat curve gives a huge number instead of an overflow.
	days := fmt.Sprintf(`(%s) * (exp(least(ln($5::float8) / $6::float8, 700)) - 1) / $7::float8`, s)
	set := fmt.Sprintf(`stability = %s, difficulty = %s,
		reviewed_at = CASE WHEN %s THEN last_accessed ELSE reviewed_at END,
		retention = %s, decayed_at = $4::timestamptz, %s, forget_at = %s`,
		s, d, isNewAccess, rt, forgetSet(rt), forgetAt(rt, ref, days, 86400))
	return phase{table: phaseMemories, set: set, where: knownType, args: memoryArgs(o.Memory), rt: rt}
}

// memoryArgs are memoriesPhase's parameters from $6 on.
func memoryArgs(p FSRSParams) []any {
	return []any{p.Decay(), FSRSFactor(p.Decay()), math.Exp(p.W[8]), p.W[9], p.W[10], p.InitialStability(), p.InitialDifficulty(),
		p.W[7], p.initDifficulty(4), math.Exp(p.W[17] * p.W[18]), p.W[19]}
}

// forgetAt is the instant retention rt, computed from reference instant ref,
// falls below --forget-below ($5) after dt units of unit seconds: NULL with
// the threshold off or already crossed (retention only falls until the next
// access, which a run notices), 'infinity' beyond a million days. It is one
// millisecond early, so rounding can only make a run look at a row too soon.
func forgetAt(rt, ref, dt string, unit float64) string {
	return fmt.Sprintf(`CASE WHEN $5::float8 IS NULL OR (%[1]s) < $5::float8 THEN NULL
		WHEN (%[3]s) >= %[5]v THEN 'infinity'::timestamptz
		ELSE (%[2]s) + (%[3]s) * interval '%[4]v seconds' - interval '1 millisecond' END`, rt, ref, dt, unit, 1e6*86400/unit)
}

const isNewAccess = `(last_accessed > coalesce(reviewed_at, created_at) AND last_accessed <= $4::timestamptz)`

// MemoriesSQL returns the SQL expressions of a memory's new stability,
// difficulty and retention over the columns of memories and the parameters of
// memoriesPhase. date_part (not extract, which is numeric) keeps the
// arithmetic in float8. helix_fsrs6_retention (migration 00140) is the same
// retention for readers.
func MemoriesSQL() (stability, difficulty, retention string) {
	var (
		s0   = fmt.Sprintf(`CASE WHEN stability > 0 THEN least(stability, %v::float8) ELSE $11::float8 END`, float64(FSRSMaxStability))
		d    = `CASE WHEN difficulty > 0 THEN least(greatest(difficulty, 1), 10) ELSE $12::float8 END`
		prev = `coalesce(reviewed_at, created_at)`
	)
	clampS := func(x string) string {
		return fmt.Sprintf(`least(greatest(%s, %v::float8), %v::float8)`, x, FSRSMinStability, float64(FSRSMaxStability))
	}
	sameDay := fmt.Sprintf(`(last_accessed AT TIME ZONE 'UTC')::date = (%s AT TIME ZONE 'UTC')::date`, prev)
	rRecall := fmt.Sprintf(`power(1 + $7::float8 * greatest(date_part('epoch', last_accessed - %s), 0) / 86400 / (%s), $6::float8)`, prev, s0)
	recall := clampS(fmt.Sprintf(`(%[1]s) * (1 + $8::float8 * (11 - (%[2]s)) * power(%[1]s, -$9::float8) * (exp($10::float8 * (1 - %[3]s)) - 1))`, s0, d, rRecall))
	short := clampS(fmt.Sprintf(`(%[1]s) * greatest(power(%[1]s, -$16::float8) * $15::float8, 1)`, s0))
	stability = fmt.Sprintf(`CASE WHEN %s THEN CASE WHEN %s THEN %s ELSE %s END ELSE %s END`, isNewAccess, sameDay, short, recall, s0)
	difficulty = fmt.Sprintf(`CASE WHEN %[1]s THEN least(greatest($13::float8 * $14::float8 + (1 - $13::float8) * (%[2]s), 1), 10) ELSE %[2]s END`, isNewAccess, d)
	ref := fmt.Sprintf(`CASE WHEN %s THEN last_accessed ELSE %s END`, isNewAccess, prev)
	retention = fmt.Sprintf(`power(1 + $7::float8 * greatest(date_part('epoch', $4::timestamptz - %s), 0) / 86400 / (%s), $6::float8)`, ref, stability)
	return stability, difficulty, retention
}

// layersPhase evaluates each layer's model in SQL. Parameters, indexed by
// layer number: $6 kinds, $7 params, $8 decays, $9 factors. Exponents are
// capped so that a long-untouched layer reaches ~1e-300, not an underflow error.
func layersPhase(o Options) phase {
	kinds := make([]string, 7)
	ps := make([]float64, 7)
	decays := make([]float64, 7)
	factors := make([]float64, 7)
	for n := 1; n <= 7; n++ {
		m := o.Layers[n]
		kinds[n-1], ps[n-1], decays[n-1] = string(m.Kind), m.Param, m.decay()
		factors[n-1] = FSRSFactor(m.decay())
	}
	const (
		p = `coalesce(stability, ($7::float8[])[layer_number])`
		t = `(greatest(date_part('epoch', $4::timestamptz - last_updated), 0) / 3600)`
	)
	rt := fmt.Sprintf(`CASE ($6::text[])[layer_number]
		WHEN 'exponential' THEN power(0.5::float8, least(%[1]s / %[2]s, 1000))
		WHEN 'ebbinghaus' THEN exp(greatest(-%[1]s / %[2]s, -700))
		WHEN 'power' THEN power(1 + %[1]s, -%[2]s)
		ELSE power(1 + ($9::float8[])[layer_number] * %[1]s / %[2]s, ($8::float8[])[layer_number]) END`, t, p)
	// Hours until R = $5, each model's inverse (log space, as in memoriesPhase).
	hours := fmt.Sprintf(`CASE ($6::text[])[layer_number]
		WHEN 'exponential' THEN %[1]s * ln($5::float8) / ln(0.5::float8)
		WHEN 'ebbinghaus' THEN -%[1]s * ln($5::float8)
		WHEN 'power' THEN exp(least(-ln($5::float8) / %[1]s, 700)) - 1
		ELSE %[1]s * (exp(least(ln($5::float8) / ($8::float8[])[layer_number], 700)) - 1) / ($9::float8[])[layer_number] END`, p)
	// decay_rate, which the platform reads: the fraction lost per hour right
	// after an update, −R'(0)/R(0). It changes only with the model, so rows a
	// run skips keep a current value.
	rate := fmt.Sprintf(`CASE ($6::text[])[layer_number]
		WHEN 'exponential' THEN ln(2::float8) / %[1]s
		WHEN 'ebbinghaus' THEN 1 / %[1]s
		WHEN 'power' THEN %[1]s
		ELSE -($8::float8[])[layer_number] * ($9::float8[])[layer_number] / %[1]s END`, p)
	// A layer without a layer_number (the platform's column may be NULL) has
	// no model: its decay_rate, which the apps read, is left as it was.
	set := fmt.Sprintf(`retention = %s, decayed_at = $4::timestamptz, %s, forget_at = %s, decay_rate = coalesce(%s, decay_rate), decay_basis = last_updated`,
		rt, forgetSet(rt), forgetAt(rt, "last_updated", hours, 3600), rate)
	return phase{table: phaseLayers, set: set, args: []any{kinds, ps, decays, factors}, rt: rt}
}

// Chunks estimates how many chunks a run over the scope takes (for progress).
func Chunks(ctx context.Context, q db.Querier, userID string, chunkSize int) (int, error) {
	var user any
	if userID != "" {
		user = userID
	}
	var m, l int
	err := q.QueryRow(ctx, `SELECT (SELECT count(*) FROM memories WHERE $1::uuid IS NULL OR user_id = $1::uuid),
		(SELECT count(*) FROM psychology_layers WHERE $1::uuid IS NULL OR user_id = $1::uuid)`, user).Scan(&m, &l)
	if chunkSize <= 0 {
		chunkSize = DefaultChunkSize
	}
	return (m+chunkSize-1)/chunkSize + (l+chunkSize-1)/chunkSize, err
}

// DryRun computes what a full run over the scope as of o.At would write
// (rows updated, items below ForgetBelow, flags cleared, rows skipped) with
// one read-only query per table, the same expressions as the update. It
// takes no lock and writes nothing, not even a job_runs row.
func DryRun(ctx context.Context, q db.Querier, o Options) (*Result, error) {
	o = o.withDefaults()
	start := time.Now()
	res := &Result{At: o.At.UTC(), Mode: ModeFull, DryRun: true}
	var user, forgetBelow any
	if o.UserID != "" {
		user = o.UserID
	}
	if o.ForgetBelow > 0 {
		forgetBelow = o.ForgetBelow
	}
	for _, ph := range []phase{memoriesPhase(o), layersPhase(o)} {
		where := ph.where
		if where == "" {
			where = "true"
		}
		below := fmt.Sprintf("coalesce((%s) < $5::float8, false)", ph.rt)
		// The update's parameters the retention does not use (difficulty's)
		// are typed in a CTE the query never reads: PostgreSQL must know
		// every parameter's type.
		sql := fmt.Sprintf(`WITH params AS (SELECT %[5]s) SELECT count(*) FILTER (WHERE %[2]s), count(*) FILTER (WHERE %[2]s AND %[3]s),
				count(*) FILTER (WHERE %[2]s AND forgotten AND NOT %[3]s), count(*) FILTER (WHERE NOT %[2]s)
			FROM %[1]s WHERE id >= $1::uuid AND id <= $2::uuid%[4]s`, ph.table, where, below, userFilter, paramTypes(ph.args, 6))
		args := append([]any{"00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", user, o.At, forgetBelow}, ph.args...)
		var n, forgotten, cleared, skipped int64
		if err := q.QueryRow(ctx, sql, args...).Scan(&n, &forgotten, &cleared, &skipped); err != nil {
			return nil, fmt.Errorf("%s: dry run: %w", ph.table, err)
		}
		if ph.table == phaseMemories {
			res.Memories = n
		} else {
			res.Layers = n
		}
		res.Forgotten += forgotten
		res.Cleared += cleared
		res.Skipped += skipped
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// paramTypes casts parameters $from… to the SQL types of args.
func paramTypes(args []any, from int) string {
	casts := make([]string, len(args))
	for i, a := range args {
		t := "float8"
		switch a.(type) {
		case []string:
			t = "text[]"
		case []float64:
			t = "float8[]"
		}
		casts[i] = fmt.Sprintf("$%d::%s", from+i, t)
	}
	return strings.Join(casts, ", ")
}
