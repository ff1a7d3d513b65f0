//go:build !linux

package db

import "net"

// tcpSocket: reads coalesce on Linux only, where SO_RCVLOWAT keeps the
// wait from waking the runtime's poller for every arrival (elsewhere a
// wait would cost as many wake-ups as it saves reads).
type tcpSocket struct{}

func socketOf(net.Conn) *tcpSocket { return nil }

func (*tcpSocket) queued() int { return 0 }
func (*tcpSocket) lowat(int)   {}
