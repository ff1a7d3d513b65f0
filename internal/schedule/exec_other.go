//go:build !linux

package schedule

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
