package cluster

import (
	"context"
	"math"
	"slices"
)

// HDBSCANResult is an HDBSCAN labelling.
type HDBSCANResult struct {
	Labels        []int
	Probabilities []float64 // membership strength in [0,1]
	Outlier       []float64 // GLOSH outlier scores in [0,1]
	Persistence   []float64 // stability of each selected cluster, by label
}

// condensed is one row of the condensed tree.
type condensed struct {
	parent, child int
	lambda        float64
	size          int
}

// HDBSCAN clusters m as Campello et al. and the hdbscan library (defaults:
// excess of mass, allow_single_cluster=false) do: core distance to the
// minSamples-th neighbour (the point counting as the first), mutual
// reachability max(core_a, core_b, d(a,b)), its minimum spanning tree (Prim,
// one row of similarities per step), the single-linkage hierarchy condensed
// at minClusterSize, selection by stability, and GLOSH outlier scores.
func HDBSCAN(ctx context.Context, m *Matrix, minClusterSize, minSamples int) (*HDBSCANResult, error) {
	n := m.N
	res := &HDBSCANResult{Labels: make([]int, n), Probabilities: make([]float64, n), Outlier: make([]float64, n)}
	for i := range res.Labels {
		res.Labels[i] = Noise
	}
	if n < 2 {
		return res, nil
	}
	core, err := KDistances(ctx, m, minSamples)
	if err != nil {
		return nil, err
	}
	edges, err := primMST(ctx, m, core)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(edges, func(a, b mstEdge) int {
		switch {
		case a.w < b.w:
			return -1
		case a.w > b.w:
			return 1
		}
		return 0
	})
	tree := condense(singleLinkage(n, edges), n, minClusterSize)
	stab := stability(tree, n)
	selected := selectEOM(tree, stab, n)
	label(tree, selected, n, res)
	glosh(tree, n, res.Outlier)
	return res, nil
}

type mstEdge struct {
	a, b int
	w    float64
}

func primMST(ctx context.Context, m *Matrix, core []float64) ([]mstEdge, error) {
	n := m.N
	in := make([]bool, n)
	best := make([]float64, n)
	from := make([]int, n)
	for i := range best {
		best[i] = math.Inf(1)
	}
	sims := make([]float32, n)
	edges := make([]mstEdge, 0, n-1)
	cur := 0
	for len(edges) < n-1 {
		if len(edges)%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		in[cur] = true
		m.simsTo(cur, sims)
		next, nextW := -1, math.Inf(1)
		for j := range n {
			if in[j] {
				continue
			}
			mr := max(dist(sims[j]), core[cur], core[j])
			if mr < best[j] {
				best[j], from[j] = mr, cur
			}
			if best[j] < nextW {
				next, nextW = j, best[j]
			}
		}
		edges = append(edges, mstEdge{from[next], next, nextW})
		cur = next
	}
	return edges, nil
}

// link is one merge of the single-linkage hierarchy (scipy's format).
type link struct {
	left, right int
	dist        float64
	size        int
}

func singleLinkage(n int, edges []mstEdge) []link {
	parent := make([]int, 2*n-1)
	size := make([]int, 2*n-1)
	for i := range parent {
		parent[i] = i
		if i < n {
			size[i] = 1
		}
	}
	find := func(x int) int {
		r := x
		for parent[r] != r {
			r = parent[r]
		}
		for parent[x] != r {
			parent[x], x = r, parent[x]
		}
		return r
	}
	out := make([]link, len(edges))
	next := n
	for i, e := range edges {
		a, b := find(e.a), find(e.b)
		out[i] = link{a, b, e.w, size[a] + size[b]}
		parent[a], parent[b] = next, next
		size[next] = size[a] + size[b]
		next++
	}
	return out
}

func condense(h []link, n, minSize int) []condensed {
	root := 2*n - 2
	var out []condensed
	relabel := make([]int, root+1)
	ignore := make([]bool, root+1)
	relabel[root] = n
	nextLabel := n + 1
	count := func(x int) int {
		if x < n {
			return 1
		}
		return h[x-n].size
	}
	bfs := func(x int, fn func(int)) {
		queue := []int{x}
		for len(queue) > 0 {
			y := queue[0]
			queue = queue[1:]
			fn(y)
			if y >= n {
				queue = append(queue, h[y-n].left, h[y-n].right)
			}
		}
	}
	fallOut := func(parent, sub int, lambda float64) {
		bfs(sub, func(x int) {
			if x < n {
				out = append(out, condensed{parent, x, lambda, 1})
			}
			ignore[x] = true
		})
	}
	bfs(root, func(node int) {
		if ignore[node] || node < n {
			return
		}
		c := h[node-n]
		lambda := math.Inf(1)
		if c.dist > 0 {
			lambda = 1 / c.dist
		}
		lc, rc := count(c.left), count(c.right)
		p := relabel[node]
		switch {
		case lc >= minSize && rc >= minSize:
			relabel[c.left] = nextLabel
			out = append(out, condensed{p, nextLabel, lambda, lc})
			nextLabel++
			relabel[c.right] = nextLabel
			out = append(out, condensed{p, nextLabel, lambda, rc})
			nextLabel++
		case lc < minSize && rc < minSize:
			fallOut(p, c.left, lambda)
			fallOut(p, c.right, lambda)
		case lc < minSize:
			relabel[c.right] = p
			fallOut(p, c.left, lambda)
		default:
			relabel[c.left] = p
			fallOut(p, c.right, lambda)
		}
	})
	return out
}

// stability is Σ (λ_child − λ_birth(cluster)) · size over each cluster's rows.
func stability(tree []condensed, n int) map[int]float64 {
	birth := map[int]float64{n: 0}
	for _, r := range tree {
		if r.child >= n {
			birth[r.child] = r.lambda
		}
	}
	stab := map[int]float64{}
	for c := range birth {
		stab[c] = 0
	}
	for _, r := range tree {
		stab[r.parent] += (r.lambda - birth[r.parent]) * float64(r.size)
	}
	return stab
}

// selectEOM chooses clusters by excess of mass; the root is never selected.
func selectEOM(tree []condensed, stab map[int]float64, n int) map[int]bool {
	children := map[int][]int{}
	for _, r := range tree {
		if r.child >= n {
			children[r.parent] = append(children[r.parent], r.child)
		}
	}
	nodes := make([]int, 0, len(stab))
	for c := range stab {
		if c != n {
			nodes = append(nodes, c)
		}
	}
	slices.Sort(nodes)
	slices.Reverse(nodes)
	sel := map[int]bool{}
	for _, c := range nodes {
		sel[c] = true
	}
	var unselect func(c int)
	unselect = func(c int) {
		for _, ch := range children[c] {
			sel[ch] = false
			unselect(ch)
		}
	}
	for _, c := range nodes {
		sub := 0.0
		for _, ch := range children[c] {
			sub += stab[ch]
		}
		if sub > stab[c] {
			sel[c] = false
			stab[c] = sub
		} else {
			unselect(c)
		}
	}
	for c, ok := range sel {
		if !ok {
			delete(sel, c)
		}
	}
	return sel
}

// label gives each point the label of its nearest selected ancestor and a
// membership probability λ_point / λ_max of that cluster.
func label(tree []condensed, selected map[int]bool, n int, res *HDBSCANResult) {
	ids := make([]int, 0, len(selected))
	for c := range selected {
		ids = append(ids, c)
	}
	slices.Sort(ids)
	labelOf := map[int]int{}
	for i, c := range ids {
		labelOf[c] = i
	}
	// Rows come parents first, so one pass pushes the owning selected cluster down.
	owner := map[int]int{n: -1}
	maxLambda := map[int]float64{}
	pointLambda := make([]float64, n)
	for _, r := range tree {
		o := owner[r.parent]
		if r.child >= n {
			if selected[r.child] {
				owner[r.child] = r.child
			} else {
				owner[r.child] = o
			}
			continue
		}
		if o >= 0 {
			res.Labels[r.child] = labelOf[o]
			pointLambda[r.child] = r.lambda
			maxLambda[o] = max(maxLambda[o], r.lambda)
		}
	}
	res.Persistence = make([]float64, len(ids))
	stab := stability(tree, n)
	for i, c := range ids {
		res.Persistence[i] = stab[c]
	}
	for i, l := range res.Labels {
		if l < 0 {
			continue
		}
		ml := maxLambda[ids[l]]
		switch {
		case math.IsInf(ml, 1) || ml == 0:
			res.Probabilities[i] = 1
		default:
			res.Probabilities[i] = min(pointLambda[i], ml) / ml
		}
	}
}

// glosh computes the GLOSH outlier score (λ_max(C) − λ_p)/λ_max(C) where C is
// the cluster the point falls out of and λ_max the largest λ in C's subtree.
func glosh(tree []condensed, n int, out []float64) {
	deaths := map[int]float64{}
	for _, r := range tree {
		deaths[r.parent] = max(deaths[r.parent], r.lambda)
	}
	for i := len(tree) - 1; i >= 0; i-- { // children have larger ids than parents and come later
		r := tree[i]
		if r.child >= n && deaths[r.child] > deaths[r.parent] {
			deaths[r.parent] = deaths[r.child]
		}
	}
	for _, r := range tree {
		if r.child >= n {
			continue
		}
		lm := deaths[r.parent]
		if lm == 0 || math.IsInf(lm, 0) || math.IsInf(r.lambda, 0) {
			out[r.child] = 0
		} else {
			out[r.child] = (lm - r.lambda) / lm
		}
	}
}
