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
	for i := range out {
		s := mid * e[i]
		lo, hi := o[i:i+nj], o[i+nj:i+2*nj]
		for j, t := range g {
			s += float32(t * (lo[nj-1-j] + hi[j]))
		}
		out[i] = s
	}
}

// dot32 is a·b over len(a) elements, a multiple of 32: 32 lanes (the
// products of the indices ≡ l mod 32, added in order), folded as four AVX
// registers fold: lanes l, l+8, l+16, l+24 as (l + l+8) + (l+16 + l+24),
// then each register's lane l with l+4, then those two halves, then the
// last two.
func dot32(a, b []float32) float32 {
	b = b[:len(a)]
	var s [32]float32
	for i := 0; i+32 <= len(a); i += 32 {
		x, y := a[i:i+32], b[i:i+32]
		for l := range s {
			s[l] += float32(x[l] * y[l])
		}
	}
	var v [8]float32
	for l := range v {
		v[l] = (s[l] + s[l+8]) + (s[l+16] + s[l+24])
	}
	b0, b1, b2, b3 := v[0]+v[4], v[1]+v[5], v[2]+v[6], v[3]+v[7]
	return (b0 + b2) + (b1 + b3)
}

// polyDotsGo writes out[i] = dot32(taps[ph[i]·k:][:k], buf[at[i]:][:k]): the
// outputs of a polyphase stage, each from its phase's k taps (k a multiple of 32).
func polyDotsGo(out, buf, taps []float32, at, ph []int32, k int) {
	for i := range out {
		p, a := int(ph[i])*k, int(at[i])
		out[i] = dot32(taps[p:p+k], buf[a:a+k])
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

// polyDots is polyDotsGo, through the AVX kernel when the CPU has one.
func polyDots(out, buf, taps []float32, at, ph []int32, k int) {
	if !hasKernel || len(out) == 0 {
		polyDotsGo(out, buf, taps, at, ph, k)
		return
	}
	at, ph = at[:len(out)], ph[:len(out)]
	// the kernel does not check bounds: do it here, once
	for i := range out {
		if int(at[i]) < 0 || int(at[i])+k > len(buf) || int(ph[i])*k+k > len(taps) {
			panic("dsp: polyphase index out of range")
		}
	}
	polyDotsAVX(&out[0], &buf[0], &taps[0], &at[0], &ph[0], k, len(out))
}
