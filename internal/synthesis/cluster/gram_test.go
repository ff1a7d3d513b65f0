package cluster

import (
	"context"
	"math"
	"testing"
)

// TestGramAgreesWithVectors runs KMeansAuto in N-space (the Gram matrix) and
// in d-space on the same data and seeds: synthesis-shaped users (100
// memories of 1,536 dimensions in 25 planted topics with 5 % noise, as
// synthesis.Synthetic and the bench loader make them) and tighter, looser
// and larger ones. The two round differently, so a near tie may go the other
// way; on these 100 data sets none does (k, labels, and the silhouette to
// 1e-6 all agree), and the test allows two in a hundred.
func TestGramAgreesWithVectors(t *testing.T) {
	ctx := context.Background()
	shapes := []struct {
		n, d, k       int
		spread, noise float64
	}{
		{100, 1536, 25, 1.0, 0.05},
		{100, 1536, 4, 0.6, 0},
		{100, 1536, 8, 2.0, 0.2},
		{300, 384, 6, 1.0, 0.05},
		{30, 64, 3, 0.8, 0.1},
	}
	saved := gramMax
	defer func() { gramMax = saved }()
	differ, total := 0, 0
	for _, sh := range shapes {
		for seed := range uint64(20) {
			rows, _ := Planted(sh.n, sh.d, sh.k, sh.spread, sh.noise, seed+100)
			m := NewMatrix(rows)
			kMax := min(20, max(2, m.N/5))
			gramMax = saved
			if w := newWork(m, true); w.g == nil {
				t.Fatalf("%v: not in N-space", sh)
			}
			g, err := KMeansAuto(ctx, m, kMax, 3, seed)
			if err != nil {
				t.Fatal(err)
			}
			gramMax = 0
			v, err := KMeansAuto(ctx, m, kMax, 3, seed)
			if err != nil {
				t.Fatal(err)
			}
			total++
			if g.K != v.K || ARI(g.Labels, v.Labels) != 1 || math.Abs(g.Silhouette-v.Silhouette) > 1e-6 {
				differ++
				t.Logf("%v seed %d: N-space k=%d silhouette %.6f, d-space k=%d silhouette %.6f, ARI %.4f",
					sh, seed, g.K, g.Silhouette, v.K, v.Silhouette, ARI(g.Labels, v.Labels))
			}
		}
	}
	t.Logf("%d of %d data sets differ", differ, total)
	if differ > total/50 {
		t.Fatalf("%d of %d data sets differ between N-space and d-space", differ, total)
	}
}

// TestGramEmptyClusterAndDeterminism: with more clusters than distinct
// points some clusters empty and restart at a random point; the N-space runs
// stay deterministic for a seed.
func TestGramEmptyClusterAndDeterminism(t *testing.T) {
	rows := make([][]float32, 12)
	for i := range rows {
		rows[i] = make([]float32, 32)
		rows[i][i%3] = 1 // three distinct points, four copies each
	}
	m := NewMatrix(rows)
	if newWork(m, true).g == nil {
		t.Fatal("not in N-space")
	}
	r, err := KMeans(context.Background(), m, 6, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	if r.Inertia > 1e-6 {
		t.Fatalf("inertia %v with three distinct points", r.Inertia)
	}
	for i := range rows {
		if r.Labels[i] != r.Labels[i%3] {
			t.Fatalf("copies of one point in clusters %d and %d", r.Labels[i], r.Labels[i%3])
		}
	}
	again, _ := KMeans(context.Background(), m, 6, 3, 7)
	if ARI(r.Labels, again.Labels) != 1 || r.Inertia != again.Inertia {
		t.Fatal("not deterministic for a seed")
	}
}

// BenchmarkKMeansAuto is one synthesis-shaped user's k by silhouette, in
// N-space and in d-space.
func BenchmarkKMeansAuto(b *testing.B) {
	rows, _ := Planted(100, 1536, 25, 1.0, 0.05, 1)
	m := NewMatrix(rows)
	saved := gramMax
	defer func() { gramMax = saved }()
	for _, space := range []string{"gram", "vectors"} {
		b.Run(space, func(b *testing.B) {
			gramMax = saved
			if space == "vectors" {
				gramMax = 0
			}
			for b.Loop() {
				if _, err := KMeansAuto(context.Background(), m, 20, 3, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSilhouetteFromGram: once the Gram matrix is at hand (synthesis's
// k-distances compute it before anything else), Silhouette takes x·ΣC from
// it, bit for bit as KMeansAuto's silhouettes do, instead of from the
// vectors. Each value stays within 1e-6 of the one from the vectors, so
// what synthesis reports of it (a cluster's mean to 4 decimals, how many
// values are positive) changes only where a value lies that close to a
// rounding boundary or to 0: such near ties are counted and logged, on the
// planted labels (with noise, as DBSCAN's) and on KMeansAuto's.
func TestSilhouetteFromGram(t *testing.T) {
	ctx := context.Background()
	shapes := []struct {
		n, d, k       int
		spread, noise float64
	}{
		{100, 1536, 25, 1.0, 0.05},
		{100, 1536, 4, 0.6, 0},
		{300, 384, 6, 1.0, 0.05},
		{30, 64, 3, 0.8, 0.1},
	}
	ties, clusters, worst := 0, 0, 0.0
	for _, sh := range shapes {
		for seed := range uint64(10) {
			rows, truth := Planted(sh.n, sh.d, sh.k, sh.spread, sh.noise, seed+200)
			for i := range truth {
				if i%7 == 3 {
					truth[i] = Noise
				}
			}
			m := NewMatrix(rows)
			sameBits(t, "Silhouette from the vectors", Silhouette(m, truth), refSilhouette(m, truth))
			if m.gram != nil {
				t.Fatal("Silhouette computed the Gram matrix")
			}
			km, err := KMeansAuto(ctx, m, min(20, max(2, m.N/5)), 3, seed)
			if err != nil {
				t.Fatal(err)
			}
			if m.gram == nil {
				t.Fatalf("%v: KMeansAuto left no Gram matrix", sh)
			}
			for _, labels := range [][]int{truth, km.Labels} {
				want, got := refSilhouette(m, labels), Silhouette(m, labels)
				sameBits(t, "Silhouette from the Gram matrix", got, refGramSilhouette(m, m.gram, labels))
				k := 0
				for _, l := range labels {
					k = max(k, l+1)
				}
				for c := range k {
					var g, w []float64
					for i, l := range labels {
						if l == c {
							g, w = append(g, got[i]), append(w, want[i])
						}
					}
					clusters++
					for i := range g {
						worst = max(worst, math.Abs(g[i]-w[i]))
						if math.Abs(g[i]-w[i]) > 1e-6 {
							t.Fatalf("%v seed %d cluster %d: silhouette %v from the Gram matrix, %v from the vectors", sh, seed, c, g[i], w[i])
						}
						if (g[i] > 0) != (w[i] > 0) {
							ties++
							t.Logf("%v seed %d cluster %d: a silhouette of %.3g from the vectors, %.3g from the Gram matrix", sh, seed, c, w[i], g[i])
						}
					}
					if r4(Mean(g)) != r4(Mean(w)) {
						ties++
						t.Logf("%v seed %d cluster %d: mean silhouette %.10f from the vectors, %.10f from the Gram matrix", sh, seed, c, Mean(w), Mean(g))
					}
				}
			}
		}
	}
	t.Logf("%d near ties in %d clusters; largest difference %.2g", ties, clusters, worst)
	if ties > clusters/100 {
		t.Fatalf("%d near ties in %d clusters: more than rounding explains", ties, clusters)
	}
}

func r4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
