package skill

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPUClock must be called on a goroutine locked to its thread: it
// returns a function that reads that thread's CPU time from any goroutine
// (the kernel's per-thread CPU clock, clockid as glibc's
// pthread_getcpuclockid makes it). A wasm guest runs on the goroutine that
// calls it, so this is the guest's CPU time, host calls included.
func threadCPUClock() func() time.Duration {
	tid := unix.Gettid()
	clock := int32(^uint32(tid)<<3) | 6 // CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD_MASK
	return func() time.Duration {
		var ts unix.Timespec
		if unix.ClockGettime(clock, &ts) != nil {
			return 0
		}
		return time.Duration(ts.Nano())
	}
}
