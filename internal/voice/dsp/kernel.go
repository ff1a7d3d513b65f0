package dsp

// The resampler's two inner loops, as plain Go and (kernel_amd64.s) as AVX
// kernels that give the same float32 results bit for bit: each output adds its
// products in the same order in both, and no multiply is fused with its add
// (the explicit float32 conversions forbid the compiler to fuse them).

// halfBandGo writes len(out) outputs of a half-band decimator from the even
// (e) and odd (o) input samples: out[i] = mid·e[i] + Σ_j g[j]·(o[i+J-1-j] +
// o[i+J+j]), J = len(g), adding the taps in order.
func halfBandGo(out, e, o []float32, mid float32, g []float32) {
	nj := len(g)
	e = e[:len(out)]
	o = o[:len(out)+2*nj-1]
	i := 0
	// four outputs at a time: four independent chains of additions, each
	// output's own in the order above
	for ; i+4 <= len(out); i += 4 {
		s0, s1, s2, s3 := mid*e[i], mid*e[i+1], mid*e[i+2], mid*e[i+3]
		lo, hi := o[i:i+nj+3], o[i+nj:i+2*nj+3]
		for j, t := range g {
			l := lo[nj-1-j : nj+3-j]
			h := hi[j : j+4]
			s0 += float32(t * (l[0] + h[0]))
			s1 += float32(t * (l[1] + h[1]))
			s2 += float32(t * (l[2] + h[2]))
			s3 += float32(t * (l[3] + h[3]))
		}
		out[i], out[i+1], out[i+2], out[i+3] = s0, s1, s2, s3
	}
	for ; i < len(out); i++ {
		s := mid * e[i]
		lo, hi := o[i:i+nj], o[i+nj:i+2*nj]
		for j, t := range g {
			s += float32(t * (lo[nj-1-j] + hi[j]))
		}
		out[i] = s
	}
}

// dot16 is a·b over len(a) elements, a multiple of 16: sixteen lanes (the
// products of the indices ≡ l mod 16, added in order), folded as two AVX
// registers fold: lane l with l+8, then lane l with l+4, then those two
// halves, then the last two.
func dot16(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15 float32
	for i := 0; i+16 <= len(a); i += 16 {
		x, y := a[i:i+16], b[i:i+16]
		s0 += float32(x[0] * y[0])
		s1 += float32(x[1] * y[1])
		s2 += float32(x[2] * y[2])
		s3 += float32(x[3] * y[3])
		s4 += float32(x[4] * y[4])
		s5 += float32(x[5] * y[5])
		s6 += float32(x[6] * y[6])
		s7 += float32(x[7] * y[7])
		s8 += float32(x[8] * y[8])
		s9 += float32(x[9] * y[9])
		s10 += float32(x[10] * y[10])
		s11 += float32(x[11] * y[11])
		s12 += float32(x[12] * y[12])
		s13 += float32(x[13] * y[13])
		s14 += float32(x[14] * y[14])
		s15 += float32(x[15] * y[15])
	}
	v0, v1, v2, v3 := s0+s8, s1+s9, s2+s10, s3+s11
	v4, v5, v6, v7 := s4+s12, s5+s13, s6+s14, s7+s15
	b0, b1, b2, b3 := v0+v4, v1+v5, v2+v6, v3+v7
	return (b0 + b2) + (b1 + b3)
}

// polyDotsGo writes out[i] = dot16(taps[ph[i]·k:][:k], buf[at[i]+shift:][:k]):
// the outputs of a polyphase stage, each from its phase's k taps (k a
// multiple of 16).
func polyDotsGo(out, buf, taps []float32, at, ph []int32, k, shift int) {
	for i := range out {
		p, a := int(ph[i])*k, int(at[i])+shift
		out[i] = dot16(taps[p:p+k], buf[a:a+k])
	}
}

// halfBandRun is halfBandGo, through the AVX kernel for the bulk when the CPU has one.
func halfBandRun(out, e, o []float32, mid float32, g []float32) {
	if n := len(out) &^ 31; hasKernel && n > 0 && len(g) > 0 {
		_ = e[n-1]
		_ = o[n+2*len(g)-2]
		halfBandAVX(&out[0], &e[0], &o[0], mid, &g[0], len(g), n)
		out, e, o = out[n:], e[n:], o[n:]
	}
	halfBandGo(out, e, o, mid, g)
}

// polyDots writes len(out) consecutive outputs of a stage of ratio l/m:
// at and ph hold the first input and the phase of the first min(len(out), l)
// of them, and output i+l has output i's phase and reads m inputs later.
// Each run of 4·l outputs goes through the kernel that loads each tap once
// for four outputs, when the CPU has the kernels.
func polyDots(out, buf, taps []float32, at, ph []int32, k, l, m int) {
	n := len(out)
	if n == 0 {
		return
	}
	at, ph = at[:min(n, l)], ph[:min(n, l)]
	// the kernels do not check bounds: do it here, once (inputs grow with
	// the output index, so the last output reads furthest)
	last := int(at[(n-1)%l]) + (n-1)/l*m
	if at[0] < 0 || last+k > len(buf) {
		panic("dsp: polyphase input out of range")
	}
	for _, p := range ph {
		if p < 0 || int(p) >= l || (int(p)+1)*k > len(taps) {
			panic("dsp: polyphase phase out of range")
		}
	}
	i := 0
	if hasKernel {
		for ; i+4*l <= n; i += 4 * l {
			polyDots4AVX(&out[i], &buf[0], &taps[0], &at[0], &ph[0], k, l, 4*l, 4*m, i/l*m)
		}
	}
	for ; i < n; i += l {
		c := min(l, n-i)
		if hasKernel {
			polyDotsAVX(&out[i], &buf[0], &taps[0], &at[0], &ph[0], k, c, i/l*m)
		} else {
			polyDotsGo(out[i:i+c], buf, taps, at, ph, k, i/l*m)
		}
	}
}
