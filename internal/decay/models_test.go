package decay

import (
	"math"
	"strings"
	"testing"
	"time"
)

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.17g, want %.17g", name, got, want)
	}
}

// The expected values are worked by hand from the formulas (the long decimals
// with a calculator: e.g. 0.9^(1/-0.1542) = e^(ln 0.9 / -0.1542) = 1.98034649...).
func TestModelsHandComputed(t *testing.T) {
	near(t, "half-life at h", HalfLifeRetention(720, 720), 0.5)
	near(t, "half-life at 2h", HalfLifeRetention(1440, 720), 0.25)
	near(t, "half-life at 0", HalfLifeRetention(0, 720), 1)
	near(t, "ebbinghaus at S", EbbinghausRetention(168, 168), 1/math.E)
	near(t, "ebbinghaus at 2S", EbbinghausRetention(336, 168), 1/(math.E*math.E))
	near(t, "power t=3 b=0.5", PowerLawRetention(3, 0.5), 0.5)
	near(t, "power t=99 b=1", PowerLawRetention(99, 1), 0.01)

	// FSRS-4.5: FACTOR = 0.9^(1/-0.5) - 1 = 1/0.81 - 1 = 19/81.
	near(t, "fsrs4.5 factor", FSRSFactor(FSRS45Decay), 19.0/81)
	// R(9S) = (1 + 19/81·9)^-0.5 = (28/9)^-0.5 = 3/√28.
	near(t, "fsrs4.5 R(9S)", FSRSRetention(90, 10, FSRS45Decay), 3/math.Sqrt(28))

	// FSRS-6: DECAY = -0.1542, FACTOR = 0.9^(1/DECAY) - 1 = 0.98034649441347...
	near(t, "fsrs6 factor", FSRSFactor(FSRS6Decay), 0.9803464944134797)
	// R(3S) = (1 + 3·0.98034649)^-0.1542 = 3.94103948^-0.1542 = 0.80938810...
	near(t, "fsrs6 R(3S)", FSRSRetention(30, 10, FSRS6Decay), 0.8093881035731708)
	for _, d := range []float64{FSRS6Decay, FSRS45Decay, -0.3} {
		for _, s := range []float64{0.5, 2.3065, 10, 365} {
			near(t, "R(S)=0.9", FSRSRetention(s, s, d), 0.9)
		}
	}
}

func TestFSRSStabilityAfterRecall(t *testing.T) {
	p := DefaultFSRS()
	// S=10, D=5, R=0.9: e^1.8722·6·10^-0.1666·(e^(0.796·0.1) - 1)
	//  = 6.50232·6·0.681584·0.0828544 = 2.202673 → S' = 10·3.202673 = 32.02673.
	near(t, "S'(10,5,0.9)", p.StabilityAfterRecall(10, 5, 0.9), 32.02672948198673)
	// D0(Good) = w4 - e^(2·w5) + 1 = 6.4133 - 5.295196 + 1 = 2.118104.
	near(t, "D0", p.InitialDifficulty(), 2.118103970459015)
	near(t, "S0", p.InitialStability(), 2.3065)
	// A recall at R=1 (immediately) adds nothing; a lower R adds more.
	near(t, "S'(R=1)", p.StabilityAfterRecall(10, 5, 1), 10)
	if a, b := p.StabilityAfterRecall(10, 5, 0.9), p.StabilityAfterRecall(10, 5, 0.5); !(b > a && a > 10) {
		t.Errorf("stability should grow more for a harder recall: R=0.9 → %v, R=0.5 → %v", a, b)
	}
}

func TestModelRetentionAndValidate(t *testing.T) {
	ls := DefaultLayers()
	near(t, "layer 1 at 720h", ls[1].Retention(720, 0), 0.5)
	near(t, "layer 2 at 168h", ls[2].Retention(168, 0), 1/math.E)
	near(t, "layer 3 at 3h", ls[3].Retention(3, 0), 0.5)
	near(t, "layer 7 override", ls[7].Retention(10, 10), 1/math.E)
	near(t, "negative t clamps", ls[1].Retention(-5, 0), 1)
	near(t, "fsrs layer at S", Model{Kind: FSRS, Param: 240}.Retention(240, 0), 0.9)

	got, err := ParseLayers(map[string]Model{"3": {Kind: FSRS, Param: 100, Decay: -0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if got[3].Kind != FSRS || got[1] != DefaultLayers()[1] {
		t.Errorf("ParseLayers merged wrongly: %+v", got)
	}
	for _, bad := range []map[string]Model{
		{"8": {Kind: Exponential, Param: 1}},
		{"x": {Kind: Exponential, Param: 1}},
		{"1": {Kind: "linear", Param: 1}},
		{"1": {Kind: Exponential}},
		{"1": {Kind: FSRS, Param: 1, Decay: 0.5}},
	} {
		if _, err := ParseLayers(bad); err == nil {
			t.Errorf("ParseLayers(%v) accepted", bad)
		}
	}
}

// Retention at T depends on the access history and T only: running the job
// 1, 2 or 24 times (or hourly, or twice in a row) before T changes nothing.
func TestAdvanceIndependentOfRuns(t *testing.T) {
	p := DefaultFSRS()
	created := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	T := created.Add(30 * 24 * time.Hour)
	cases := []Memory{
		{CreatedAt: created},
		{CreatedAt: created, LastAccessed: created.Add(5 * 24 * time.Hour)},
		{CreatedAt: created, LastAccessed: created.Add(29 * 24 * time.Hour), Stability: 12, Difficulty: 7},
		{CreatedAt: created, LastAccessed: T.Add(time.Hour)}, // accessed after T: not yet a recall at T
	}
	for i, m0 := range cases {
		once := p.Advance(m0, T)
		for _, runs := range []int{2, 24, 200} {
			m := m0
			for k := 1; k <= runs; k++ {
				m = p.Advance(m, created.Add(time.Duration(k)*T.Sub(created)/time.Duration(runs)))
			}
			m = p.Advance(m, T) // a second run at the same instant
			if m != once {
				t.Errorf("case %d: %d runs gave %+v, one run %+v", i, runs, m, once)
			}
		}
	}
}

// Memories recalled often fade more slowly: each recall raises stability.
func TestRecallSlowsForgetting(t *testing.T) {
	p := DefaultFSRS()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	never := p.Advance(Memory{CreatedAt: created}, created.Add(60*24*time.Hour))
	m := Memory{CreatedAt: created}
	for k := 1; k <= 3; k++ {
		m.LastAccessed = created.Add(time.Duration(k) * 5 * 24 * time.Hour)
		m = p.Advance(m, m.LastAccessed)
	}
	recalled := p.Advance(m, m.LastAccessed.Add(45*24*time.Hour)) // 60 days after creation
	if !(recalled.Stability > never.Stability && recalled.Retention > never.Retention) {
		t.Errorf("recalled memory: S=%v R=%v; never recalled: S=%v R=%v", recalled.Stability, recalled.Retention, never.Stability, never.Retention)
	}
	// A fresh memory one S0 after creation is at 0.9, by the definition of stability.
	fresh := p.Advance(Memory{CreatedAt: created}, created.Add(time.Duration(p.InitialStability()*86400)*time.Second))
	if math.Abs(fresh.Retention-0.9) > 1e-6 {
		t.Errorf("R(S0) = %v, want 0.9", fresh.Retention)
	}
}

func TestParseWeights(t *testing.T) {
	p, err := ParseWeights("[0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542]")
	if err != nil || p != DefaultFSRS() {
		t.Errorf("ParseWeights(defaults) = %v, %v", p, err)
	}
	for in, want := range map[string]string{
		"1,2,3": "got 3 numbers",
		"0.212 1.2931 2.3065 8.2956 6.4133 0.8334 3.0194 0.001 1.8722 0.1666 0.796 1.4835 0.0614 0.2629 1.6483 0.6014 1.8729 0.5425 0.0912 0.0658 x":   `w20: "x" is not a number`,
		"0.212 1.2931 2.3065 8.2956 6.4133 0.8334 3.0194 0.001 1.8722 0.1666 0.796 1.4835 0.0614 0.2629 1.6483 0.6014 1.8729 0.5425 0.0912 0.0658 NaN": `w20: "NaN" is not a number`,
		"0.212 1.2931 2.3065 8.2956 11 0.8334 3.0194 0.001 1.8722 0.1666 0.796 1.4835 0.0614 0.2629 1.6483 0.6014 1.8729 0.5425 0.0912 0.0658 0.1542":  "w4 = 11 is outside FSRS-6's range [1, 10]",
	} {
		if _, err := ParseWeights(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseWeights(%q) = %v, want an error with %q", in, err, want)
		}
	}
}

// A stability above S_MAX written before helix capped it is read as S_MAX;
// the short-term stability of the examples: 0.1 → 0.1223, 1 → 1.0507.
func TestFSRSCapAndSameDay(t *testing.T) {
	p := DefaultFSRS()
	created := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
	m := p.Advance(Memory{CreatedAt: created, Stability: 64370, Difficulty: 5}, created.Add(24*time.Hour))
	if m.Stability != FSRSMaxStability {
		t.Errorf("stored S 64370 read as %v, want %v", m.Stability, FSRSMaxStability)
	}
	if got := p.StabilitySameDay(0.1); math.Abs(got-0.12224) > 1e-4 {
		t.Errorf("S'(0.1) same day = %v, want 0.1222", got)
	}
	if got := p.StabilitySameDay(1); math.Abs(got-1.0507) > 1e-4 {
		t.Errorf("S'(1) same day = %v, want 1.0507", got)
	}
	if !SameDay(created, created.Add(15*time.Hour+59*time.Minute)) || SameDay(created, created.Add(16*time.Hour)) {
		t.Error("SameDay must follow the UTC calendar day")
	}
}
