//go:build !linux

package skill

import "time"

// threadCPUClock measures the whole process where there is no per-thread
// CPU clock to read from another thread: an over-estimate while other work
// runs, never an under-estimate.
func threadCPUClock() func() time.Duration { return processCPU }
