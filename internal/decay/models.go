// Package decay computes how much of each memory and psychology layer is
// retained at an instant, with closed-form forgetting curves, and writes it back.
package decay

import (
	"fmt"
	"math"
	"sort"
	"strconv"
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

// FSRSParams are the memory model: FSRS's forgetting curve and its stability
// update on a successful recall. Stability is in days, as in FSRS.
type FSRSParams struct {
	Decay float64 `json:"decay"`
	// W8, W9, W10 shape the stability increase on recall:
	// S' = S·(1 + e^w8·(11 − D)·S^(−w9)·(e^(w10·(1−R)) − 1)).
	W8, W9, W10 float64
	// InitialStability and InitialDifficulty seed a memory that has none:
	// a first review rated Good, S0 = w2 and D0(3) = w4 − e^(w5·2) + 1.
	InitialStability, InitialDifficulty float64
}

// DefaultFSRS is FSRS-6 with its published default weights
// (py-fsrs / fsrs-rs DEFAULT_PARAMETERS: w2 = 2.3065, w4 = 6.4133,
// w5 = 0.8334, w8 = 1.8722, w9 = 0.1666, w10 = 0.796, w20 = 0.1542).
func DefaultFSRS() FSRSParams {
	return FSRSParams{
		Decay: FSRS6Decay,
		W8:    1.8722, W9: 0.1666, W10: 0.796,
		InitialStability:  2.3065,
		InitialDifficulty: 6.4133 - math.Exp(0.8334*2) + 1,
	}
}

// FSRS45 is the FSRS-4.5/5 forgetting curve (DECAY = -0.5) with FSRS-6's weights.
func FSRS45() FSRSParams {
	p := DefaultFSRS()
	p.Decay = FSRS45Decay
	return p
}

// StabilityAfterRecall is FSRS's stability after a successful (Good) recall
// of an item with stability s (days), difficulty d (1..10) and retention r at
// the moment of recall: the less it was retained, the more stability grows.
func (p FSRSParams) StabilityAfterRecall(s, d, r float64) float64 {
	return s * (1 + math.Exp(p.W8)*(11-d)*math.Pow(s, -p.W9)*(math.Exp(p.W10*(1-r))-1))
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
// or before at) first raises stability once, using the retention the memory
// had when it was recalled; then retention is the curve at at − last access.
// It depends only on m's access history and at, never on when it last ran:
// Advance(Advance(m, t1), t2) == Advance(m, t2) for t1 <= t2.
// The SQL in Run computes exactly this.
func (p FSRSParams) Advance(m Memory, at time.Time) Memory {
	if m.Stability <= 0 {
		m.Stability = p.InitialStability
	}
	if m.Difficulty <= 0 {
		m.Difficulty = p.InitialDifficulty
	}
	prev := m.CreatedAt
	if !m.ReviewedAt.IsZero() {
		prev = m.ReviewedAt
	}
	if !m.LastAccessed.IsZero() && m.LastAccessed.After(prev) && !m.LastAccessed.After(at) {
		r := FSRSRetention(days(m.LastAccessed.Sub(prev)), m.Stability, p.Decay)
		m.Stability = p.StabilityAfterRecall(m.Stability, m.Difficulty, r)
		m.ReviewedAt = m.LastAccessed
		prev = m.LastAccessed
	}
	m.Retention = FSRSRetention(days(at.Sub(prev)), m.Stability, p.Decay)
	m.DecayedAt = at
	return m
}

func days(d time.Duration) float64 { return math.Max(d.Seconds(), 0) / 86400 }
