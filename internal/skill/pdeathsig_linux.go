package skill

import "syscall"

// childSysProcAttr makes the kernel kill a JavaScript child when helix dies
// (SIGKILL, the OOM killer, a supervisor): nothing else would stop a skill
// spinning inside a native call. Go's fork also checks that the parent is
// still alive after setting it, closing the race with an early death. The
// signal follows the thread that forked the child; Go ends threads only
// for goroutines that exit while locked to one, which helix never does.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
