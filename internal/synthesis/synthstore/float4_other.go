//go:build !amd64

package synthstore

var hasFloat4Kernel = false

func decodeFloat4AVX2(src *byte, dst *float32, n int) bool { panic("no kernel") }
