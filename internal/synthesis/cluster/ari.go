package cluster

// ARI is the Adjusted Rand Index between two labellings (Hubert and Arabie),
// as scikit-learn's adjusted_rand_score: noise counts as one more label.
func ARI(a, b []int) float64 {
	type pair struct{ x, y int }
	cont := map[pair]int{}
	ra, rb := map[int]int{}, map[int]int{}
	for i := range a {
		cont[pair{a[i], b[i]}]++
		ra[a[i]]++
		rb[b[i]]++
	}
	c2 := func(n int) float64 { return float64(n) * float64(n-1) / 2 }
	var idx, sa, sb float64
	for _, v := range cont {
		idx += c2(v)
	}
	for _, v := range ra {
		sa += c2(v)
	}
	for _, v := range rb {
		sb += c2(v)
	}
	exp := sa * sb / c2(len(a))
	maxIdx := (sa + sb) / 2
	if maxIdx == exp {
		return 1
	}
	return (idx - exp) / (maxIdx - exp)
}
