package db

import (
	"bufio"
	"context"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// A large result comes from the server in 8 kB writes (PostgreSQL's send
// buffer), and a client that keeps up with it wakes for every one: a read,
// a read that finds nothing, a park in the poller and a wake-up, 150,000
// times for the 1.2 GB a synthesize --all-users of 1,000 × 100 × 1,536
// reads, and over a second of helix's CPU in the kernel and the scheduler
// (issue 50; psql pays a third of that for the same bytes). So a connection
// reads through a buffer of readBuffer bytes, and once a reply has brought
// that much (since the last write: a stream, not a reply to wait on) a
// read that finds less than a quarter of that queued in the socket first
// waits readCoalesce: the kernel gathers the stream meanwhile (about
// 170 kB at the server's pace of one core), and one wake-up takes it all.
// A reply shorter than readBuffer never waits; a longer one waits once per
// readCoalesce at most, while the server goes on sending. The socket's
// queue is asked (SIOCINQ), not the read's size, which under TLS is what
// TLS asks of the socket beneath it (the wait sits under TLS: it wraps the
// dialled socket). For the wait the socket's
// SO_RCVLOWAT is raised: otherwise each 8 kB that arrives wakes the
// runtime's poller all the same (57,000 times in that run), only to find
// no goroutine waiting on it; it is back to 1 before the read, which may
// then park in the poller. Linux's TCP sockets only (socketOf).
const (
	readBuffer   = 256 << 10
	readCoalesce = time.Millisecond
)

// coalesceReads sets cc up to read as the comment above says.
func coalesceReads(cc *pgconn.Config) {
	dial := cc.DialFunc
	cc.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &coalescingConn{Conn: conn, sock: socketOf(conn)}, nil
	}
	cc.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		return pgproto3.NewFrontend(bufio.NewReaderSize(r, readBuffer), w)
	}
}

// coalescingConn is a connection whose reads wait readCoalesce when the
// socket holds little, once readBuffer bytes came since the last write.
// pgx may write (a large batch, on one goroutine) while it reads (on
// another), hence the atomic; reads are never concurrent.
type coalescingConn struct {
	net.Conn
	sock  *tcpSocket   // nil: no waits
	got   atomic.Int64 // bytes read since the last write
	reads int          // reads, and of them those that waited: for the tests
	waits int
}

func (c *coalescingConn) Write(p []byte) (int, error) {
	c.got.Store(0)
	return c.Conn.Write(p)
}

func (c *coalescingConn) Read(p []byte) (int, error) {
	c.reads++
	if c.sock != nil && c.got.Load() >= readBuffer && c.sock.queued() < readBuffer/4 {
		c.waits++
		c.sock.lowat(readBuffer)
		time.Sleep(readCoalesce)
		c.sock.lowat(1)
	}
	n, err := c.Conn.Read(p)
	c.got.Add(int64(n))
	return n, err
}
