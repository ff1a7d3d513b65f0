// Package queuestats reads the depth of helix's River queues cheaply enough
// to run on every Prometheus scrape of a river_job holding millions of rows.
package queuestats

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// States are River's job states, the order figures are reported in.
var States = []string{"available", "pending", "scheduled", "retryable", "running", "completed", "cancelled", "discarded"}

// DefaultCap is how many jobs of one state are counted exactly; a state
// holding more is estimated.
const DefaultCap = 10_000

// sampleRows is about how many rows the sample of an estimate reads: its
// cost is about 170 pages and 10,000 rows whatever the table's size.
const sampleRows = 10_000

// Count is how many jobs of a kind are in a state.
type Count struct {
	State     string `json:"state"`
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
	// Oldest holds the queues that have available jobs.
	Oldest []Oldest `json:"oldest_available"`
	// TableRows is the planner's live-row count of river_job (an estimate).
	TableRows int64 `json:"table_rows"`
	// DBTime is how long the queries took, round trips included.
	DBTime time.Duration `json:"-"`
	// Taken is when they were read, by this host's clock.
	Taken time.Time `json:"-"`
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

// Read takes the figures in one read-only transaction, using only indexes
// River creates and planner statistics; it takes no lock beyond the
// ACCESS SHARE every SELECT takes.
//
// A state with at most limit jobs is counted exactly, by kind, through
// river_job_prioritized_fetching_index (state, queue, priority,
// scheduled_at, id): an index-only scan of at most limit+1 entries, then
// at most limit+1 rows for their kinds. A state with more (in practice
// completed, cancelled and discarded, or a backlog of millions) is
// estimated: the live-row count of river_job from the statistics collector (n_live_tup),
// split by state and kind as a TABLESAMPLE SYSTEM sample of about 10,000
// rows splits, never below limit+1; the totals of completed, cancelled and
// discarded (which change slowly) are the planner's statistics' share of
// the table when river_job has been analyzed. On a table of more than 10,000 rows
// the sample comes first, and a state it puts above 2×limit is not
// counted at all. Queues names the queues whose oldest available job is reported
// (besides those in river_queue): four index probes each, one per priority.
func Read(ctx context.Context, q Beginner, queues []string, limit int) (*Figures, error) {
	if limit <= 0 {
		limit = DefaultCap
	}
	// A scrape's read is bounded; a person asking for exact counts of
	// millions (jobs stats --exact-up-to) may wait.
	timeout := "10s"
	if limit > DefaultCap {
		timeout = "10min"
	}
	start := time.Now()
	f := &Figures{Counts: []Count{}, Oldest: []Oldest{}}
	err := pgx.BeginTxFunc(ctx, q, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		// SET LOCAL: per transaction, so safe behind a transaction pooler.
		// enable_seqscan off keeps a stale plan from reading the table
		// through: every query below has an index or a sample to use.
		if err := tx.QueryRow(ctx, `SELECT now(), greatest(pg_stat_get_live_tuples(to_regclass('river_job')), 0),
			set_config('statement_timeout', $1, true), set_config('lock_timeout', '1s', true),
			set_config('enable_seqscan', 'off', true)`, timeout).Scan(&f.At, &f.TableRows, nil, nil, nil); err != nil {
			return err
		}
		// A large table is sampled first: a state the sample puts far above
		// the limit is not counted at all (the counting is what costs).
		var smp *sampled
		toCount := States
		if f.TableRows > sampleRows {
			var err error
			if smp, err = sample(ctx, tx, f.TableRows); err != nil {
				return err
			}
			toCount = nil
			for _, s := range States {
				if smp.jobs(s) <= 2*int64(limit) {
					toCount = append(toCount, s)
				}
			}
		}
		capped, err := cappedCounts(ctx, tx, toCount, limit)
		if err != nil {
			return err
		}
		var small, big []string
		for _, s := range States {
			if n, ok := capped[s]; ok && n <= int64(limit) {
				small = append(small, s)
			} else {
				big = append(big, s)
			}
		}
		if err := exactCounts(ctx, tx, f, small, limit); err != nil {
			return err
		}
		if len(big) > 0 {
			if smp == nil {
				if smp, err = sample(ctx, tx, f.TableRows); err != nil {
					return err
				}
			}
			if smp.planned, err = plannerShares(ctx, tx); err != nil {
				return err
			}
			f.Counts = append(f.Counts, smp.estimates(big, limit)...)
		}
		return oldest(ctx, tx, f, queues)
	})
	if err != nil {
		return nil, fmt.Errorf("read queue figures: %w", err)
	}
	f.Taken = time.Now()
	f.DBTime = f.Taken.Sub(start)
	slices.SortFunc(f.Counts, func(a, b Count) int {
		if c := slices.Index(States, a.State) - slices.Index(States, b.State); c != 0 {
			return c
		}
		switch {
		case a.Kind < b.Kind:
			return -1
		case a.Kind > b.Kind:
			return 1
		}
		return 0
	})
	return f, nil
}

// cappedCounts counts up to limit+1 jobs of each state: an index-only scan
// of at most limit+1 entries per state, however large the table.
func cappedCounts(ctx context.Context, tx pgx.Tx, states []string, limit int) (map[string]int64, error) {
	out := map[string]int64{}
	if len(states) == 0 {
		return out, nil
	}
	rows, err := tx.Query(ctx, `SELECT s, (SELECT count(*) FROM (SELECT 1 FROM river_job
		WHERE state = s::river_job_state LIMIT $2) j) FROM unnest($1::text[]) s`, states, limit+1)
	if err != nil {
		return nil, err
	}
	var (
		s string
		n int64
	)
	_, err = pgx.ForEachRow(rows, []any{&s, &n}, func() error { out[s] = n; return nil })
	return out, err
}

// exactCounts counts the jobs of the small states by kind. The LIMIT keeps
// the count bounded if a state grew since cappedCounts looked.
func exactCounts(ctx context.Context, tx pgx.Tx, f *Figures, states []string, limit int) error {
	if len(states) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT s, j.kind, count(*) FROM unnest($1::text[]) s,
		LATERAL (SELECT kind FROM river_job WHERE state = s::river_job_state LIMIT $2) j GROUP BY 1, 2`, states, limit+1)
	if err != nil {
		return err
	}
	var c Count
	_, err = pgx.ForEachRow(rows, []any{&c.State, &c.Kind, &c.Jobs}, func() error {
		f.Counts = append(f.Counts, c)
		return nil
	})
	return err
}

// sampled is a block sample of river_job, counted by state and kind.
type sampled struct {
	n     map[[2]string]int64 // (state, kind) → rows in the sample
	total int64               // rows in the sample
	rows  int64               // rows in the table
	// planned are the finalized states' shares of the table by the
	// planner's statistics (ANALYZE samples rows from up to 30,000 pages:
	// far less clustered than our 170); their totals come from these.
	planned map[string]float64
}

// finalized states change slowly, so the planner's statistics, as old as
// the last ANALYZE, are good enough for their totals; a backlog is not.
var finalized = map[string]bool{"completed": true, "cancelled": true, "discarded": true}

// plannerShares reads the state column's most common values and their
// frequencies from pg_stats (none before river_job's first ANALYZE).
func plannerShares(ctx context.Context, tx pgx.Tx) (map[string]float64, error) {
	rows, err := tx.Query(ctx, `SELECT v, f FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename
		JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = s.schemaname,
		unnest(s.most_common_vals::text::text[], s.most_common_freqs) AS m(v, f)
		WHERE c.oid = to_regclass('river_job') AND s.attname = 'state'`)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	var (
		v string
		f float64
	)
	_, err = pgx.ForEachRow(rows, []any{&v, &f}, func() error {
		if finalized[v] {
			out[v] = f
		}
		return nil
	})
	return out, err
}

// sample reads about sampleRows rows of random pages (TABLESAMPLE SYSTEM):
// a sample scan, not a sequential one, whose cost does not grow with the
// table. REPEATABLE picks the same pages each time (pages added later are
// picked at the same rate): they stay in shared buffers between scrapes,
// and an estimate does not jump about from one scrape to the next.
func sample(ctx context.Context, tx pgx.Tx, tableRows int64) (*sampled, error) {
	pct := 100.0
	if tableRows > sampleRows {
		pct = 100 * float64(sampleRows) / float64(tableRows)
	}
	rows, err := tx.Query(ctx, `SELECT state::text, kind, n FROM (SELECT state, kind, count(*) AS n
		FROM river_job TABLESAMPLE SYSTEM ($1) REPEATABLE (0) GROUP BY 1, 2) s`, pct)
	if err != nil {
		return nil, err
	}
	smp := &sampled{n: map[[2]string]int64{}}
	var (
		k [2]string
		n int64
	)
	if _, err := pgx.ForEachRow(rows, []any{&k[0], &k[1], &n}, func() error {
		smp.n[k] += n
		smp.total += n
		return nil
	}); err != nil {
		return nil, err
	}
	smp.rows = max(tableRows, smp.total)
	return smp, nil
}

// jobs estimates the jobs of a state.
func (smp *sampled) jobs(state string) int64 {
	var n int64
	for k, c := range smp.n {
		if k[0] == state {
			n += c
		}
	}
	return n * smp.rows / max(smp.total, 1)
}

// estimates splits the table's live rows by state and kind as the sample
// splits them. A state the sample missed, or under-counts, is reported at
// limit+1: it is known to hold more than limit jobs.
func (smp *sampled) estimates(states []string, limit int) []Count {
	var out []Count
	for _, s := range states {
		var kinds []Count
		var sum int64
		for k, n := range smp.n {
			if k[0] == s {
				est := n * smp.rows / max(smp.total, 1)
				kinds = append(kinds, Count{State: s, Kind: k[1], Jobs: est, Estimated: true})
				sum += est
			}
		}
		if share, ok := smp.planned[s]; ok && sum > 0 {
			// The planner's total, split by kind as the sample splits it.
			total := int64(share * float64(smp.rows))
			for i := range kinds {
				kinds[i].Jobs = kinds[i].Jobs * total / sum
			}
			sum = total
		}
		floor := int64(limit) + 1
		switch {
		case len(kinds) == 0:
			kinds = []Count{{State: s, Jobs: floor, Estimated: true}}
		case sum < floor:
			// Scale up: more than limit jobs are there for sure.
			for i := range kinds {
				kinds[i].Jobs = max(1, kinds[i].Jobs*floor/max(sum, 1))
			}
		}
		out = append(out, kinds...)
	}
	return out
}

// oldest finds each queue's oldest available job: River fetches by
// (state, queue, priority, scheduled_at), so per priority (1 to 4) the
// oldest is the first index entry.
func oldest(ctx context.Context, tx pgx.Tx, f *Figures, queues []string) error {
	rows, err := tx.Query(ctx, `WITH q AS (SELECT unnest($1::text[]) AS name UNION SELECT name FROM river_queue)
		SELECT q.name, min(o.scheduled_at) FROM q, generate_series(1, 4) p,
		LATERAL (SELECT scheduled_at FROM river_job WHERE state = 'available' AND queue = q.name AND priority = p
		         ORDER BY scheduled_at LIMIT 1) o
		GROUP BY q.name ORDER BY q.name`, queues)
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
