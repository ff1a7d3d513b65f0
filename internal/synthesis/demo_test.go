package synthesis

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/memories"
)

var (
	demoOnce sync.Once
	demoMem  []memories.Memory
	demoErr  error
)

// demoRows parses testdata/demo/memories.jsonl once per test binary (tests
// only read the result).
func demoRows(t testing.TB) []memories.Memory {
	t.Helper()
	demoOnce.Do(func() {
		f, err := os.Open("../../testdata/demo/memories.jsonl")
		if err != nil {
			demoErr = err
			return
		}
		defer f.Close()
		demoMem, demoErr = memories.Parse(f, testNow)
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoMem
}

// demoUsers loads testdata/demo: each user's memories and what the generator planted.
func demoUsers(t testing.TB) (map[uuid.UUID][]Memory, []demoPlant) {
	t.Helper()
	out := map[uuid.UUID][]Memory{}
	for _, r := range demoRows(t) {
		m := Memory{ID: r.ID, Content: r.Content, Embedding: slices.Clone(r.Embedding), CreatedAt: r.CreatedAt}
		if r.EmotionalValence != nil {
			v := float64(*r.EmotionalValence)
			m.Valence = &v
		}
		out[r.UserID] = append(out[r.UserID], m)
	}
	b, err := os.ReadFile("../../testdata/demo/plants.json")
	if err != nil {
		t.Fatal(err)
	}
	var plants []demoPlant
	if err := json.Unmarshal(b, &plants); err != nil {
		t.Fatal(err)
	}
	return out, plants
}

type demoPlant struct {
	UserID uuid.UUID `json:"user_id"`
	Name   string    `json:"name"`
	Themes []struct {
		Name     string   `json:"name"`
		Keywords []string `json:"keywords"`
		Count    int      `json:"count"`
	} `json:"themes"`
	Burst *struct {
		Theme string `json:"theme"`
	} `json:"burst"`
	Rhythm *struct {
		Theme    string   `json:"theme"`
		Weekdays []string `json:"weekdays"`
	} `json:"rhythm"`
	Trigger string  `json:"trigger"`
	Trend   float64 `json:"valence_trend_over_period"`
	Shift   *string `json:"valence_shift_at"`
}

// TestDemoFindsPlantedPatterns checks synthesis against what
// scripts/gendemo planted (testdata/demo/plants.json).
func TestDemoFindsPlantedPatterns(t *testing.T) {
	t.Parallel()
	users, plants := demoUsers(t)
	for _, pl := range plants {
		t.Run(pl.Name, func(t *testing.T) {
			ps, err := Analyze(context.Background(), users[pl.UserID], DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			byType := map[string][]Pattern{}
			for _, p := range ps {
				byType[p.Type] = append(byType[p.Type], p)
				t.Logf("%-18s %.3f %s", p.Type, p.Confidence, p.Content)
			}
			// labelOf finds the cluster label that names a planted theme by its words.
			labelOf := map[string]string{}
			for _, th := range pl.Themes {
				for _, p := range byType[SemanticCluster] {
					lbl := strings.SplitN(p.Content, " (", 2)[0]
					if hasAny(lbl, th.Keywords) {
						if labelOf[th.Name] != "" {
							t.Errorf("theme %q has two clusters: %q and %q", th.Name, labelOf[th.Name], lbl)
						}
						labelOf[th.Name] = lbl
						if n := len(p.MemoryIDs); n < th.Count*8/10 || n > th.Count*12/10 {
							t.Errorf("theme %q: cluster %q has %d memories, %d planted", th.Name, lbl, n, th.Count)
						}
					}
				}
				if labelOf[th.Name] == "" {
					t.Errorf("planted theme %q (%v) not found", th.Name, th.Keywords)
				}
			}
			if n := len(byType[SemanticCluster]); n != len(pl.Themes) {
				t.Errorf("%d semantic clusters, %d themes planted", n, len(pl.Themes))
			}
			if pl.Burst != nil && !anyEvidence(byType[TemporalBurst], "theme", labelOf[pl.Burst.Theme]) {
				t.Errorf("burst of %q not found", pl.Burst.Theme)
			}
			if pl.Rhythm != nil {
				found := false
				for _, p := range byType[TemporalRhythm] {
					if p.Evidence["theme"] == labelOf[pl.Rhythm.Theme] && p.Evidence["scale"] == "weekday" {
						found = true
						for _, d := range pl.Rhythm.Weekdays {
							if !strings.Contains(p.Evidence["peak"].(string), d[:3]) {
								t.Errorf("rhythm peak %q misses %s", p.Evidence["peak"], d)
							}
						}
					}
				}
				if !found {
					t.Errorf("weekday rhythm of %q not found", pl.Rhythm.Theme)
				}
			}
			if pl.Trigger != "" {
				found := false
				for _, p := range byType[EmotionalTrigger] {
					if p.Evidence["theme"] == labelOf[pl.Trigger] && p.Evidence["difference"].(float64) < 0 {
						found = true
					}
				}
				if !found {
					t.Errorf("negative trigger %q not found", pl.Trigger)
				}
			}
			switch {
			case pl.Trend != 0:
				if len(byType[EmotionalTrend]) != 1 || sign(byType[EmotionalTrend][0].Evidence["slope_per_week"].(float64)) != sign(pl.Trend) {
					t.Errorf("planted trend %+.2f: found %v", pl.Trend, byType[EmotionalTrend])
				}
			case pl.Shift != nil:
				at, _ := time.Parse(time.RFC3339, *pl.Shift)
				if len(byType[EmotionalShift]) != 1 {
					t.Fatalf("planted shift at %s not found", at)
				}
				got := byType[EmotionalShift][0].Evidence["at"].(time.Time)
				if d := got.Sub(at); d < -4*24*time.Hour || d > 4*24*time.Hour {
					t.Errorf("shift found at %s, planted at %s", got, at)
				}
			default:
				if len(byType[EmotionalTrend])+len(byType[EmotionalShift]) > 0 {
					t.Errorf("trend or shift reported where none was planted: %v %v", byType[EmotionalTrend], byType[EmotionalShift])
				}
			}
		})
	}
}

func hasAny(s string, words []string) bool {
	for _, w := range strings.Split(s, " · ") {
		if slices.Contains(words, w) {
			return true
		}
	}
	return false
}

func anyEvidence(ps []Pattern, key, want string) bool {
	for _, p := range ps {
		if p.Evidence[key] == want {
			return true
		}
	}
	return false
}

func sign(x float64) int {
	if x < 0 {
		return -1
	}
	return 1
}

// TestDemoThemesEveryAlgorithm checks that HDBSCAN and k-means find and name
// the planted themes too.
func TestDemoThemesEveryAlgorithm(t *testing.T) {
	t.Parallel()
	users, plants := demoUsers(t)
	for _, algo := range []string{HDBSCAN, KMeans} {
		for _, pl := range plants {
			p := DefaultParams()
			p.Algorithm = algo
			ps, err := Analyze(context.Background(), users[pl.UserID], p)
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, pt := range ps {
				if pt.Type == SemanticCluster {
					labels = append(labels, strings.SplitN(pt.Content, " (", 2)[0])
				}
			}
			if len(labels) != len(pl.Themes) {
				t.Errorf("%s, %s: clusters %q, %d themes planted", algo, pl.Name, labels, len(pl.Themes))
			}
			for _, th := range pl.Themes {
				if !slices.ContainsFunc(labels, func(l string) bool { return hasAny(l, th.Keywords) }) {
					t.Errorf("%s, %s: theme %q not among %q", algo, pl.Name, th.Name, labels)
				}
			}
		}
	}
}
