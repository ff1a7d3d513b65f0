package db

import "github.com/jackc/pgx/v5"

// ReadCounts is how many reads c's connection made, and how many of them
// waited for a stream to gather (coalescingConn).
func ReadCounts(c *pgx.Conn) (reads, waits int) {
	cc := c.PgConn().Conn().(*coalescingConn)
	return cc.reads, cc.waits
}
