package cluster

import "context"

// DBSCANResult is a DBSCAN labelling.
type DBSCANResult struct {
	Labels []int  // cluster per point, Noise for noise
	Core   []bool // core samples
	Eps    float64
}

// edgeBudget bounds the neighbour pairs kept from the counting pass; beyond
// it a second pass recomputes them instead of holding O(n²) pairs.
const edgeBudget = 4 << 20

// DBSCAN clusters m exactly as scikit-learn's DBSCAN(eps, min_samples,
// metric="cosine"): the neighbourhood of a point includes the point, a point
// is core iff its neighbourhood has at least minSamples points, and a border
// point joins the first cluster that reaches it in scikit-learn's order. That
// order numbers clusters by their lowest core index and gives a border point
// the lowest-numbered cluster among its core neighbours, so the labelling can
// be computed from the pairs in any order with a union-find over core points.
func DBSCAN(ctx context.Context, m *Matrix, eps float64, minSamples int) (*DBSCANResult, error) {
	n := m.N
	count := make([]int32, n)
	for i := range count {
		count[i] = 1
	}
	var ei, ej []int32
	kept := true
	err := m.upperBlocks(ctx, func(a, b int, sims []float32, stride int) {
		for i := a; i < b; i++ {
			row := sims[(i-a)*stride:]
			for j := i + 1; j < n; j++ {
				if dist(row[j-a]) <= eps {
					count[i]++
					count[j]++
					if kept {
						if len(ei) >= edgeBudget {
							kept, ei, ej = false, nil, nil
							continue
						}
						ei = append(ei, int32(i))
						ej = append(ej, int32(j))
					}
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	core := make([]bool, n)
	for i, c := range count {
		core[i] = int(c) >= minSamples
	}
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	// Non-core points have fewer than minSamples neighbours, so their core
	// neighbours are few: keep them all.
	borderOf := map[int32][]int32{}
	edge := func(i, j int32) {
		switch {
		case core[i] && core[j]:
			ri, rj := find(i), find(j)
			if ri != rj {
				if ri < rj {
					parent[rj] = ri
				} else {
					parent[ri] = rj
				}
			}
		case core[i]:
			borderOf[j] = append(borderOf[j], i)
		case core[j]:
			borderOf[i] = append(borderOf[i], j)
		}
	}
	if kept {
		for k := range ei {
			edge(ei[k], ej[k])
		}
	} else {
		err := m.upperBlocks(ctx, func(a, b int, sims []float32, stride int) {
			for i := a; i < b; i++ {
				row := sims[(i-a)*stride:]
				for j := i + 1; j < n; j++ {
					if dist(row[j-a]) <= eps {
						edge(int32(i), int32(j))
					}
				}
			}
		})
		if err != nil {
			return nil, err
		}
	}
	labels := make([]int, n)
	rootLabel := map[int32]int{}
	for i := range labels {
		labels[i] = Noise
		if !core[i] {
			continue
		}
		r := find(int32(i))
		l, ok := rootLabel[r]
		if !ok {
			l = len(rootLabel)
			rootLabel[r] = l
		}
		labels[i] = l
	}
	for p, cs := range borderOf {
		for _, c := range cs {
			if l := labels[c]; labels[p] == Noise || l < labels[p] {
				labels[p] = l
			}
		}
	}
	return &DBSCANResult{Labels: labels, Core: core, Eps: eps}, nil
}
