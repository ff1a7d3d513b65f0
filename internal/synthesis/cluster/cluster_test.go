package cluster

import (
	"context"
	"math/rand/v2"
	"testing"
)

// sklearnDBSCAN is scikit-learn's dbscan_inner transcribed literally: full
// neighbourhoods in index order, depth-first expansion with a stack.
func sklearnDBSCAN(m *Matrix, eps float64, minSamples int) []int {
	n := m.N
	a, b := make([]float32, m.D), make([]float32, m.D)
	neigh := make([][]int, n)
	for i := range n {
		m.Row(i, a)
		for j := range n {
			m.Row(j, b)
			var s float32
			for k := range a {
				s += a[k] * b[k]
			}
			if i == j || dist(s) <= eps {
				neigh[i] = append(neigh[i], j)
			}
		}
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = -1
	}
	label := 0
	for i := range n {
		if labels[i] != -1 || len(neigh[i]) < minSamples {
			continue
		}
		var stack []int
		for {
			if labels[i] == -1 {
				labels[i] = label
				if len(neigh[i]) >= minSamples {
					for _, v := range neigh[i] {
						if labels[v] == -1 {
							stack = append(stack, v)
						}
					}
				}
			}
			if len(stack) == 0 {
				break
			}
			i = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
		label++
	}
	return labels
}

func TestDBSCANMatchesScikitLearnOrder(t *testing.T) {
	// Random directions in 3-D: many small clusters that share border points,
	// where the order of expansion decides the label.
	rng := rand.New(rand.NewPCG(7, 7))
	rows := make([][]float32, 400)
	for i := range rows {
		rows[i] = []float32{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}
	}
	m := NewMatrix(rows)
	for _, eps := range []float64{0.005, 0.01, 0.02} {
		for _, ms := range []int{3, 5, 8} {
			got, err := DBSCAN(context.Background(), m, eps, ms)
			if err != nil {
				t.Fatal(err)
			}
			want := sklearnDBSCAN(m, eps, ms)
			for i := range want {
				if got.Labels[i] != want[i] {
					t.Fatalf("eps=%v min_samples=%d: point %d labelled %d, scikit-learn's order gives %d", eps, ms, i, got.Labels[i], want[i])
				}
			}
		}
	}
}

func TestDBSCANAutoEpsFindsPlantedClusters(t *testing.T) {
	rows, truth := Planted(1500, 64, 6, 0.8, 0.05, 1)
	m := NewMatrix(rows)
	kd, err := KDistances(context.Background(), m, 5)
	if err != nil {
		t.Fatal(err)
	}
	eps := ElbowEps(kd)
	r, err := DBSCAN(context.Background(), m, eps, 5)
	if err != nil {
		t.Fatal(err)
	}
	if ari := ARI(truth, r.Labels); ari < 0.95 {
		t.Fatalf("ARI = %.3f with automatic eps %.3f, want ≥ 0.95", ari, eps)
	}
}

func TestHDBSCANFindsPlantedClusters(t *testing.T) {
	rows, truth := Planted(1200, 64, 5, 0.8, 0.05, 2)
	m := NewMatrix(rows)
	r, err := HDBSCAN(context.Background(), m, 10, 5)
	if err != nil {
		t.Fatal(err)
	}
	if ari := ARI(truth, r.Labels); ari < 0.95 {
		t.Fatalf("ARI = %.3f, want ≥ 0.95", ari)
	}
	if len(r.Persistence) != 5 {
		t.Fatalf("%d clusters selected, want 5", len(r.Persistence))
	}
	// Planted noise points are the outliers: their GLOSH scores are higher.
	var in, out []float64
	for i, l := range truth {
		if l == Noise {
			out = append(out, r.Outlier[i])
		} else {
			in = append(in, r.Outlier[i])
		}
	}
	if Mean(out) <= Mean(in) {
		t.Fatalf("mean GLOSH score of noise %.3f ≤ of cluster members %.3f", Mean(out), Mean(in))
	}
}

func TestHDBSCANCondensedTreeByHand(t *testing.T) {
	// Two tight groups of 3 far apart and one far point: with min_cluster_size 3
	// both groups are selected and the far point is noise.
	rows := [][]float32{{1, 0, 0}, {1, 0.01, 0}, {1, 0, 0.01}, {0, 1, 0}, {0.01, 1, 0}, {0, 1, 0.01}, {0, 0, 1}}
	r, err := HDBSCAN(context.Background(), NewMatrix(rows), 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{0, 0, 0, 1, 1, 1, Noise}
	if ari := ARI(want, r.Labels); ari != 1 {
		t.Fatalf("labels %v, want %v", r.Labels, want)
	}
	if r.Labels[6] != Noise {
		t.Fatalf("far point labelled %d", r.Labels[6])
	}
}

func TestKMeansChoosesKBySilhouette(t *testing.T) {
	rows, truth := Planted(900, 32, 4, 0.6, 0, 3)
	m := NewMatrix(rows)
	r, err := KMeansAuto(context.Background(), m, 8, 2, 42)
	if err != nil {
		t.Fatal(err)
	}
	if r.K != 4 {
		t.Fatalf("k = %d, want 4", r.K)
	}
	if ari := ARI(truth, r.Labels); ari < 0.95 {
		t.Fatalf("ARI = %.3f, want ≥ 0.95", ari)
	}
	again, _ := KMeansAuto(context.Background(), m, 8, 2, 42)
	if ARI(r.Labels, again.Labels) != 1 || r.Inertia != again.Inertia {
		t.Fatal("k-means is not deterministic for a seed")
	}
}

func TestKDistancesMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	rows := make([][]float32, 120)
	for i := range rows {
		rows[i] = []float32{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}
	}
	m := NewMatrix(rows)
	kd, err := KDistances(context.Background(), m, 4)
	if err != nil {
		t.Fatal(err)
	}
	a, b := make([]float32, 3), make([]float32, 3)
	for i := range rows {
		m.Row(i, a)
		var ds []float64
		for j := range rows {
			m.Row(j, b)
			ds = append(ds, dist(a[0]*b[0]+a[1]*b[1]+a[2]*b[2]))
		}
		// sort ascending, the 4th includes the point itself at distance ~0
		for x := range ds {
			for y := x + 1; y < len(ds); y++ {
				if ds[y] < ds[x] {
					ds[x], ds[y] = ds[y], ds[x]
				}
			}
		}
		if d := ds[3] - kd[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("point %d: k-distance %v, brute force %v", i, kd[i], ds[3])
		}
	}
}

func TestARI(t *testing.T) {
	if v := ARI([]int{0, 0, 1, 1}, []int{5, 5, 2, 2}); v != 1 {
		t.Fatalf("renamed labels: ARI %v", v)
	}
	// scikit-learn: adjusted_rand_score([0,0,1,1],[0,0,1,2]) = 0.5714285714285715
	if v := ARI([]int{0, 0, 1, 1}, []int{0, 0, 1, 2}); v < 0.5714 || v > 0.5715 {
		t.Fatalf("ARI %v, want 0.5714", v)
	}
}
