//go:build !amd64

package cluster

var hasKernel = false

func dot2x4(a0, a1, b0, b1, b2, b3 *float32, n int, out *[8]float32) { panic("no kernel") }

func dotLanes2x3(a0, a1, b0, b1, b2 *float32, n int, out *[24]float32) { panic("no kernel") }

func addWiden(dst *float64, src *float32, n int) { panic("no kernel") }

func dots4x4(x0, x1, x2, x3 *float32, s *float64, n int, out *[16]float64) { panic("no kernel") }

func maxUpdate64(best *float64, at *int64, s *float64, c int64, n int) { panic("no kernel") }

func maxUpdate32(best *float64, at *int64, s *float32, c int64, n int) { panic("no kernel") }

func sumSquares4(x0, x1, x2, x3 *float32, n int, out *[4]float64) { panic("no kernel") }

func divBy(dst, src *float64, d float64, n int) { panic("no kernel") }

func subWiden(dst *float64, src *float32, n int) { panic("no kernel") }
