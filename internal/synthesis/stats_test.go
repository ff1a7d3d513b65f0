package synthesis

import (
	"math"
	"testing"
)

func TestPoissonUpper(t *testing.T) {
	// P(N ≥ 3 | λ=1) = 1 − e⁻¹(1 + 1 + 1/2)
	want := 1 - math.Exp(-1)*2.5
	if got := poissonUpper(3, 1); math.Abs(got-want) > 1e-12 {
		t.Fatalf("poissonUpper(3, 1) = %v, want %v", got, want)
	}
}

func TestWelchAndChiSquare(t *testing.T) {
	// By hand: means 3 and 5.5, variances 2.5 and 3.5, se² = 2.5/5 + 3.5/6,
	// t = −2.5/√se² = −2.4019, Welch df = 8.989, two-sided p = 0.0398.
	tt, df, p := welch([]float64{1, 2, 3, 4, 5}, []float64{3, 4, 5, 6, 7, 8})
	if math.Abs(tt+2.4019) > 1e-4 || math.Abs(df-8.989) > 1e-3 || math.Abs(p-0.0398) > 1e-4 {
		t.Fatalf("welch: t=%v df=%v p=%v", tt, df, p)
	}
	// scipy.stats.chisquare([10,20,30]): statistic=10, p=0.006737947
	chi2, p := chiSquareUniform([]int{10, 20, 30})
	if chi2 != 10 || math.Abs(p-0.006737947) > 1e-8 {
		t.Fatalf("chi-square: %v %v", chi2, p)
	}
}
