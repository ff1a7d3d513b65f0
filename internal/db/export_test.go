package db

import (
	"crypto/tls"

	"github.com/jackc/pgx/v5"
)

// coalescing is c's socket as coalesceReads wrapped it (under TLS if any).
func coalescing(c *pgx.Conn) *coalescingConn {
	conn := c.PgConn().Conn()
	if tc, ok := conn.(*tls.Conn); ok {
		conn = tc.NetConn()
	}
	return conn.(*coalescingConn)
}

// ReadCounts is how many reads c's connection made, and how many of them
// waited for a stream to gather (coalescingConn).
func ReadCounts(c *pgx.Conn) (reads, waits int) {
	cc := coalescing(c)
	return cc.reads, cc.waits
}

// OverTLS says whether c's connection runs over TLS.
func OverTLS(c *pgx.Conn) bool {
	_, ok := c.PgConn().Conn().(*tls.Conn)
	return ok
}
