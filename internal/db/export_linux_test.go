package db

import (
	"syscall"

	"github.com/jackc/pgx/v5"
)

// RcvLowat is the SO_RCVLOWAT of c's socket.
func RcvLowat(c *pgx.Conn) (int, error) {
	var v int
	var err error
	cerr := coalescing(c).sock.fd.Control(func(fd uintptr) {
		v, err = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT)
	})
	if cerr != nil {
		return 0, cerr
	}
	return v, err
}
