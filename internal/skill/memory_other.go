//go:build !linux && !darwin

package skill

import "github.com/tetratelabs/wazero/experimental"

// newMemoryAllocator is wazero's default (a Go slice grown on demand) where
// there is no mmap.
func newMemoryAllocator() experimental.MemoryAllocator { return nil }
