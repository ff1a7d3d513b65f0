//go:build !unix

package skill

// limitAddressSpace is a no-op where there is no RLIMIT_AS (Windows): the
// heap watchdog alone stops a JS memory bomb there.
func limitAddressSpace(uint64) {}
