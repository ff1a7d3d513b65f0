package db

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// tcpSocket controls a TCP socket's receive side.
type tcpSocket struct{ fd syscall.RawConn }

// socketOf is conn's TCP socket; nil for other sockets.
func socketOf(conn net.Conn) *tcpSocket {
	tc, ok := conn.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return &tcpSocket{fd: rc}
}

// queued is how many bytes wait in the socket to be read (SIOCINQ); on
// failure, as many as the wait gathers, so that there is no wait.
func (s *tcpSocket) queued() int {
	n := readBuffer
	_ = s.fd.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.SIOCINQ); err == nil {
			n = v
		}
	})
	return n
}

// lowat sets SO_RCVLOWAT, the bytes that must be queued before the kernel
// reports the socket readable. A failure leaves the wait as it is without
// it: wake-ups for nothing, never a read that does not wake.
func (s *tcpSocket) lowat(n int) {
	_ = s.fd.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVLOWAT, n)
	})
}
