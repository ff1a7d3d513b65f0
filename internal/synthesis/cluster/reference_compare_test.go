package cluster

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
)

// TestKMeansEqualsReference checks that KMeansAuto, KMeans and Silhouette
// give bit for bit what the code before issue 37's speed-ups gave, on data
// shaped as synthesis sees it (100 memories of 1,536 dimensions in 25 planted
// topics, as synthesis.Synthetic and the bench loader make them) and on
// smaller and noisier shapes, with kMax as semantic.go derives it; with the
// AVX2 kernels and without.
func TestKMeansEqualsReference(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		n, d, k       int
		spread, noise float64
		kMax          int
	}{
		{100, 1536, 25, 1.0, 0.05, 20},
		{100, 1536, 4, 0.6, 0, 20},
		{60, 384, 3, 1.5, 0.2, 12},
		{37, 100, 5, 0.8, 0.1, 9}, // d not a multiple of 8: padded rows
		{8, 16, 2, 0.5, 0, 3},
	}
	saved, savedGram := hasKernel, gramMax
	defer func() { hasKernel, gramMax = saved, savedGram }()
	gramMax = 0 // the d-space runs; TestGramAgreesWithVectors compares the N-space ones
	for _, kernel := range []bool{saved, false} {
		hasKernel = kernel
		for _, tc := range cases {
			for seed := range uint64(3) {
				t.Run(fmt.Sprintf("kernel%v_n%d_d%d_k%d_seed%d", kernel, tc.n, tc.d, tc.k, seed), func(t *testing.T) {
					rows, truth := Planted(tc.n, tc.d, tc.k, tc.spread, tc.noise, seed+1)
					m := NewMatrix(rows)
					got, err := KMeansAuto(ctx, m, tc.kMax, 3, seed)
					if err != nil {
						t.Fatal(err)
					}
					want, err := refKMeansAuto(ctx, m, tc.kMax, 3, seed)
					if err != nil {
						t.Fatal(err)
					}
					sameResult(t, "KMeansAuto", got, want)
					for _, k := range []int{1, 2, 5, 7} {
						got, err := KMeans(ctx, m, k, 2, seed)
						if err != nil {
							t.Fatal(err)
						}
						want, err := refKMeans(ctx, m, k, 2, seed)
						if err != nil {
							t.Fatal(err)
						}
						sameResult(t, fmt.Sprintf("KMeans k=%d", k), got, want)
					}
					// with noise labels, as for DBSCAN's
					sameBits(t, "Silhouette of the planted labels", Silhouette(m, truth), refSilhouette(m, truth))
				})
			}
		}
	}
}

func sameResult(t *testing.T, what string, got, want *KMeansResult) {
	t.Helper()
	if got.K != want.K || !slices.Equal(got.Labels, want.Labels) ||
		math.Float64bits(got.Inertia) != math.Float64bits(want.Inertia) ||
		math.Float64bits(got.Silhouette) != math.Float64bits(want.Silhouette) {
		t.Fatalf("%s: got k=%d inertia=%v silhouette=%v labels=%v\nwant k=%d inertia=%v silhouette=%v labels=%v",
			what, got.K, got.Inertia, got.Silhouette, got.Labels, want.K, want.Inertia, want.Silhouette, want.Labels)
	}
}

func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: [%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}
