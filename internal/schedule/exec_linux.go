package schedule

import "syscall"

// sysProcAttr: the job gets SIGTERM when the worker that started it dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
