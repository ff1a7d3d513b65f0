// Package decay computes how much of each memory and psychology layer is
// retained at an instant, with closed-form forgetting curves, and writes it back.
package decay

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Kind names a forgetting curve.
type Kind string

// The forgetting curves. Each is a pure function of the time t since the item
// was last accessed and its stability p (the model's parameter).
const (
	Exponential Kind = "exponential" // R = 0.5^(t/h); param h: half-life in hours
	Ebbinghaus  Kind = "ebbinghaus"  // R = exp(-t/S); param S in hours
	PowerLaw    Kind = "power"       // R = (1 + t)^(-b), t in hours; param b
	FSRS        Kind = "fsrs"        // R = (1 + FACTOR·t/S)^DECAY; param S in hours, decay DECAY
)

// FSRS forgetting-curve decays: FSRS-6's default (w20 = 0.1542, negated) and
// the fixed value of FSRS-4.5 and FSRS-5.
const (
	FSRS6Decay  = -0.1542
	FSRS45Decay = -0.5
)

// FSRSFactor makes R(S) = 0.9 for any decay: (1 + FACTOR)^DECAY = 0.9.
func FSRSFactor(decay float64) float64 { return math.Pow(0.9, 1/decay) - 1 }

// FSRSRetention is FSRS's power forgetting curve. t and s share one unit.
func FSRSRetention(t, s, decay float64) float64 {
	return math.Pow(1+FSRSFactor(decay)*t/s, decay)
}

// HalfLifeRetention is R = 0.5^(t/h).
func HalfLifeRetention(t, h float64) float64 { return math.Pow(0.5, t/h) }

// EbbinghausRetention is R = exp(-t/S).
func EbbinghausRetention(t, s float64) float64 { return math.Exp(-t / s) }

// PowerLawRetention is R = (1 + t)^(-b), t in hours.
func PowerLawRetention(tHours, b float64) float64 { return math.Pow(1+tHours, -b) }

// Model is one layer's forgetting curve as written in the config file:
//
//	decay:
//	  layers:
//	    "1": {model: exponential, param: 720}
//	    "3": {model: fsrs, param: 240, decay: -0.5}
type Model struct {
	Kind  Kind    `mapstructure:"model" json:"model"`
	Param float64 `mapstructure:"param" json:"param"`
	Decay float64 `mapstructure:"decay" json:"decay,omitempty"` // fsrs only; 0 means FSRS-6's
}

// Retention of an item last accessed tHours ago. stability > 0 overrides Param
// (a layer row's own stability column).
func (m Model) Retention(tHours, stability float64) float64 {
	p := m.Param
	if stability > 0 {
		p = stability
	}
	t := math.Max(tHours, 0)
	switch m.Kind {
	case Exponential:
		return HalfLifeRetention(t, p)
	case Ebbinghaus:
		return EbbinghausRetention(t, p)
	case PowerLaw:
		return PowerLawRetention(t, p)
	case FSRS:
		return FSRSRetention(t, p, m.decay())
	}
	return math.NaN()
}

func (m Model) decay() float64 {
	if m.Decay == 0 {
		return FSRS6Decay
	}
	return m.Decay
}

// Validate reports a model that cannot be evaluated.
func (m Model) Validate() error {
	switch m.Kind {
	case Exponential, Ebbinghaus, PowerLaw, FSRS:
	default:
		return fmt.Errorf("unknown model %q: use exponential, ebbinghaus, power or fsrs", m.Kind)
	}
	if !(m.Param > 0) {
		return fmt.Errorf("%s: param must be > 0, got %v", m.Kind, m.Param)
	}
	if m.Kind == FSRS && m.Decay > 0 {
		return fmt.Errorf("fsrs: decay must be negative (FSRS-6 -0.1542, FSRS-4.5 -0.5), got %v", m.Decay)
	}
	return nil
}

// Layers maps psychology layer numbers 1..7 to their models.
type Layers map[int]Model

// DefaultLayers is the mapping used for layers the config file leaves out.
func DefaultLayers() Layers {
	return Layers{
		1: {Kind: Exponential, Param: 720}, // Narrative core
		2: {Kind: Ebbinghaus, Param: 168},  // Emotional memory
		3: {Kind: PowerLaw, Param: 0.5},    // Relational memory
		4: {Kind: Exponential, Param: 360}, // Prospective self
		5: {Kind: Ebbinghaus, Param: 240},  // Integration
		6: {Kind: Exponential, Param: 480}, // Transformation
		7: {Kind: Ebbinghaus, Param: 1440}, // Purpose engine
	}
}

// LayerNames are the seven layers' names, for tables and docs.
var LayerNames = [8]string{"", "Narrative core", "Emotional memory", "Relational memory",
	"Prospective self", "Integration", "Transformation", "Purpose engine"}

// ParseLayers merges the config file's decay.layers (keys "1".."7") over the defaults.
func ParseLayers(raw map[string]Model) (Layers, error) {
	ls := DefaultLayers()
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 || n > 7 {
			return nil, fmt.Errorf("decay.layers: key %q is not a layer number 1..7", k)
		}
		m := raw[k]
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("decay.layers.%d: %w", n, err)
		}
		ls[n] = m
	}
	return ls, nil
}

// FSRSParams are the memory model: FSRS-6 with its 21 weights, exactly as
// the reference implementation ts-fsrs 5.4.2 computes a review rated Good
// (helix sees a memory's access, never a grade). Stability is in days.
type FSRSParams struct {
	W [21]float64 `json:"w"`
}

// FSRS-6's bounds on stability (ts-fsrs S_MIN, S_MAX): every stability update
// is clamped to them. S_MAX is the stability cap, 100 years, independent of
// the scheduler's maximum_interval.
const (
	FSRSMinStability = 1e-3
	FSRSMaxStability = 36500
)

// DefaultWeights are FSRS-6's published defaults (ts-fsrs default_w,
// py-fsrs and fsrs-rs DEFAULT_PARAMETERS).
var DefaultWeights = [21]float64{
	0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666,
	0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658,
	0.1542,
}

// weightRanges are the bounds ts-fsrs clips each weight to (CLAMP_PARAMETERS,
// short-term on, w17 and w18 ceiling 2). helix refuses a weight outside them
// instead of clipping it silently.
var weightRanges = [21][2]float64{
	{FSRSMinStability, 100}, {FSRSMinStability, 100}, {FSRSMinStability, 100}, {FSRSMinStability, 100},
	{1, 10}, {0.001, 4}, {0.001, 4}, {0.001, 0.75}, {0, 4.5}, {0, 0.8}, {0.001, 3.5}, {0.001, 5},
	{0.001, 0.25}, {0.001, 0.9}, {0, 4}, {0, 1}, {1, 6}, {0, 2}, {0, 2}, {0.01, 0.8}, {0.1, 0.8},
}

// DefaultFSRS is FSRS-6 with its default weights.
func DefaultFSRS() FSRSParams { return FSRSParams{W: DefaultWeights} }

// FSRS45 is the FSRS-4.5/5 forgetting curve (DECAY = -0.5) with FSRS-6's other weights.
func FSRS45() FSRSParams {
	p := DefaultFSRS()
	p.W[20] = -FSRS45Decay
	return p
}

// ParseWeights reads the 21 weights of decay.memory-weights: numbers
// separated by commas or spaces, each within the range FSRS-6 allows.
func ParseWeights(s string) (FSRSParams, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '[' || r == ']' })
	if len(f) != len(DefaultWeights) {
		return FSRSParams{}, fmt.Errorf("want the 21 FSRS-6 weights w0..w20, got %d numbers", len(f))
	}
	var p FSRSParams
	for i, v := range f {
		w, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(w) || math.IsInf(w, 0) {
			return FSRSParams{}, fmt.Errorf("w%d: %q is not a number", i, v)
		}
		p.W[i] = w
	}
	return p, p.Validate()
}

// Validate reports a weight outside the range FSRS-6 allows.
func (p FSRSParams) Validate() error {
	for i, w := range p.W {
		if r := weightRanges[i]; !(w >= r[0] && w <= r[1]) {
			return fmt.Errorf("w%d = %v is outside FSRS-6's range [%v, %v]", i, w, r[0], r[1])
		}
	}
	return nil
}

// Decay is the forgetting curve's DECAY, −w20.
func (p FSRSParams) Decay() float64 { return -p.W[20] }

// InitialStability is S0 after a first review rated Good: max(w2, 0.1).
func (p FSRSParams) InitialStability() float64 { return math.Max(p.W[2], 0.1) }

// InitialDifficulty is D0 after a first review rated Good, clamped to 1..10.
func (p FSRSParams) InitialDifficulty() float64 { return clamp(p.initDifficulty(3), 1, 10) }

// initDifficulty is D0(G) = w4 − e^((G−1)·w5) + 1, unclamped: the mean
// reversion pulls towards D0(Easy) as it is, below 1 with the defaults.
func (p FSRSParams) initDifficulty(g float64) float64 { return p.W[4] - math.Exp((g-1)*p.W[5]) + 1 }

// StabilityAfterRecall is FSRS's stability after a successful (Good) recall
// of an item with stability s (days), difficulty d (1..10) and retention r at
// the moment of recall, a day or more after the previous review: the less it
// was retained, the more stability grows.
// S' = S·(1 + e^w8·(11 − D)·S^(−w9)·(e^(w10·(1−R)) − 1)), clamped to S_MIN..S_MAX.
func (p FSRSParams) StabilityAfterRecall(s, d, r float64) float64 {
	w := p.W
	return clamp(s*(1+math.Exp(w[8])*(11-d)*math.Pow(s, -w[9])*(math.Exp(w[10]*(1-r))-1)), FSRSMinStability, FSRSMaxStability)
}

// StabilitySameDay is FSRS-6's short-term stability after a Good review on
// the same day as the previous one: S' = S·max(S^(−w19)·e^(w17·w18), 1),
// clamped to S_MIN..S_MAX. R plays no part.
func (p FSRSParams) StabilitySameDay(s float64) float64 {
	w := p.W
	return clamp(s*math.Max(math.Pow(s, -w[19])*math.Exp(w[17]*w[18]), 1), FSRSMinStability, FSRSMaxStability)
}

// DifficultyAfterReview is FSRS-6's difficulty after a review rated Good: the
// grade moves it by nothing, and the mean reversion w7 pulls it towards
// D0(Easy): D' = w7·D0(4) + (1 − w7)·D, clamped to 1..10.
func (p FSRSParams) DifficultyAfterReview(d float64) float64 {
	return clamp(p.W[7]*p.initDifficulty(4)+(1-p.W[7])*d, 1, 10)
}

func clamp(v, lo, hi float64) float64 { return math.Min(math.Max(v, lo), hi) }

// SameDay reports whether a review at b is on the UTC day of the previous
// review at a, where ts-fsrs's scheduler counts zero elapsed days and FSRS-6
// uses the short-term stability.
func SameDay(a, b time.Time) bool {
	ay, am, ad := a.UTC().Date()
	by, bm, bd := b.UTC().Date()
	return ay == by && am == bm && ad == bd
}

// Memory is the forgetting-curve state of one memory row.
type Memory struct {
	CreatedAt    time.Time
	LastAccessed time.Time // zero: never accessed
	ReviewedAt   time.Time // the access already folded into Stability; zero: none
	Stability    float64   // days; 0: unset
	Difficulty   float64   // 1..10; 0: unset
	Retention    float64
	DecayedAt    time.Time
}

// Advance computes m as of at: a new access (LastAccessed after ReviewedAt, at
// or before at) is first folded in as an FSRS-6 review rated Good, using the
// retention the memory had when it was recalled: stability after a recall, or
// the short-term stability when it falls on the previous review's UTC day,
// and difficulty's mean reversion. Then retention is the curve at at − last
// access. It depends only on m's access history and at, never on when it
// last ran: Advance(Advance(m, t1), t2) == Advance(m, t2) for t1 <= t2.
// A stored stability above S_MAX (written before helix capped it) is read as
// S_MAX, a difficulty outside 1..10 as its nearest bound.
// The SQL in Run computes exactly this.
func (p FSRSParams) Advance(m Memory, at time.Time) Memory {
	if m.Stability <= 0 {
		m.Stability = p.InitialStability()
	}
	m.Stability = math.Min(m.Stability, FSRSMaxStability)
	if m.Difficulty <= 0 {
		m.Difficulty = p.InitialDifficulty()
	}
	m.Difficulty = clamp(m.Difficulty, 1, 10)
	prev := m.CreatedAt
	if !m.ReviewedAt.IsZero() {
		prev = m.ReviewedAt
	}
	if !m.LastAccessed.IsZero() && m.LastAccessed.After(prev) && !m.LastAccessed.After(at) {
		if SameDay(prev, m.LastAccessed) {
			m.Stability = p.StabilitySameDay(m.Stability)
		} else {
			r := FSRSRetention(days(prev, m.LastAccessed), m.Stability, p.Decay())
			m.Stability = p.StabilityAfterRecall(m.Stability, m.Difficulty, r)
		}
		m.Difficulty = p.DifficultyAfterReview(m.Difficulty)
		m.ReviewedAt = m.LastAccessed
		prev = m.LastAccessed
	}
	m.Retention = FSRSRetention(days(prev, at), m.Stability, p.Decay())
	m.DecayedAt = at
	return m
}

// days from a to b, 0 when b is before a. Not b.Sub(a): a time.Duration
// saturates at 292 years, short of the stability cap's 100-year intervals.
func days(a, b time.Time) float64 {
	sec := float64(b.Unix()-a.Unix()) + float64(b.Nanosecond()-a.Nanosecond())/1e9
	return math.Max(sec, 0) / 86400
}
