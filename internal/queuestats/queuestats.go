// Package queuestats reads the depth of helix's River queues cheaply enough
// to run on every Prometheus scrape of a river_job holding millions of rows.
package queuestats

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// States are River's job states, the order figures are reported in.
var States = []string{"available", "pending", "scheduled", "retryable", "running", "completed", "cancelled", "discarded"}

// finalized states change slowly and hold most of the table: a group of
// theirs is counted exactly up to FinishedCap, estimated beyond.
var finalized = map[string]bool{"completed": true, "cancelled": true, "discarded": true}

// DefaultCap is how many jobs of one (state, queue, kind) of a live state
// (available, pending, scheduled, retryable, running) are counted exactly;
// a larger group is estimated. A backlog written at once is a dense run of
// ids that probes see well; a backlog mixed into other jobs is counted up to
// this many.
const DefaultCap = 20_000

// firstLiveCap is how many jobs of a live group are counted before its
// estimate decides whether to count on up to the cap.
const firstLiveCap = 5_000

// FinishedCap is how many jobs of one (state, queue, kind) of a finalized
// state are counted exactly (a few hundred jobs of a rare kind are exact);
// a larger group is estimated.
const FinishedCap = 500

// Estimation of a group above its cap: its ids past the counted prefix are
// cut into strata intervals, each probed at its start by a window of about
// probeRows entries (their count over the window's width is the local
// density). The rest of an interval is estimated at the mean of the
// densities at its two ends; where that could be off by more than
// splitTol of the group (half their difference times the rest: the most an
// edge between the two densities can cost), the interval is halved and
// probed again, up to maxProbes a group.
const (
	strata    = 32
	probeRows = 16
	splitTol  = 0.01
	maxProbes = 64
)

// Count is how many jobs of a kind in a queue are in a state.
type Count struct {
	State     string `json:"state"`
	Queue     string `json:"queue"`
	Kind      string `json:"kind"`
	Jobs      int64  `json:"jobs"`
	Estimated bool   `json:"estimated"`
}

// Oldest is a queue's oldest available job: how long it has waited to run.
type Oldest struct {
	Queue       string    `json:"queue"`
	ScheduledAt time.Time `json:"scheduled_at"`
	AgeSeconds  float64   `json:"age_seconds"`
}

// Beginner is a pool or a connection.
type Beginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// Figures are the queues at one moment.
type Figures struct {
	At     time.Time `json:"at"`
	Counts []Count   `json:"counts"`
	// Oldest holds every queue that has available jobs, served or not.
	Oldest []Oldest `json:"oldest_available"`
	// TableRows is the statistics collector's live-row count of river_job
	// (an estimate, shown for scale).
	TableRows int64 `json:"table_rows"`
	// DBTime is how long the queries took, round trips included.
	DBTime time.Duration `json:"-"`
	// Taken is when they were read, by this host's clock.
	Taken time.Time `json:"-"`
	// Probes is how many index probes the estimates took.
	Probes int `json:"-"`
	// FinishedAt is when the oldest of the finalized states' counts was
	// taken (a Reader reuses them between reads; Read: Taken).
	FinishedAt time.Time `json:"-"`
}

// ByState sums the counts of each state; estimated reports whether any of
// a state's counts is an estimate.
func (f *Figures) ByState() (jobs map[string]int64, estimated map[string]bool) {
	jobs, estimated = map[string]int64{}, map[string]bool{}
	for _, c := range f.Counts {
		jobs[c.State] += c.Jobs
		estimated[c.State] = estimated[c.State] || c.Estimated
	}
	return jobs, estimated
}

// Index is the index Read counts through (migration 00280).
const Index = "helix_river_job_counts"

// Read takes the figures in one read-only transaction, through the index
// helix_river_job_counts (state, queue, kind, id) and River's
// river_job_prioritized_fetching_index; it takes no lock beyond the ACCESS
// SHARE every SELECT takes and never reads the table through.
//
// The (state, queue, kind) groups present are found by a skip scan (one
// index probe each). A group of a live state with at most limit jobs (0:
// DefaultCap), or of a finalized state with at most min(limit,
// FinishedCap) (limit when a caller asks for more than DefaultCap), is
// counted exactly by index-only scans (a live group first 5,000 deep, then
// on to limit only if its estimate is at most 1.5×limit). A larger group
// is estimated: its prefix is counted, then its remaining id range is
// probed (see strata).
// Every queue with available jobs, and those named in queues, get the age
// of their oldest available job: four index probes each, one per priority.
func Read(ctx context.Context, q Beginner, queues []string, limit int) (*Figures, error) {
	f, _, err := read(ctx, q, queues, limit, nil)
	return f, err
}

// read is Read, but the finalized groups named in reuse are not counted
// (the caller has their counts): it returns those still present, for the
// caller to add to the figures.
func read(ctx context.Context, q Beginner, queues []string, limit int, reuse map[Key]bool) (*Figures, []Key, error) {
	if limit <= 0 {
		limit = DefaultCap
	}
	finCap := min(limit, FinishedCap)
	// A scrape's read is bounded; a person asking for exact counts of
	// millions (jobs stats --exact-up-to) may wait.
	timeout := "10s"
	if limit > DefaultCap {
		timeout = "10min"
		finCap = limit
	}
	start := time.Now()
	f := &Figures{Counts: []Count{}, Oldest: []Oldest{}}
	var skipped []*group
	err := pgx.BeginTxFunc(ctx, q, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		// SET LOCAL: per transaction, so safe behind a transaction pooler.
		// enable_seqscan off keeps a stale plan from reading the table
		// through: every query below has an index to use.
		var haveIndex bool
		if err := tx.QueryRow(ctx, `SELECT now(), greatest(pg_stat_get_live_tuples(to_regclass('river_job')), 0),
			to_regclass($2) IS NOT NULL,
			set_config('statement_timeout', $1, true), set_config('lock_timeout', '1s', true),
			set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)`, timeout, Index).Scan(&f.At, &f.TableRows, &haveIndex, nil, nil, nil, nil); err != nil {
			return err
		}
		if !haveIndex {
			return fmt.Errorf("index %s is missing: run helix migrate up", Index)
		}
		// Live groups are counted up to firstCap, estimated beyond, then
		// counted on up to limit where the estimate says they may be that
		// small: a queue of 350,000 jobs written together is not counted
		// 20,000 entries deep to learn that it is large.
		firstCap := min(limit, firstLiveCap)
		all, err := readGroups(ctx, tx, firstCap, finCap, reuse)
		if err != nil {
			return err
		}
		var groups []*group
		for _, g := range all {
			if g.skip {
				skipped = append(skipped, g)
			} else {
				groups = append(groups, g)
			}
		}
		if f.Probes, err = estimate(ctx, tx, groups); err != nil {
			return err
		}
		if limit > firstCap {
			if err := countOn(ctx, tx, groups, firstCap, limit); err != nil {
				return err
			}
		}
		for _, g := range groups {
			f.Counts = append(f.Counts, g.Count)
		}
		return oldest(ctx, tx, f, queues)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read queue figures: %w", err)
	}
	var kept []Key
	for _, g := range skipped {
		kept = append(kept, g.key())
	}
	f.Taken = time.Now()
	f.FinishedAt = f.Taken
	f.DBTime = f.Taken.Sub(start)
	sortCounts(f.Counts)
	return f, kept, nil
}

func sortCounts(counts []Count) {
	slices.SortFunc(counts, func(a, b Count) int {
		if c := slices.Index(States, a.State) - slices.Index(States, b.State); c != 0 {
			return c
		}
		if c := strings.Compare(a.Queue, b.Queue); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
}

// Key names a group: state, queue, kind.
type Key [3]string

func (c Count) key() Key { return Key{c.State, c.Queue, c.Kind} }

// group is one (state, queue, kind) and what the first reads found: its
// first id, the counted prefix (Jobs, up to its cap, ending at id last) and,
// when the cap was reached, its last id.
type group struct {
	Count
	first, last, max int64
	capped           bool
	skip             bool    // a finalized group the caller has counted
	win              int64   // the width of its probe windows (window)
	rough            float64 // a first estimate, to weigh splits
}

// readGroups finds the groups by a skip scan of helix_river_job_counts
// (each step the first entry after the previous group: one probe), counts
// each up to its cap by an index-only scan, and for a group above its cap
// probes its last id. A finalized group in reuse is found but not counted
// (skip).
func readGroups(ctx context.Context, tx pgx.Tx, live, fin int, reuse map[Key]bool) ([]*group, error) {
	var rs, rq, rk []string
	for k := range reuse {
		rs, rq, rk = append(rs, k[0]), append(rq, k[1]), append(rk, k[2])
	}
	rows, err := tx.Query(ctx, `WITH RECURSIVE g AS (
			(SELECT state, queue, kind, id FROM river_job ORDER BY state, queue, kind, id LIMIT 1)
			UNION ALL
			SELECT n.* FROM g, LATERAL (SELECT r.state, r.queue, r.kind, r.id FROM river_job r
				WHERE (r.state, r.queue, r.kind) > (g.state, g.queue, g.kind)
				ORDER BY r.state, r.queue, r.kind, r.id LIMIT 1) n)
		SELECT g.state::text, g.queue, g.kind, g.id, c.n, coalesce(c.last, 0), k.cap < 0, k.cap >= 0 AND c.n > k.cap,
		       CASE WHEN k.cap >= 0 AND c.n > k.cap THEN (SELECT r.id FROM river_job r
		           WHERE r.state = g.state AND r.queue = g.queue AND r.kind = g.kind ORDER BY r.id DESC LIMIT 1) END
		FROM g,
		LATERAL (SELECT CASE WHEN g.state NOT IN ('completed', 'cancelled', 'discarded') THEN $1::int
			WHEN EXISTS (SELECT 1 FROM unnest($3::text[], $4::text[], $5::text[]) u(s, q, k)
			             WHERE u.s = g.state::text AND u.q = g.queue AND u.k = g.kind) THEN -1
			ELSE $2::int END AS cap) k,
		LATERAL (SELECT count(*) AS n, max(x.id) AS last FROM (
			SELECT r.id FROM river_job r WHERE r.state = g.state AND r.queue = g.queue AND r.kind = g.kind ORDER BY r.id
			LIMIT k.cap + 1) x) c`, live, fin, rs, rq, rk)
	if err != nil {
		return nil, err
	}
	var out []*group
	var (
		g   group
		max *int64
	)
	_, err = pgx.ForEachRow(rows, []any{&g.State, &g.Queue, &g.Kind, &g.first, &g.Jobs, &g.last, &g.skip, &g.capped, &max}, func() error {
		c := g
		if max != nil {
			c.max = *max
		}
		if c.capped {
			// The cap+1st entry is not part of the prefix: probes start at it.
			c.Jobs--
			c.Estimated = true
		}
		out = append(out, &c)
		return nil
	})
	return out, err
}

// countOn counts on the live groups estimated at most 1.5×limit (a
// backlog's estimate can miss a run of jobs written together), from the end
// of their counted prefix of first jobs up to limit in all: exact where
// they hold at most limit, else never reported below limit+1.
func countOn(ctx context.Context, tx pgx.Tx, groups []*group, first, limit int) error {
	var todo []*group
	b := batch{}
	for _, g := range groups {
		if g.capped && !finalized[g.State] && g.Jobs <= int64(limit)*3/2 {
			todo = append(todo, g)
			b.add(g, g.last, g.max+1)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT p.i, c.n FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
		WITH ORDINALITY AS p(s, q, k, lo, hi, i),
		LATERAL (SELECT count(*) AS n FROM (SELECT 1 FROM river_job r
			WHERE r.state = p.s::river_job_state AND r.queue = p.q AND r.kind = p.k AND r.id >= p.lo AND r.id < p.hi
			ORDER BY r.id LIMIT $6) x) c`, b.s, b.q, b.k, b.lo, b.hi, limit-first+1)
	if err != nil {
		return err
	}
	var i, n int64
	_, err = pgx.ForEachRow(rows, []any{&i, &n}, func() error {
		g := todo[i-1]
		if total := int64(first) + n; total <= int64(limit) {
			g.Jobs, g.Estimated = total, false
		} else {
			g.Jobs = max(g.Jobs, int64(limit)+1)
		}
		return nil
	})
	return err
}

// interval is an id range [lo, hi) of a group being estimated, probed by
// an index-only scan of a window at its start: n entries read, up to
// probeLimit; the entries up to known (exclusive) are counted, and d is
// their density (entries per id).
type interval struct {
	g        *group
	lo, hi   int64
	probed   bool
	n, known int64
	d        float64
	next     *interval // the interval after it in the group; nil: the last
}

// window is the width of a group's probe windows: about probeRows entries
// at the density of its counted prefix. A window of fixed width, unlike
// the span of a fixed number of entries, does not over-weigh runs of the
// group (a kind's runs in the table) against the gaps between them.
// It is fixed before the first probe: Jobs then grows with the estimate.
func (g *group) window() int64 {
	if g.win == 0 {
		d := float64(g.Jobs) / float64(max(g.last-g.first, 1))
		g.win = max(1, int64(probeRows/d))
	}
	return g.win
}

// probeLimit caps the entries one probe reads: a window in a run denser
// than the prefix stops early, and its density is that of what it read.
const probeLimit = 4 * probeRows

// estimate completes the groups above their cap. Their remaining ids (from
// the first one past the counted prefix to the last) are cut into strata
// intervals, each probed at its start (an index-only scan of a window of
// about probeRows entries; the whole interval when it is that short). The
// rest of an interval is estimated at the mean of the densities at its two
// ends (the next interval's window; at the last, a window ending at the
// group's last id), or, where those disagree by more than splitRatio — a
// backlog written at once begins or ends there — halved and probed again,
// so the estimate follows a run of dense ids to its edges. It returns the
// probes taken.
func estimate(ctx context.Context, tx pgx.Tx, groups []*group) (int, error) {
	var todo, tails []*interval
	var capped []*group
	probes := map[*group]int{}
	for _, g := range groups {
		if !g.capped {
			continue
		}
		capped = append(capped, g)
		lo, hi := g.last, g.max+1
		k := min(strata, hi-lo)
		var prev *interval
		for i := range k {
			iv := &interval{g: g, lo: lo + (hi-lo)*i/k, hi: lo + (hi-lo)*(i+1)/k}
			if prev != nil {
				prev.next = iv
			}
			prev = iv
			todo = append(todo, iv)
		}
		// The density at the group's end: a window ending at its last id.
		tails = append(tails, &interval{g: g, lo: max(lo, hi-g.window()), hi: hi})
	}
	if len(capped) == 0 {
		return 0, nil
	}
	tail := map[*group]float64{}
	todo = append(todo, tails...)
	total, first := 0, true
	var open []*interval // probed, not yet decided
	for len(todo) > 0 || len(open) > 0 {
		if len(todo) > 0 {
			if err := probe(ctx, tx, todo); err != nil {
				return total, err
			}
			for _, iv := range todo {
				probes[iv.g]++
				total++
			}
			open = append(open, todo...)
			todo = nil
		}
		if tails != nil {
			for _, iv := range tails {
				tail[iv.g] = iv.d
			}
			open, tails = open[:len(open)-len(tails)], nil
		}
		var still []*interval
		ready := open[:0:0]
		for _, iv := range open {
			if iv.next != nil && !iv.next.probed {
				still = append(still, iv)
			} else {
				ready = append(ready, iv)
			}
		}
		if first {
			// A rough size of each group, to weigh what a split can gain.
			for _, iv := range ready {
				iv.g.rough += float64(iv.n) + iv.mean(tail)*float64(iv.hi-iv.known)
			}
			for _, iv := range still {
				iv.g.rough += float64(iv.n)
			}
			first = false
		}
		for _, iv := range ready {
			g := iv.g
			g.Jobs += iv.n
			rest := iv.hi - iv.known
			if rest <= 0 {
				continue // read whole
			}
			d0, d1 := iv.d, tail[g]
			if iv.next != nil {
				d1 = iv.next.d
			}
			if math.Abs(d0-d1)/2*float64(rest) <= splitTol*g.rough || probes[g]+2 > maxProbes || rest < 2 {
				g.Jobs += int64(iv.mean(tail)*float64(rest) + 0.5)
				continue
			}
			mid := iv.known + rest/2
			r := &interval{g: g, lo: mid, hi: iv.hi, next: iv.next}
			l := &interval{g: g, lo: iv.known, hi: mid, next: r}
			todo = append(todo, l, r)
		}
		open = still
		if len(todo) == 0 && len(open) > 0 {
			return total, fmt.Errorf("queue estimate: %d intervals left undecided", len(open))
		}
	}
	return total, nil
}

// mean is the density assumed over the interval's rest: the mean of the
// densities at its two ends.
func (iv *interval) mean(tail map[*group]float64) float64 {
	if iv.next != nil {
		return (iv.d + iv.next.d) / 2
	}
	return (iv.d + tail[iv.g]) / 2
}

// batch is a set of probes as the parallel arrays one query unnests.
type batch struct {
	s, q, k []string
	lo, hi  []int64
}

func (b *batch) add(g *group, lo, hi int64) {
	b.s, b.q, b.k = append(b.s, g.State), append(b.q, g.Queue), append(b.k, g.Kind)
	b.lo, b.hi = append(b.lo, lo), append(b.hi, hi)
}

// probe reads, for each interval at once, the entries of the window at
// its start (up to probeLimit): index-only scans of helix_river_job_counts.
func probe(ctx context.Context, tx pgx.Tx, ivs []*interval) error {
	b := batch{}
	for _, iv := range ivs {
		b.add(iv.g, iv.lo, min(iv.hi, iv.lo+iv.g.window()))
	}
	rows, err := tx.Query(ctx, `SELECT p.i, c.n, coalesce(c.last, 0) FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
		WITH ORDINALITY AS p(s, q, k, lo, hi, i),
		LATERAL (SELECT count(*) AS n, max(x.id) AS last FROM (SELECT r.id FROM river_job r
			WHERE r.state = p.s::river_job_state AND r.queue = p.q AND r.kind = p.k AND r.id >= p.lo AND r.id < p.hi
			ORDER BY r.id LIMIT $6) x) c`, b.s, b.q, b.k, b.lo, b.hi, probeLimit)
	if err != nil {
		return err
	}
	var i, n, last int64
	_, err = pgx.ForEachRow(rows, []any{&i, &n, &last}, func() error {
		iv := ivs[i-1]
		iv.probed, iv.n = true, n
		if n < probeLimit {
			iv.known = b.hi[i-1]
			iv.d = float64(n) / float64(max(iv.known-iv.lo, 1))
		} else {
			iv.known = last + 1
			iv.d = float64(n) / float64(iv.known-iv.lo)
		}
		return nil
	})
	return err
}

// oldest finds the oldest available job of every queue that has available
// jobs (the skip scan found them, whether a worker serves the queue or
// not) and of the named ones: River fetches by (state, queue, priority,
// scheduled_at), so per priority (1 to 4) the oldest is the first entry of
// river_job_prioritized_fetching_index.
func oldest(ctx context.Context, tx pgx.Tx, f *Figures, queues []string) error {
	names := slices.Clone(queues)
	for _, c := range f.Counts {
		if c.State == "available" {
			names = append(names, c.Queue)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	rows, err := tx.Query(ctx, `SELECT q.name, min(o.scheduled_at) FROM unnest($1::text[]) AS q(name), generate_series(1, 4) p,
		LATERAL (SELECT scheduled_at FROM river_job WHERE state = 'available' AND queue = q.name AND priority = p
		         ORDER BY scheduled_at LIMIT 1) o
		GROUP BY q.name ORDER BY q.name`, names)
	if err != nil {
		return err
	}
	var o Oldest
	_, err = pgx.ForEachRow(rows, []any{&o.Queue, &o.ScheduledAt}, func() error {
		o.AgeSeconds = max(0, f.At.Sub(o.ScheduledAt).Seconds())
		f.Oldest = append(f.Oldest, o)
		return nil
	})
	return err
}

// Reader reads the figures for a worker's scrapes. The finalized states
// (completed, cancelled, discarded) hold most of the table, change slowly
// and are mostly estimates anyway, while every scrape wants the live
// states fresh: a read counts every live group, but of the finalized
// groups only those it has never counted and, oldest first, at most
// FinishedPerRead of those counted more than FinishedTTL ago; the others
// keep the count they had (Figures.FinishedAt says from when). So one
// read's work is bounded, and no scrape pays for all the finalized groups
// at once but the first.
type Reader struct {
	DB     Beginner
	Queues []string
	// FinishedTTL is how long a finalized group's count is reused (0:
	// DefaultFinishedTTL).
	FinishedTTL time.Duration
	// FinishedPerRead is how many finalized groups past FinishedTTL one read
	// counts again (0: DefaultFinishedPerRead).
	FinishedPerRead int
	// Now is the clock (nil: time.Now).
	Now func() time.Time

	mu  sync.Mutex
	fin map[Key]finishedCount
}

type finishedCount struct {
	Count
	at time.Time
}

// DefaultFinishedTTL and DefaultFinishedPerRead: with the worker's 5 s
// cache and 38 groups of which 25 finalized, each finalized group is
// counted again every minute or so, 4 of them a read.
const (
	DefaultFinishedTTL     = time.Minute
	DefaultFinishedPerRead = 4
)

// Read takes the figures, the finalized groups from the Reader's cache
// where they are fresh enough.
func (r *Reader) Read(ctx context.Context) (*Figures, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	ttl, per := r.FinishedTTL, r.FinishedPerRead
	if ttl <= 0 {
		ttl = DefaultFinishedTTL
	}
	if per <= 0 {
		per = DefaultFinishedPerRead
	}
	// Reuse all cached groups but the per stalest past ttl.
	var stale []Key
	reuse := map[Key]bool{}
	t := now()
	for k, c := range r.fin {
		reuse[k] = true
		if t.Sub(c.at) >= ttl {
			stale = append(stale, k)
		}
	}
	slices.SortFunc(stale, func(a, b Key) int {
		if c := r.fin[a].at.Compare(r.fin[b].at); c != 0 {
			return c
		}
		return slices.Compare(a[:], b[:])
	})
	for _, k := range stale[:min(per, len(stale))] {
		delete(reuse, k)
	}
	f, kept, err := read(ctx, r.DB, r.Queues, 0, reuse)
	if err != nil {
		return nil, err
	}
	fin := map[Key]finishedCount{}
	f.FinishedAt = t
	for _, c := range f.Counts {
		if finalized[c.State] {
			fin[c.key()] = finishedCount{Count: c, at: t}
		}
	}
	for _, k := range kept {
		c := r.fin[k]
		fin[k] = c
		f.Counts = append(f.Counts, c.Count)
		if c.at.Before(f.FinishedAt) {
			f.FinishedAt = c.at
		}
	}
	r.fin = fin
	sortCounts(f.Counts)
	return f, nil
}

// Cache keeps the last figures for TTL, so that scrapes from several
// Prometheus servers, or a fast scrape interval, read the table at most
// once per TTL; concurrent callers share one read.
type Cache struct {
	Read func(ctx context.Context) (*Figures, error)
	TTL  time.Duration

	mu   sync.Mutex
	last *Figures
	when time.Time
	err  error
}

// Get returns figures at most TTL old, reading them when the last are
// older. A failed read returns the error with the last good figures.
func (c *Cache) Get(ctx context.Context) (*Figures, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last != nil && time.Since(c.when) < c.TTL || c.err != nil && time.Since(c.when) < c.TTL {
		return c.last, c.err
	}
	f, err := c.Read(ctx)
	c.when, c.err = time.Now(), err
	if err == nil {
		c.last = f
	}
	return c.last, err
}

// Waiting is how many available jobs of a queue wait at one priority.
type Waiting struct {
	Queue    string `json:"queue"`
	Priority int    `json:"priority"`
	Jobs     int64  `json:"jobs"`
	// AtLeast: the count stopped at the cap; there are more.
	AtLeast bool `json:"at_least"`
}

// ReadWaiting counts the available jobs of each queue by priority (1 is
// fetched first), each count an index-only scan of at most limit rows of
// river_job_prioritized_fetching_index (state, queue, priority, …): cheap
// on a backlog of millions. Pairs with no job are left out.
func ReadWaiting(ctx context.Context, q interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}, queues []string, limit int) ([]Waiting, error) {
	rows, err := q.Query(ctx, `SELECT q, p, (SELECT count(*) FROM (SELECT 1 FROM river_job
			WHERE state = 'available' AND queue = q AND priority = p LIMIT $2) s)
		FROM unnest($1::text[]) WITH ORDINALITY AS u(q, o) CROSS JOIN generate_series(1, 4) AS p
		ORDER BY o, p`, queues, limit)
	if err != nil {
		return nil, err
	}
	out := []Waiting{}
	var w Waiting
	_, err = pgx.ForEachRow(rows, []any{&w.Queue, &w.Priority, &w.Jobs}, func() error {
		if w.Jobs > 0 {
			w.AtLeast = w.Jobs >= int64(limit)
			out = append(out, w)
		}
		return nil
	})
	return out, err
}
