package db_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// paths starts a PgBouncer per pool mode in front of a fresh migrated
// database and returns the URL of each connection path.
func paths(t *testing.T) map[db.Path]string {
	t.Helper()
	return benchPaths(t)
}

func benchPaths(t testing.TB) map[db.Path]string {
	t.Helper()
	u := pgtest.URL(t)
	return map[db.Path]string{
		db.PathDirect:      u,
		db.PathSession:     pgtest.Bouncer(t, pgtest.SessionMode, u),
		db.PathTransaction: pgtest.Bouncer(t, pgtest.TransactionMode, u),
	}
}

var allPaths = []db.Path{db.PathDirect, db.PathSession, db.PathTransaction}

func openPath(t *testing.T, url string, o db.Options) *pgxpool.Pool {
	t.Helper()
	o.ConnectTimeout = 20 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := db.Open(ctx, url, o)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// TestOpenThroughEveryPath: helix's session settings never travel as startup
// parameters, so PgBouncer configured as Supabase's accepts the connection;
// db.pool-mode=auto finds the path; the settings hold where the path keeps
// a session (direct, session pooler), and through the transaction pooler
// the ones PgBouncer carries (application_name, TimeZone) hold too.
func TestOpenThroughEveryPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	urls := paths(t)
	for _, p := range allPaths {
		t.Run(string(p), func(t *testing.T) {
			o := db.Options{AppName: "helix-test", StatementTimeout: 90 * time.Second, IdleInTransactionTimeout: time.Minute}
			pool := openPath(t, urls[p], o)
			if got := db.PathOf(pool); got != p {
				t.Errorf("probe found %s, want %s", got, p)
			}
			if how := db.HowFound(pool); !strings.HasPrefix(how, "found by probing (db.pool-mode auto): ") {
				t.Errorf("HowFound %q, want what the probe saw", how)
			}
			for i := 0; i < 5; i++ { // several transactions: whichever server connection
				var app, tz, st string
				if err := pool.QueryRow(ctx, `SELECT current_setting('application_name'), current_setting('TimeZone'), current_setting('statement_timeout')`).Scan(&app, &tz, &st); err != nil {
					t.Fatal(err)
				}
				if app != "helix-test" || tz != "UTC" {
					t.Errorf("application_name %q, TimeZone %q", app, tz)
				}
				if p != db.PathTransaction && st != "90s" {
					t.Errorf("statement_timeout %q, want 90s", st)
				}
			}
			// An explicit mode is taken as said.
			forced := openPath(t, urls[p], db.Options{PoolMode: string(p)})
			if got := db.PathOf(forced); got != p {
				t.Errorf("db.pool-mode=%s: PathOf %s", p, got)
			}
			if how := db.HowFound(forced); how != "db.pool-mode "+string(p) {
				t.Errorf("db.pool-mode=%s: HowFound %q", p, how)
			}
		})
	}
}

// TestOneConnectionFindsThePath (issue 48): with db.max-conns=1 the probe
// still tells every path apart (its second connection is its own, made
// apart from the pool), so a pool of one behind a transaction pooler on
// any port uses no named statement: two such pools, taking turns on the
// pooler's one server connection, run the same parameterized statements
// with no 42P05 (prepared statement already exists).
func TestOneConnectionFindsThePath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	urls := paths(t)
	for _, p := range allPaths {
		t.Run(string(p), func(t *testing.T) {
			pool := openPath(t, urls[p], db.Options{MaxConns: 1})
			if got := db.PathOf(pool); got != p {
				t.Errorf("db.max-conns=1: probe found %s, want %s (%s)", got, p, db.HowFound(pool))
			}
		})
	}
	one := pgtest.BouncerWith(t, pgtest.TransactionMode, pgtest.URL(t), "default_pool_size = 1")
	a, b := openPath(t, one, db.Options{MaxConns: 1}), openPath(t, one, db.Options{MaxConns: 1})
	for i := 0; i < 20; i++ {
		for _, pool := range []*pgxpool.Pool{a, b} {
			var n int
			if err := pool.QueryRow(ctx, `SELECT cardinality($1::uuid[])`, []uuid.UUID{uuid.New()}).Scan(&n); err != nil || n != 1 {
				t.Fatalf("query %d: %d, %v", i, n, err)
			}
		}
	}
}

// TestWrongPoolModeNamed (issue 48): db.pool-mode=session set behind a
// transaction pooler: the second client's named statement meets the
// first's on the pooler's one server connection (42P05), and the error
// says to set db.pool-mode, not that the server refused a session setting.
func TestWrongPoolModeNamed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	one := pgtest.BouncerWith(t, pgtest.TransactionMode, pgtest.URL(t), "default_pool_size = 1")
	o := db.Options{PoolMode: "session", AppName: "helix-test", ConnectTimeout: 20 * time.Second}
	openPath(t, one, o) // its settings' named statement stays on the one server connection
	pool, err := db.Open(ctx, one, o)
	if err == nil {
		pool.Close()
		t.Fatal("a second session-mode pool opened through the transaction pooler")
	}
	var ce *db.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "42P05") || !strings.Contains(err.Error(), "set db.pool-mode to transaction") ||
		strings.Contains(err.Error(), "refused a session setting") {
		t.Errorf("err %v, want a ConfigError naming 42P05 and db.pool-mode", err)
	}
}

// TestProbeOnAFullSessionPool (issue 48): through a session pooler whose
// one server connection the probe's first connection holds, the second
// gets none; the probe says session within a few seconds instead of
// waiting out the pooler's query_wait_timeout (two minutes), and the pool
// works on its one connection.
func TestProbeOnAFullSessionPool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := pgtest.BouncerWith(t, pgtest.SessionMode, pgtest.URL(t), "default_pool_size = 1")
	pool := openPath(t, b, db.Options{}) // within openPath's minute: the pooler's wait is two

	if got, how := db.PathOf(pool), db.HowFound(pool); got != db.PathSession || !strings.Contains(how, "pool full") {
		t.Errorf("probe found %s (%s), want a full session pooler", got, how)
	}
	var one int
	if err := pool.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil {
		t.Fatal(err)
	}
}

// TestTransactionPoolerTypes: through the transaction pooler, many clients
// at once run every kind of parameter helix sends (uuid[], json from bytes
// and from maps, text[], timestamps) with no prepared statement collision
// (42P05) and no encoding error — the exec mode Open chooses there.
func TestTransactionPoolerTypes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := pgtest.URL(t)
	b := pgtest.Bouncer(t, pgtest.TransactionMode, u)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for c := 0; c < 4; c++ {
		pool := openPath(t, b, db.Options{MaxConns: 4})
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 20; i++ {
					ids := []uuid.UUID{uuid.New(), uuid.New()}
					var n int
					var js, m string
					var arr []string
					err := pool.QueryRow(ctx, `SELECT cardinality($1::uuid[]), $2::jsonb::text, $3::jsonb::text, $4::text[], $5::timestamptz`,
						ids, []byte(`{"a":1}`), map[string]any{"b": 2}, []string{"x", "y"}, time.Now()).Scan(&n, &js, &m, &arr, new(time.Time))
					if err == nil {
						err = db.InTx(ctx, pool, func(tx pgx.Tx) error {
							b := &pgx.Batch{}
							b.Queue(`SELECT $1::uuid`, ids[0])
							b.Queue(`SELECT $1::json`, []byte(`[1]`))
							return tx.SendBatch(ctx, b).Close()
						})
					}
					if err != nil || n != 2 || js != `{"a": 1}` || m != `{"b": 2}` || len(arr) != 2 {
						errs <- fmt.Errorf("n=%d js=%s m=%s arr=%v: %v", n, js, m, arr, err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestOpenRefusals: what retrying cannot fix is a *db.ConfigError (exit 2)
// naming the cause: a parameter the pooler does not accept (in the URL), a
// bad db.pool-mode, TLS demanded of a server without it, an unknown database.
func TestOpenRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := pgtest.URL(t)
	b := pgtest.Bouncer(t, pgtest.TransactionMode, u)
	tls := strings.Replace(b, "sslmode=disable", "sslmode=require", 1) // PgBouncer here has no TLS
	for _, tt := range []struct {
		name, url string
		o         db.Options
		want      string
	}{
		{"pool mode", u, db.Options{PoolMode: "statement"}, "db.pool-mode"},
		{"lock ttl", u, db.Options{LockTTL: time.Hour}, "db.lock-ttl"},
		{"tls refused", tls, db.Options{}, "does not accept TLS"},
		{"no database", strings.Replace(u, "/helix_test_", "/nope_", 1), db.Options{}, "does not exist"},
		{"pooler: no database", strings.Replace(b, "/helix_test_", "/nope_", 1), db.Options{}, "does not exist"},
		{"bad setting", u + "&statement_timeout=abc", db.Options{}, "statement_timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			tt.o.ConnectTimeout = 20 * time.Second
			pool, err := db.Open(ctx, tt.url, tt.o)
			if err == nil {
				pool.Close()
				t.Fatal("opened")
			}
			var ce *db.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %T %v, want a ConfigError about %q", err, err, tt.want)
			}
		})
	}
}

// TestProbeLeavesNothing (issue 49, item 4): the pool-mode probe through a
// transaction pooler whose one server connection every client shares leaves
// no setting of its own there: the next client lent that server connection
// sees no helix.probe setting (placeholder settings are not in pg_settings:
// the name is asked for).
func TestProbeLeavesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := pgtest.BouncerWith(t, pgtest.TransactionMode, pgtest.URL(t), "default_pool_size = 1")
	pool := openPath(t, b, db.Options{})
	if got := db.PathOf(pool); got != db.PathTransaction {
		t.Fatalf("probe found %s, want %s", got, db.PathTransaction)
	}
	pool.Close()
	c, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var left *string
	if err := c.QueryRow(ctx, `SELECT current_setting('helix.probe', true)`, pgx.QueryExecModeSimpleProtocol).Scan(&left); err != nil || left != nil {
		t.Errorf("helix.probe left on the pooler's server connection (%v): %v", err, pgtype.Text{String: deref(left), Valid: left != nil})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestURLOptionsApplied (issue 49, item 3): the settings of the URL's
// options parameter hold where a session keeps them (direct, session
// pooler), escaped spaces included, and a setting the URL also gives by
// name wins.
func TestURLOptionsApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	urls := paths(t)
	for _, p := range []db.Path{db.PathDirect, db.PathSession} {
		u := urls[p] + "&options=" + strings.ReplaceAll(url.QueryEscape(`-c work_mem=7MB --lock-timeout=3s -c application_name=from\ options -cstatement_timeout=1min`), "+", "%20") + "&statement_timeout=2min"
		pool := openPath(t, u, db.Options{AppName: "helix-test"})
		for i := 0; i < 3; i++ {
			var wm, lt, app, st string
			if err := pool.QueryRow(ctx, `SELECT current_setting('work_mem'), current_setting('lock_timeout'), current_setting('application_name'), current_setting('statement_timeout')`).Scan(&wm, &lt, &app, &st); err != nil {
				t.Fatal(err)
			}
			if wm != "7MB" || lt != "3s" || app != "from options" || st != "2min" {
				t.Errorf("%s: work_mem %q lock_timeout %q application_name %q statement_timeout %q", p, wm, lt, app, st)
			}
		}
	}
}
