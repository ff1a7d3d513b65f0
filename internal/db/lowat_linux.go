package db

import (
	"net"
	"syscall"
)

// lowater returns what sets conn's SO_RCVLOWAT, the bytes that must be
// queued before the kernel reports the socket readable; nil but for TCP,
// the sockets whose readiness honours it.
func lowater(conn net.Conn) func(n int) {
	tc, ok := conn.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return func(n int) {
		// A failure leaves the wait as it is without SO_RCVLOWAT: wake-ups
		// for nothing, never a read that does not wake.
		_ = rc.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, n)
		})
	}
}
