// Package lineage follows patterns across runs: each run's patterns are
// matched one to one to the previous run's live lineages of the same user,
// source and kind by their member memories, so that a pattern keeps its id
// while it persists (Match, pure), and the lineages are kept in
// helix_pattern_lineages in the transaction that writes the patterns (Advance).
package lineage

import (
	"math"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Sources: which table a lineage's patterns live in.
const (
	Statistical = "statistical" // memory_synthesis, helix synthesize
	LLM         = "llm"         // memory_patterns, helix synthesize --llm
)

// Statuses.
const (
	New        = "new"
	Persisting = "persisting"
	Growing    = "growing"
	Shrinking  = "shrinking"
	Ended      = "ended"
)

// MinOverlap is the least overlap a match needs (Score).
const MinOverlap = 0.5

// GrowthStep is the relative change of size that makes a matched lineage
// growing or shrinking rather than persisting.
const GrowthStep = 0.10

// ShiftWindow is the half-width of an emotional shift's time window.
const ShiftWindow = 7 * 24 * time.Hour

// Sighting is one pattern of the latest run.
type Sighting struct {
	PatternID  uuid.UUID
	Kind       string
	Members    []uuid.UUID // member memories (statistical) or evidence (llm)
	From, To   time.Time   // time-window kinds: the window; zero otherwise
	Confidence float64
	Content    string
}

// Previous is a live lineage as the previous run left it, with its members
// read through its pattern row.
type Previous struct {
	ID       uuid.UUID
	Kind     string
	Members  []uuid.UUID
	From, To time.Time
}

// windowKinds are the statistical kinds about a stretch of time: a burst (its
// [from, to]) and a shift (ShiftWindow either side of its change point). Two
// sightings of one such pattern may share few members (a burst that gains a
// day of memories at each end, a shift re-estimated on more memories) yet
// cover the same time.
var windowKinds = map[string]bool{"temporal_burst": true, "emotional_shift": true}

// memberSet is a pattern's distinct members.
type memberSet map[uuid.UUID]struct{}

func setOf(ids []uuid.UUID) memberSet {
	m := make(memberSet, len(ids))
	for _, x := range ids {
		m[x] = struct{}{}
	}
	return m
}

// Score is how much a new sighting s overlaps a previous one p of the same
// kind, from 0 to 1:
//   - statistical kinds: the Jaccard index of their member memories,
//     |A ∩ B| / |A ∪ B|; for temporal_burst and emotional_shift, the larger of
//     that and the Jaccard index of their time windows (intersection over union
//     of the two intervals);
//   - llm types: the overlap coefficient of their evidence, |A ∩ B| / min(|A|, |B|):
//     evidence is the handful of quoted memories the model chose to cite, a
//     sample of the pattern's memories rather than all of them, so two
//     sightings of one pattern cite different subsets.
func Score(source string, s Sighting, p Previous) float64 {
	return score(source, s, p, setOf(s.Members), setOf(p.Members))
}

// score is Score with the members' sets built once (Match compares every
// new sighting with every previous one of its kind).
func score(source string, s Sighting, p Previous, sa, pa memberSet) float64 {
	small, big := sa, pa
	if len(small) > len(big) {
		small, big = big, small
	}
	inter := 0
	for x := range small {
		if _, ok := big[x]; ok {
			inter++
		}
	}
	union := len(sa) + len(pa) - inter
	if source == LLM {
		if len(small) == 0 {
			return 0
		}
		return float64(inter) / float64(len(small))
	}
	return scoreStat(s, p, inter, union)
}

func scoreStat(s Sighting, p Previous, inter, union int) float64 {
	j := 0.0
	if union > 0 {
		j = float64(inter) / float64(union)
	}
	if windowKinds[s.Kind] {
		j = math.Max(j, windowIoU(s.From, s.To, p.From, p.To))
	}
	return j
}

func windowIoU(af, at, bf, bt time.Time) float64 {
	if af.IsZero() || at.IsZero() || bf.IsZero() || bt.IsZero() {
		return 0
	}
	lo, hi := maxTime(af, bf), minTime(at, bt)
	inter := hi.Sub(lo)
	if inter <= 0 {
		return 0
	}
	union := maxTime(at, bt).Sub(minTime(af, bf))
	if union <= 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Match pairs new sightings with previous lineages of one user and source,
// kind by kind: the one-to-one assignment that maximises the sum of Score
// over the pairs (Hungarian algorithm), keeping only pairs that score at
// least MinOverlap. It returns, for each sighting, the index in prev of its
// lineage, or -1 for a new one. A previous lineage no sighting took has ended.
func Match(source string, news []Sighting, prev []Previous) []int {
	out := make([]int, len(news))
	for i := range out {
		out[i] = -1
	}
	kinds := map[string]bool{}
	for _, s := range news {
		kinds[s.Kind] = true
	}
	for kind := range kinds {
		var ni, pi []int
		for i, s := range news {
			if s.Kind == kind {
				ni = append(ni, i)
			}
		}
		for j, p := range prev {
			if p.Kind == kind {
				pi = append(pi, j)
			}
		}
		if len(pi) == 0 {
			continue
		}
		psets := make([]memberSet, len(pi))
		for b, j := range pi {
			psets[b] = setOf(prev[j].Members)
		}
		w := make([][]float64, len(ni))
		for a, i := range ni {
			w[a] = make([]float64, len(pi))
			nset := setOf(news[i].Members)
			for b, j := range pi {
				if s := score(source, news[i], prev[j], nset, psets[b]); s >= MinOverlap {
					w[a][b] = s
				}
			}
		}
		for a, b := range assign(w) {
			if b >= 0 && w[a][b] >= MinOverlap {
				out[ni[a]] = pi[b]
			}
		}
	}
	return out
}

// Status is a matched lineage's status from its size before and now.
func Status(before, now int) string {
	switch {
	case float64(now) >= float64(before)*(1+GrowthStep):
		return Growing
	case float64(now) <= float64(before)*(1-GrowthStep):
		return Shrinking
	}
	return Persisting
}

// assign solves the assignment problem on the rows × cols weights w (all ≥ 0):
// the one-to-one pairing of rows to columns with the largest total weight. It
// returns each row's column, or -1. A pair of weight 0 stands for "no pair":
// with every weight ≥ 0, a maximum-weight complete assignment of the padded
// square matrix is a maximum-weight matching of the positive pairs. This is
// the O(n²m) shortest-augmenting-path form of the Hungarian algorithm (Kuhn–
// Munkres with potentials), on costs −w.
func assign(w [][]float64) []int {
	n := len(w)
	if n == 0 {
		return nil
	}
	m := len(w[0])
	transposed := false
	if n > m { // the algorithm needs rows ≤ columns
		t := make([][]float64, m)
		for j := range t {
			t[j] = make([]float64, n)
			for i := range n {
				t[j][i] = w[i][j]
			}
		}
		w, n, m, transposed = t, m, n, true
	}
	cost := func(i, j int) float64 { return -w[i-1][j-1] }
	u, v := make([]float64, n+1), make([]float64, m+1)
	p, way := make([]int, m+1), make([]int, m+1) // p[j]: row matched to column j (1-based), 0: none
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		minv := slices.Repeat([]float64{math.Inf(1)}, m+1)
		used := make([]bool, m+1)
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], math.Inf(1), 0
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				if cur := cost(i0, j) - u[i0] - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	rowCol := make([]int, n)
	for i := range rowCol {
		rowCol[i] = -1
	}
	for j := 1; j <= m; j++ {
		if p[j] > 0 {
			rowCol[p[j]-1] = j - 1
		}
	}
	if !transposed {
		return rowCol
	}
	out := make([]int, m)
	for i := range out {
		out[i] = -1
	}
	for r, c := range rowCol { // r: an original column, c: an original row
		if c >= 0 {
			out[c] = r
		}
	}
	return out
}
