package synthesis

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// meanVar returns the mean and the sample variance.
func meanVar(xs []float64) (mean, variance float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

// welch is Welch's two-sample t-test: the t statistic, its degrees of
// freedom and the two-sided p-value.
func welch(a, b []float64) (t, df, p float64) {
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	na, nb := float64(len(a)), float64(len(b))
	se2 := va/na + vb/nb
	if se2 <= 0 || na < 2 || nb < 2 {
		return 0, 0, 1
	}
	t = (ma - mb) / math.Sqrt(se2)
	df = se2 * se2 / ((va/na)*(va/na)/(na-1) + (vb/nb)*(vb/nb)/(nb-1))
	return t, df, tTwoSided(t, df)
}

func tTwoSided(t, df float64) float64 {
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
}

// chiSquareUniform tests counts against a uniform distribution: the
// statistic and its p-value (k-1 degrees of freedom).
func chiSquareUniform(counts []int) (chi2, p float64) {
	n := 0
	for _, c := range counts {
		n += c
	}
	e := float64(n) / float64(len(counts))
	for _, c := range counts {
		chi2 += (float64(c) - e) * (float64(c) - e) / e
	}
	return chi2, distuv.ChiSquared{K: float64(len(counts) - 1)}.Survival(chi2)
}

// poissonUpper is P(N ≥ k) for N ~ Poisson(lambda).
func poissonUpper(k int, lambda float64) float64 {
	switch {
	case k <= 0:
		return 1
	case lambda <= 0:
		return 0
	}
	// P(N ≥ k) is the regularised lower incomplete gamma function P(k, λ).
	return mathext.GammaIncReg(float64(k), lambda)
}

// confidence turns a p-value into a confidence in [0, 0.999]: evidence is never certain.
func confidence(p float64) float64 {
	return math.Max(0, math.Min(0.999, 1-p))
}

func normalize(v []float64) {
	ss := 0.0
	for _, x := range v {
		ss += x * x
	}
	if ss > 0 {
		inv := 1 / math.Sqrt(ss)
		for i := range v {
			v[i] *= inv
		}
	}
}

// quantile of xs by linear interpolation (xs is sorted in place).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	pos := q * float64(len(xs)-1)
	lo := int(pos)
	if lo+1 >= len(xs) {
		return xs[lo]
	}
	return xs[lo] + (pos-float64(lo))*(xs[lo+1]-xs[lo])
}
