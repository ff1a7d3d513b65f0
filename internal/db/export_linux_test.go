package db

import (
	"net"
	"syscall"

	"github.com/jackc/pgx/v5"
)

// RcvLowat is the SO_RCVLOWAT of c's socket.
func RcvLowat(c *pgx.Conn) (int, error) {
	rc, err := c.PgConn().Conn().(*coalescingConn).Conn.(*net.TCPConn).SyscallConn()
	if err != nil {
		return 0, err
	}
	var v int
	cerr := rc.Control(func(fd uintptr) {
		v, err = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT)
	})
	if cerr != nil {
		return 0, cerr
	}
	return v, err
}
