package db

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Path is what stands between helix and PostgreSQL.
type Path string

// The connection paths. PathUnknown is db.pool-mode=auto before the probe.
const (
	PathUnknown     Path = ""
	PathDirect      Path = "direct"
	PathSession     Path = "session"
	PathTransaction Path = "transaction"
)

// String names the path for people.
func (p Path) String() string {
	switch p {
	case PathDirect:
		return "direct connection"
	case PathSession:
		return "session pooler"
	case PathTransaction:
		return "transaction pooler"
	}
	return "unknown"
}

// PoolModes are the values of db.pool-mode.
const PoolModes = "auto, direct, session or transaction"

// ParsePoolMode reads db.pool-mode; "auto" and "" are PathUnknown (probe).
func ParsePoolMode(s string) (Path, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return PathUnknown, nil
	case "direct":
		return PathDirect, nil
	case "session":
		return PathSession, nil
	case "transaction":
		return PathTransaction, nil
	}
	return PathUnknown, fmt.Errorf("setting db.pool-mode = %q: not one of %s", s, PoolModes)
}

type path struct {
	mode  Path
	known atomic.Bool
}

// pools records what Open learnt of each pool it opened.
var pools sync.Map // *pgxpool.Pool → poolInfo

type poolInfo struct {
	path Path
	how  string // how path was found (HowFound)
	ttl  time.Duration
}

func info(pool *pgxpool.Pool) poolInfo {
	if p, ok := pools.Load(pool); ok {
		return p.(poolInfo)
	}
	return poolInfo{path: PathDirect, ttl: DefaultLockTTL}
}

// PathOf is the path pool goes through: set by db.pool-mode or found by
// Open's probe. A pool Open did not make is taken as direct.
func PathOf(pool *pgxpool.Pool) Path { return info(pool).path }

// HowFound says how PathOf(pool) was found: the db.pool-mode setting,
// Supabase's transaction port, or what the probe saw (helix doctor).
func HowFound(pool *pgxpool.Pool) string {
	if h := info(pool).how; h != "" {
		return h
	}
	return "taken as direct (a pool helix did not open)"
}

// probeWait bounds how long the probe's second connection waits for a
// server connection of its own.
const probeWait = 2 * time.Second

// probe finds the path, holding at most one connection beyond the pool's
// first (the one the command goes on to use), and that one only through a
// pooler: N processes on a session pooler of P server connections never
// each hold one while waiting for a second, which deadlocks once N ≥ P.
//
// One connection first: a backend that sees this socket's own port as its
// client's is reached directly. Otherwise a second connection, made apart
// from the pool (so db.max-conns=1 probes too), and the first run
// statements outside any transaction. Through a transaction pooler either
// the second borrows the server connection the first has just given back
// (PgBouncer lends its most recently used one first), so both report one
// backend pid — a thing no session can see — or, when the pooler is busy
// with other clients, the first's next statement lands on another server
// connection, with another pid: each says "transaction". A second that gets
// no server connection within probeWait while the first still answers on
// its own is a session pooler whose pool is full. The probe only reads: it
// sets nothing (a setting would stay on a transaction pooler's server
// connection, with whichever client is lent it next). It returns the path
// and how it was found.
func probe(ctx context.Context, pool *pgxpool.Pool, cc *pgx.ConnConfig) (Path, string, error) {
	a, err := pool.Acquire(ctx)
	if err != nil {
		return PathUnknown, "", err
	}
	defer a.Release()
	// The simple protocol: no statement of the probe may be left prepared on
	// a transaction pooler's server connection.
	simple := pgx.QueryExecModeSimpleProtocol
	var pa int32
	var clientPort *int32
	if err := a.QueryRow(ctx, `SELECT pg_backend_pid(), inet_client_port()`, simple).Scan(&pa, &clientPort); err != nil {
		return PathUnknown, "", err
	}
	local, tcp := a.Conn().PgConn().Conn().LocalAddr().(*net.TCPAddr)
	proxied := tcp && clientPort != nil && int(*clientPort) != local.Port
	if tcp && clientPort != nil && !proxied {
		return PathDirect, "found by probing (db.pool-mode auto): the server sees this connection's own port", nil
	}
	bctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	b, err := connectAlone(bctx, cc)
	if err == nil {
		defer func() { _ = b.Close(context.WithoutCancel(ctx)) }()
	}
	starved := func() (Path, string, error) {
		// The first keeps its server connection only in a session.
		actx, cancel := context.WithTimeout(ctx, probeWait)
		defer cancel()
		var again int32
		if err := a.QueryRow(actx, `SELECT pg_backend_pid()`, simple).Scan(&again); err == nil && again == pa {
			return PathSession, fmt.Sprintf("found by probing (db.pool-mode auto): a second connection got no server connection within %s while the first kept its own (a session pooler, its pool full)", probeWait), nil
		} else if ctx.Err() != nil {
			return PathUnknown, "", ctx.Err()
		}
		return PathTransaction, fmt.Sprintf("found by probing (db.pool-mode auto): inconclusive (the pooler lent neither connection a server connection within %s): taken as a transaction pooler, which every job works through; set db.pool-mode to say", probeWait), nil
	}
	if err != nil {
		if bctx.Err() != nil && ctx.Err() == nil {
			return starved()
		}
		return PathUnknown, "", err
	}
	for i := 0; i < 5; i++ {
		var pb, again int32
		if i > 0 {
			if err := a.QueryRow(ctx, `SELECT pg_backend_pid()`, simple).Scan(&pa); err != nil {
				return PathUnknown, "", err
			}
		}
		if err := b.QueryRow(bctx, `SELECT pg_backend_pid()`, simple).Scan(&pb); err != nil {
			if bctx.Err() != nil && ctx.Err() == nil {
				return starved()
			}
			return PathUnknown, "", err
		}
		if err := a.QueryRow(ctx, `SELECT pg_backend_pid()`, simple).Scan(&again); err != nil {
			return PathUnknown, "", err
		}
		if pa == pb || again != pa {
			return PathTransaction, "found by probing (db.pool-mode auto): two connections' statements shared server backends (a transaction pooler)", nil
		}
	}
	if proxied {
		return PathSession, "found by probing (db.pool-mode auto): each connection kept its own backend, which sees a pooler's port, not this connection's (a session pooler)", nil
	}
	return PathDirect, "found by probing (db.pool-mode auto): each connection kept its own backend", nil
}

// connectAlone makes a connection apart from any pool, for counting what a
// pooler lends, that never sends a cancel request. pgconn closes a
// connection whose statement outlived its context by sending one on a new
// connection; PgBouncer 1.18, sent dozens at once for clients still
// waiting for a server connection, aborted (FATAL in disconnect_client(),
// every client cut off). Dialling again once connected is refused, so
// cancelling one of these only closes its socket, which ends its wait.
func connectAlone(ctx context.Context, cc *pgx.ConnConfig) (*pgx.Conn, error) {
	c := cc.Copy()
	dial := c.DialFunc
	var connected atomic.Bool
	c.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if connected.Load() {
			return nil, errNoCancel
		}
		return dial(ctx, network, addr)
	}
	conn, err := pgx.ConnectConfig(ctx, c)
	if err == nil {
		connected.Store(true)
	}
	return conn, err
}

var errNoCancel = errors.New("a counting connection sends no cancel request")

// PoolerHint says what to do about err when it is a pooler (or the
// server) out of connections, "" otherwise. It reads the message: the
// error may have been flattened to one line on its way up.
func PoolerHint(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	for _, s := range []string{"query_wait_timeout", "no more connections allowed", "SQLSTATE 53300", "too many clients already"} {
		if strings.Contains(msg, s) {
			return "the connection pooler or server ran out of connections: lower db.max-conns or worker --concurrency, or raise the pooler's pool size; see README, Connecting to Supabase"
		}
	}
	return ""
}

// Meaning says what the path means for helix's jobs (helix doctor).
func (p Path) Meaning() string {
	switch p {
	case PathDirect:
		return "every job works; session settings (db.statement-timeout …) apply"
	case PathSession:
		return "every job works; each helix process holds up to db.max-conns of the pooler's server connections (helix worker says at startup how many it needs)"
	case PathTransaction:
		return "every job works: statements are described, never prepared by name; helix worker polls for jobs (no LISTEN); db.statement-timeout and db.idle-in-transaction-timeout are not set (they would stay on the pooler's server connection): the role's settings and the pooler's query_timeout apply"
	}
	return ""
}

// Lendable is how many server connections, up to want, the pooler in
// front of pool lends at once right now: want connections are made apart
// from the pool, each given wait to be answered, and all closed again. It
// is a session pooler's free pool size as a client can see it (PgBouncer
// tells clients nothing else); on other paths it counts what the server
// accepts.
func Lendable(ctx context.Context, pool *pgxpool.Pool, want int, wait time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	cc := pool.Config().ConnConfig
	results := make(chan error, want)
	// Every connection answered keeps its server connection until all are
	// counted (else the next would be lent the same one): done releases them.
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < want; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := connectAlone(ctx, cc)
			if err == nil {
				defer func() { _ = c.Close(context.WithoutCancel(ctx)) }()
				_, err = c.Exec(ctx, `SELECT 1`, pgx.QueryExecModeSimpleProtocol)
			}
			results <- err
			<-done
		}()
	}
	got := 0
	var first error
	for i := 0; i < want; i++ {
		switch err := <-results; {
		case err == nil:
			got++
		case first == nil && ctx.Err() == nil:
			first = err
		}
	}
	close(done)
	wg.Wait()
	if got == 0 && first != nil {
		return 0, first
	}
	return got, nil
}

// Resize is a new pool like pool (same URL, settings, path) of at most
// max connections. pool stays open: its caller closes it.
func Resize(ctx context.Context, pool *pgxpool.Pool, max int32) (*pgxpool.Pool, error) {
	cfg := pool.Config()
	cfg.MaxConns = max
	if cfg.MinConns > max {
		cfg.MinConns = max
	}
	np, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	pools.Store(np, info(pool))
	return np, nil
}

// Measured is Lendable serialized between processes that start together
// (two workers), so that they do not split the pooler between their
// counting connections: it counts in a transaction holding an advisory
// lock, whose connection is one of the pooler's too, counted in n.
func Measured(ctx context.Context, pool *pgxpool.Pool, want int, wait time.Duration) (n int, err error) {
	err = InTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, LockKey("helix-measure-pooler")); err != nil {
			return err
		}
		n, err = Lendable(ctx, pool, want, wait)
		n++
		return err
	})
	return n, err
}
