//go:build !linux

package skill

import "syscall"

// childSysProcAttr: without PR_SET_PDEATHSIG, an orphaned child is stopped
// by its own deadline (RunChild) or, before its request, by stdin closing.
func childSysProcAttr() *syscall.SysProcAttr { return nil }
