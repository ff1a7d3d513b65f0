//go:build !amd64

package imdct

var hasLongKernel = false

func longAVX2(is, store *float32, n int, mat *[18][48]float32) { panic("no kernel") }
