//go:build unix

package skill

import "syscall"

// limitAddressSpace caps the JS child's address space: one huge allocation
// inside a native call fails instead of swapping the host.
func limitAddressSpace(bytes uint64) {
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: bytes, Max: bytes})
}
