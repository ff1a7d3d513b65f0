//go:build linux || darwin

package skill

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// mmapAllocator backs each wasm linear memory with its own anonymous mapping
// of the memory limit's size. The kernel supplies zeroed pages as the guest
// touches them, so memory.grow neither copies nor zeroes, and Free gives the
// pages straight back. wazero's default grows a Go slice by append: a Go
// guest's runtime grows its heap in many steps, each a copy.
type mmapAllocator struct{}

func newMemoryAllocator() experimental.MemoryAllocator { return mmapAllocator{} }

func (mmapAllocator) Allocate(_, max uint64) experimental.LinearMemory {
	b, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	return &mmapMemory{buf: b}
}

type mmapMemory struct{ buf []byte }

// Reallocate returns the first size bytes of the mapping, or nil (the guest's
// memory.grow fails) past the limit.
func (m *mmapMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size:size]
}

func (m *mmapMemory) Free() {
	if m.buf != nil {
		_ = syscall.Munmap(m.buf)
		m.buf = nil
	}
}
