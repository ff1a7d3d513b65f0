package synthesis

import (
	"fmt"
	"time"
)

// temporal finds bursts and rhythms, over all the user's memories and
// within each semantic theme. Every test counts towards one Bonferroni correction.
func temporal(ms []Memory, themes []theme, p Params) []Pattern {
	all := make([]int, len(ms))
	for i := range all {
		all[i] = i
	}
	series := append([]theme{{label: "", members: all}}, themes...)
	var bursts []burstCand
	var rhythms []rhythmCand
	var period time.Duration
	if len(ms) > 1 {
		period = ms[len(ms)-1].CreatedAt.Sub(ms[0].CreatedAt)
	}
	for _, s := range series {
		bursts = append(bursts, findBursts(ms, s, period, p.MinClusterSize)...)
		rhythms = append(rhythms, findRhythms(ms, s)...)
	}
	tests := float64(len(bursts) + len(rhythms))
	var out []Pattern
	for _, b := range bursts {
		padj := min(1, b.p*tests)
		if padj >= p.Alpha {
			continue
		}
		what := "memories"
		if b.label != "" {
			what = b.label + " memories"
		}
		from, to := ms[b.members[0]].CreatedAt, ms[b.members[len(b.members)-1]].CreatedAt
		desc := fmt.Sprintf("burst of %d %s between %s and %s (%.1f× the usual rate, %s)",
			len(b.members), what, from.UTC().Format("2006-01-02 15:04"), to.UTC().Format("2006-01-02 15:04"),
			float64(len(b.members))/b.expected, pText(padj))
		out = append(out, newPattern(TemporalBurst, ids(ms, b.members), desc, confidence(padj), map[string]any{
			"theme": b.label, "from": from.UTC(), "to": to.UTC(), "count": len(b.members),
			"expected": round(b.expected, 3), "gap_threshold_hours": round(b.gap.Hours(), 3),
			"test": "poisson upper tail", "p_value": b.p, "p_adjusted": padj, "tests": int(tests),
		}))
	}
	for _, r := range rhythms {
		padj := min(1, r.p*tests)
		if padj >= p.Alpha {
			continue
		}
		what := "memories"
		if r.label != "" {
			what = r.label + " memories"
		}
		desc := fmt.Sprintf("%s concentrate on %s (%d of %d; χ²=%.1f, %s)", what, r.peak, len(r.members), r.n, r.chi2, pText(padj))
		out = append(out, newPattern(TemporalRhythm, ids(ms, r.members), desc, confidence(padj), map[string]any{
			"theme": r.label, "scale": r.scale, "counts": r.counts, "peak": r.peak,
			"test": "chi-square vs uniform", "chi2": round(r.chi2, 3), "df": len(r.counts) - 1,
			"p_value": r.p, "p_adjusted": padj, "tests": int(tests), "n": r.n, "timezone": "UTC",
		}))
	}
	return out
}

type burstCand struct {
	label    string
	members  []int
	expected float64
	gap      time.Duration
	p        float64
}

// findBursts splits a theme's timeline into sessions wherever two memories
// are further apart than the theme's mean gap over the user's whole period
// (the expected gap of a Poisson process at the theme's rate, so the
// threshold comes from the data), and tests each session with at least
// minSize memories against the count that rate predicts for it.
func findBursts(ms []Memory, s theme, period time.Duration, minSize int) []burstCand {
	n := len(s.members)
	if n < max(minSize, 3) || period <= 0 {
		return nil
	}
	gap := period / time.Duration(n)
	rate := float64(n) / period.Hours()
	var out []burstCand
	start := 0
	flush := func(end int) { // session s.members[start:end]
		k := end - start
		if k < max(minSize, 3) || (k == n && s.label == "") {
			return
		}
		dur := ms[s.members[end-1]].CreatedAt.Sub(ms[s.members[start]].CreatedAt) + gap
		exp := rate * dur.Hours()
		out = append(out, burstCand{label: s.label, members: append([]int(nil), s.members[start:end]...),
			expected: exp, gap: gap, p: poissonUpper(k, exp)})
	}
	for j := 1; j < n; j++ {
		if ms[s.members[j]].CreatedAt.Sub(ms[s.members[j-1]].CreatedAt) > gap {
			flush(j)
			start = j
		}
	}
	flush(n)
	return out
}

type rhythmCand struct {
	label   string
	scale   string
	counts  []int
	peak    string
	members []int
	n       int
	chi2, p float64
}

var weekdays = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

// findRhythms tests the weekday (7 bins) and time-of-day (6 bins of four
// hours) distributions against uniform, where every bin expects at least 5
// (Cochran's rule). The peak is the set of bins above expectation.
func findRhythms(ms []Memory, s theme) []rhythmCand {
	var out []rhythmCand
	for _, sc := range []struct {
		name  string
		bins  int
		bin   func(time.Time) int
		label func(int) string
	}{
		{"weekday", 7, func(t time.Time) int { return int(t.UTC().Weekday()) }, func(b int) string { return weekdays[b] }},
		{"hour_of_day", 6, func(t time.Time) int { return t.UTC().Hour() / 4 }, func(b int) string { return fmt.Sprintf("%02d:00–%02d:00", 4*b, 4*b+4) }},
	} {
		n := len(s.members)
		if n < 5*sc.bins {
			continue
		}
		counts := make([]int, sc.bins)
		for _, i := range s.members {
			counts[sc.bin(ms[i].CreatedAt)]++
		}
		chi2, p := chiSquareUniform(counts)
		exp := float64(n) / float64(sc.bins)
		peak := ""
		hot := map[int]bool{}
		for b, c := range counts {
			if float64(c) > exp {
				hot[b] = true
				if peak != "" {
					peak += ", "
				}
				peak += sc.label(b)
			}
		}
		var members []int
		for _, i := range s.members {
			if hot[sc.bin(ms[i].CreatedAt)] {
				members = append(members, i)
			}
		}
		if sc.name == "hour_of_day" {
			peak += " UTC"
		}
		out = append(out, rhythmCand{label: s.label, scale: sc.name, counts: counts, peak: peak, members: members, n: n, chi2: chi2, p: p})
	}
	return out
}
