//go:build unix

package skill

import (
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

func tvDuration(tv syscall.Timeval) time.Duration {
	return time.Duration(tv.Sec)*time.Second + time.Duration(tv.Usec)*time.Microsecond
}

// processCPU is the CPU time (user + system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return tvDuration(ru.Utime) + tvDuration(ru.Stime)
}

// limitCPU ends a JavaScript child that uses more than limit of CPU time. A
// watchdog reads the process's CPU time every 10 ms; RLIMIT_CPU backs it
// up in the kernel (SIGXCPU at the limit rounded up to a second, SIGKILL a
// second later), so the cap holds even if the watchdog could not run.
func limitCPU(limit time.Duration, exceeded func()) {
	soft := uint64((limit + time.Second - 1) / time.Second)
	_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: soft, Max: soft + 1})
	xcpu := make(chan os.Signal, 1)
	signal.Notify(xcpu, syscall.SIGXCPU)
	go func() {
		<-xcpu
		exceeded()
	}()
	go func() {
		for range time.Tick(10 * time.Millisecond) {
			if processCPU() >= limit {
				exceeded()
			}
		}
	}()
}

// childCost is what a finished child used: CPU time in milliseconds and
// its peak resident set (of it and the children it waited for).
func childCost(ps *os.ProcessState) (float64, int64) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, 0
	}
	cpu := tvDuration(ru.Utime) + tvDuration(ru.Stime)
	rss := int64(ru.Maxrss)
	if runtime.GOOS != "darwin" { // Linux and the BSDs count kilobytes, macOS bytes
		rss <<= 10
	}
	return float64(cpu.Microseconds()) / 1000, rss
}

// killedByCPULimit: the kernel's RLIMIT_CPU signals (SIGXCPU, then SIGKILL).
func killedByCPULimit(ee *exec.ExitError) bool {
	return killedBy(ee, syscall.SIGKILL) || killedBy(ee, syscall.SIGXCPU)
}
