package synthesis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// permutations of the change-point test; p ≥ 1/(permutations+1).
const permutations = 999

// emotional finds the valence trend, a change point, and themes whose
// valence differs from the user's baseline. One Bonferroni correction covers them all.
func emotional(ms []Memory, themes []theme, p Params) []Pattern {
	var idx []int
	var x, y []float64
	for i, m := range ms {
		if m.Valence != nil {
			idx = append(idx, i)
			y = append(y, *m.Valence)
		}
	}
	if len(idx) < 10 {
		return nil
	}
	t0 := ms[idx[0]].CreatedAt
	for _, i := range idx {
		x = append(x, ms[i].CreatedAt.Sub(t0).Hours()/24)
	}
	type trig struct {
		th               theme
		members          []int
		mean, rest, t, p float64
		df               float64
	}
	var trigs []trig
	for _, th := range themes {
		in := map[int]bool{}
		for _, i := range th.members {
			in[i] = true
		}
		var a, b []float64
		var members []int
		for k, i := range idx {
			if in[i] {
				a = append(a, y[k])
				members = append(members, i)
			} else {
				b = append(b, y[k])
			}
		}
		if len(a) < 3 || len(b) < 3 {
			continue
		}
		t, df, pv := welch(a, b)
		ma, _ := meanVar(a)
		mb, _ := meanVar(b)
		trigs = append(trigs, trig{th, members, ma, mb, t, pv, df})
	}
	tests := float64(2 + len(trigs))
	var out []Pattern

	// Trend and shift are measured within themes: a month full of holiday
	// memories is not a change of mood. Demeaning x and y per theme (memories
	// outside any theme form one group) gives the fixed-effects slope.
	group := make([]int, len(ms))
	for i := range group {
		group[i] = -1
	}
	for g, th := range themes {
		for _, i := range th.members {
			group[i] = g
		}
	}
	gs := make([]int, len(idx))
	for k, i := range idx {
		gs[k] = group[i]
	}
	xw, ngroups := demean(x, gs)
	yw, _ := demean(y, gs)
	slope, se, df := ols(xw, yw)
	df -= float64(ngroups - 1)
	if df > 0 && se > 0 {
		se *= math.Sqrt((df + float64(ngroups-1)) / df)
	}
	if se > 0 {
		t := slope / se
		pv := min(1, tTwoSided(t, df)*tests)
		q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
		lo, hi := (slope-q*se)*7, (slope+q*se)*7
		if pv < p.Alpha {
			dir := "rising"
			if slope < 0 {
				dir = "falling"
			}
			desc := fmt.Sprintf("valence is %s by %s per week within themes (95%% CI %s to %s, %d memories, %s)",
				dir, signed(slope*7), signed(lo), signed(hi), len(idx), pText(pv))
			out = append(out, newPattern(EmotionalTrend, ids(ms, idx), desc, confidence(pv), map[string]any{
				"slope_per_week": round(slope*7, 5), "ci95_per_week": []float64{round(lo, 5), round(hi, 5)},
				"t": round(t, 3), "df": df, "p_adjusted": pv, "n": len(idx), "groups": ngroups,
				"test": "OLS slope t-test, theme fixed effects", "tests": int(tests),
			}))
		}
	}

	// The shift is reported when its corrected p is below alpha; once enough
	// permutations reach its statistic for that to fail, the rest cannot
	// change the outcome and the test stops.
	notReported := func(pv float64) bool { return !(min(1, pv*tests) < p.Alpha) }
	if cp, ok := changePoint(xw, yw, p.Seed, notReported); ok {
		cp.before, _ = meanVar(y[:cp.k])
		cp.after, _ = meanVar(y[cp.k:])
		pv := min(1, cp.p*tests)
		if pv < p.Alpha {
			at := t0.Add(time.Duration(x[cp.k] * 24 * float64(time.Hour)))
			desc := fmt.Sprintf("valence shifted from %s to %s around %s (%d memories before, %d after, %s)",
				signed(cp.before), signed(cp.after), at.UTC().Format("2006-01-02"), cp.k, len(y)-cp.k, pText(pv))
			out = append(out, newPattern(EmotionalShift, ids(ms, idx), desc, confidence(pv), map[string]any{
				"at": at.UTC(), "mean_before": round(cp.before, 4), "mean_after": round(cp.after, 4),
				"n_before": cp.k, "n_after": len(y) - cp.k, "t": round(cp.t, 3),
				"test": "max |t| over splits, permutation", "permutations": permutations,
				"rss_step": round(cp.rssStep, 4), "rss_linear": round(cp.rssLin, 4),
				"p_value": cp.p, "p_adjusted": pv, "tests": int(tests),
			}))
		}
	}

	for _, tg := range trigs {
		pv := min(1, tg.p*tests)
		if pv >= p.Alpha {
			continue
		}
		how := "more negative"
		if tg.mean > tg.rest {
			how = "more positive"
		}
		desc := fmt.Sprintf("memories about %s are %s than usual (mean valence %s vs %s elsewhere, %d memories, %s)",
			tg.th.label, how, signed(tg.mean), signed(tg.rest), len(tg.members), pText(pv))
		out = append(out, newPattern(EmotionalTrigger, ids(ms, tg.members), desc, confidence(pv), map[string]any{
			"theme": tg.th.label, "mean_valence": round(tg.mean, 4), "baseline_valence": round(tg.rest, 4),
			"difference": round(tg.mean-tg.rest, 4), "t": round(tg.t, 3), "df": round(tg.df, 2),
			"test": "Welch t-test vs the rest", "p_adjusted": pv, "tests": int(tests), "n": len(tg.members),
		}))
	}
	return out
}

// demean subtracts each group's mean and returns the number of groups.
func demean(v []float64, group []int) ([]float64, int) {
	sum, cnt := map[int]float64{}, map[int]int{}
	for i, g := range group {
		sum[g] += v[i]
		cnt[g]++
	}
	out := make([]float64, len(v))
	for i, g := range group {
		out[i] = v[i] - sum[g]/float64(cnt[g])
	}
	return out, len(cnt)
}

// ols fits y = a + b·x and returns b, its standard error and n-2.
func ols(x, y []float64) (b, se, df float64) {
	n := float64(len(x))
	mx, _ := meanVar(x)
	my, _ := meanVar(y)
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if sxx == 0 || n < 3 {
		return 0, 0, 0
	}
	b = sxy / sxx
	a := my - b*mx
	rss := 0.0
	for i := range x {
		r := y[i] - a - b*x[i]
		rss += r * r
	}
	return b, math.Sqrt(rss / (n - 2) / sxx), n - 2
}

type cpResult struct {
	k                   int // first index after the change
	before, after, t, p float64
	rssStep, rssLin     float64
	stopped             bool // p is a lower bound: the test stopped once the decision was settled
}

// changePoint finds the split of y (in time order) with the largest |t|
// between the two means, at least 5 points either side. It is reported only
// when two means explain y better than a straight line does (a trend is not a
// shift), and its p-value comes from the same maximum over random
// permutations of y (seeded), so that searching over splits is accounted for.
//
// enough, when not nil, is asked after each permutation that reaches the
// observed statistic whether the count of those so far already settles the
// caller's decision (p can only grow with it); if so the test stops there
// and r.p is that lower bound, with r.stopped set.
func changePoint(x, y []float64, seed uint64, enough func(p float64) bool) (cpResult, bool) {
	n := len(y)
	if n < 2*cpSide {
		return cpResult{}, false
	}
	k, t := maxT(y)
	if k < 0 {
		return cpResult{}, false
	}
	r := cpResult{k: k, t: t}
	r.before, _ = meanVar(y[:k])
	r.after, _ = meanVar(y[k:])
	for i, v := range y {
		m := r.after
		if i < k {
			m = r.before
		}
		r.rssStep += (v - m) * (v - m)
	}
	b, _, _ := ols(x, y)
	mx, _ := meanVar(x)
	my, _ := meanVar(y)
	for i, v := range y {
		d := v - (my + b*(x[i]-mx))
		r.rssLin += d * d
	}
	if r.rssStep >= r.rssLin {
		return r, false
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	perm := append([]float64(nil), y...)
	f := newExceeds(y, t)
	exceed := 0
	for range permutations {
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		if f.exceeds(perm) {
			exceed++
			if enough != nil && enough(float64(exceed+1)/float64(permutations+1)) {
				r.p, r.stopped = float64(exceed+1)/float64(permutations+1), true
				return r, true
			}
		}
	}
	r.p = float64(exceed+1) / float64(permutations+1)
	return r, true
}

// cpSide is the fewest points either side of a change point.
const cpSide = 5

// maxT is the split k of v with the largest two-sample t between v[:k] and
// v[k:] (at least cpSide either side), and that t; k is -1 when none has a
// positive within-group variance.
func maxT(v []float64) (int, float64) {
	n := len(v)
	total := 0.0
	sq := 0.0
	for _, a := range v {
		total += a
		sq += a * a
	}
	bk, bt := -1, 0.0
	left, lsq := 0.0, 0.0
	for k := 1; k < n; k++ {
		left += v[k-1]
		lsq += v[k-1] * v[k-1]
		if k < cpSide || n-k < cpSide {
			continue
		}
		nl, nr := float64(k), float64(n-k)
		ml, mr := left/nl, (total-left)/nr
		rss := (lsq - nl*ml*ml) + (sq - lsq - nr*mr*mr)
		s2 := rss / (float64(n) - 2)
		if s2 <= 0 {
			continue
		}
		t := math.Abs(ml-mr) / math.Sqrt(s2*(1/nl+1/nr))
		if t > bt {
			bk, bt = k, t
		}
	}
	return bk, bt
}

// exceeds decides maxT(perm) ≥ t for permutations of one series, with the
// same answer as computing maxT but mostly without its divisions and square
// roots. Since t_k² = (n−2)·B_k/(SST−B_k), where B_k = (n·L_k − k·S)²/(n·k·(n−k))
// is the between-split sum of squares (L_k the sum of the first k, S the
// total, SST the total sum of squares about the mean, all invariant under
// permutation), max t_k ≥ t exactly when max B_k ≥ B* = t²·SST/(n−2+t²).
// A permutation whose max B_k falls within a margin of B* (far wider than
// rounding), or a series whose splits fit almost perfectly, is decided by
// maxT itself.
type exceeds struct {
	n           int
	t           float64
	s, sst      float64
	lo, hi      float64 // B* minus and plus the margin
	w           []float64
	degenerateB float64 // B_k this close to SST: leave it to maxT
}

func newExceeds(y []float64, t float64) *exceeds {
	n := len(y)
	f := &exceeds{n: n, t: t, w: make([]float64, n)}
	q := 0.0
	for _, v := range y {
		f.s += v
		q += v * v
	}
	f.sst = q - f.s*f.s/float64(n)
	for k := cpSide; k <= n-cpSide; k++ {
		f.w[k] = 1 / (float64(n) * float64(k) * float64(n-k))
	}
	bstar := t * t * f.sst / (float64(n) - 2 + t*t)
	margin := 1e-6*bstar + 1e-9*q
	f.lo, f.hi = bstar-margin, bstar+margin
	f.degenerateB = f.sst - 1e-6*f.sst - 1e-9*q
	return f
}

func (f *exceeds) exceeds(perm []float64) bool {
	n := f.n
	left := 0.0
	for _, v := range perm[:cpSide-1] {
		left += v
	}
	nf := float64(n)
	maxB := 0.0
	for k := cpSide; k <= n-cpSide; k++ {
		left += perm[k-1]
		d := nf*left - float64(k)*f.s
		if b := d * d * f.w[k]; b > maxB {
			maxB = b
		}
	}
	switch {
	case maxB >= f.degenerateB || (maxB >= f.lo && maxB <= f.hi):
		_, pt := maxT(perm)
		return pt >= f.t
	case maxB > f.hi:
		return true
	}
	return false
}
