package db

import (
	"context"
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

// probe finds the path: two connections of the pool run statements
// outside any transaction. Through a transaction pooler either the second
// borrows the server connection the first has just given back (PgBouncer
// lends its most recently used one first), so both report one backend pid —
// a thing no session can see — or, when the pooler is busy with other
// clients, the first's next statement lands on another server connection,
// with another pid: each says "transaction". Otherwise a backend whose
// client address is not this socket's is behind a session pooler (or
// another proxy, which behaves alike). The probe only reads: it sets
// nothing (a setting would stay on a transaction pooler's server
// connection, with whichever client is lent it next).
func probe(ctx context.Context, pool *pgxpool.Pool) (Path, error) {
	a, err := pool.Acquire(ctx)
	if err != nil {
		return PathUnknown, err
	}
	defer a.Release()
	b, err := pool.Acquire(ctx)
	if err != nil {
		return PathUnknown, err
	}
	defer b.Release()
	// The simple protocol: no statement of the probe may be left prepared on
	// a transaction pooler's server connection.
	simple := pgx.QueryExecModeSimpleProtocol
	var clientPort *int32
	for i := 0; i < 5; i++ {
		var pa, pb, again int32
		if err := a.QueryRow(ctx, `SELECT pg_backend_pid(), inet_client_port()`, simple).Scan(&pa, &clientPort); err != nil {
			return PathUnknown, err
		}
		if err := b.QueryRow(ctx, `SELECT pg_backend_pid()`, simple).Scan(&pb); err != nil {
			return PathUnknown, err
		}
		if err := a.QueryRow(ctx, `SELECT pg_backend_pid()`, simple).Scan(&again); err != nil {
			return PathUnknown, err
		}
		if pa == pb || again != pa {
			return PathTransaction, nil
		}
	}
	local, ok := a.Conn().PgConn().Conn().LocalAddr().(*net.TCPAddr)
	if ok && clientPort != nil && int(*clientPort) != local.Port {
		return PathSession, nil
	}
	return PathDirect, nil
}

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
