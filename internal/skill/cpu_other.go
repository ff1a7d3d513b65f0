//go:build !unix

package skill

import (
	"os"
	"os/exec"
	"time"
)

func processCPU() time.Duration { return 0 }

// limitCPU is a no-op where there is neither getrusage nor RLIMIT_CPU: the
// wall-clock timeout alone bounds a JavaScript child there.
func limitCPU(time.Duration, func()) {}

// childCost is what a finished child used, from its process state.
func childCost(ps *os.ProcessState) (float64, int64) {
	return float64((ps.UserTime() + ps.SystemTime()).Microseconds()) / 1000, 0
}

func killedByCPULimit(*exec.ExitError) bool { return false }
