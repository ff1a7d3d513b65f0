//go:build !linux

package db

import "net"

// lowater: SO_RCVLOWAT's effect on readiness is Linux's; elsewhere the wait
// goes without it.
func lowater(net.Conn) func(int) { return nil }
