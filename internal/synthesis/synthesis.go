// Package synthesis finds patterns in one user's memories — semantic
// clusters, temporal bursts and rhythms, emotional trends, shifts and
// triggers — each with its members, its evidence and a confidence drawn from it.
// It is the analysis alone: it reads and writes no database (package
// synthstore reads the memories, records the patterns and the states, and
// runs many users).
package synthesis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Version names the analysis: bump it when a change to Analyze changes its
// output for the same memories, so that every user is recomputed once.
//
//	2: the auto algorithm (issue 33), the LSA spectrum knee in evidence.space
//	3: k-means in N-space from the Gram matrix when a user has fewer memories
//	   than dimensions (issue 37): it rounds otherwise, so a near tie may
//	   label a memory or pick k differently
//	4: the reported silhouettes from the Gram matrix too (issue 50), as k was
//	   chosen by: a value within 1e-7 of a rounding boundary or of 0 may
//	   report otherwise
const Version = 4

// Pattern types, as stored in memory_synthesis.pattern_type.
const (
	SemanticCluster  = "semantic_cluster"
	TemporalBurst    = "temporal_burst"
	TemporalRhythm   = "temporal_rhythm"
	EmotionalTrend   = "emotional_trend"
	EmotionalShift   = "emotional_shift"
	EmotionalTrigger = "emotional_trigger"
)

// Algorithms for semantic clustering. Auto, the default, is k-means with k by
// silhouette in the text space (where DBSCAN's elbow eps lets one cluster
// swallow a corpus), and DBSCAN in the embedding space unless one of its
// clusters holds more than half the memories and k-means separates them
// better (higher mean silhouette).
const (
	Auto    = "auto"
	DBSCAN  = "dbscan"
	HDBSCAN = "hdbscan"
	KMeans  = "kmeans"
)

// Memory is what synthesis reads of a memory.
type Memory struct {
	ID        uuid.UUID
	Content   string
	Embedding []float32 // nil when the memory has none
	Valence   *float64
	CreatedAt time.Time
}

// Params tune the analysis.
type Params struct {
	Algorithm      string  `json:"algorithm"`
	Eps            float64 `json:"eps,omitempty"` // 0: from the k-distance elbow
	MinClusterSize int     `json:"min_cluster_size"`
	MinConfidence  float64 `json:"min_confidence"`
	Alpha          float64 `json:"alpha"` // significance level of every test, after Bonferroni
	Seed           uint64  `json:"seed"`
}

// DefaultParams are the command's defaults.
func DefaultParams() Params {
	return Params{Algorithm: Auto, MinClusterSize: 5, MinConfidence: 0.7, Alpha: 0.01, Seed: 1}
}

// Pattern is one finding.
type Pattern struct {
	Type        string         `json:"pattern_type"`
	MemoryIDs   []uuid.UUID    `json:"memory_ids"`
	Content     string         `json:"synthesis_content"`
	Confidence  float64        `json:"confidence_score"`
	Evidence    map[string]any `json:"evidence"`
	Fingerprint string         `json:"fingerprint"`
}

func newPattern(typ string, ids []uuid.UUID, content string, conf float64, ev map[string]any) Pattern {
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	h := sha256.New()
	for _, id := range ids {
		h.Write(id[:])
	}
	return Pattern{
		Type: typ, MemoryIDs: ids, Content: content, Confidence: conf, Evidence: ev,
		Fingerprint: typ + ":" + hex.EncodeToString(h.Sum(nil)),
	}
}

// theme is a semantic cluster as the other analyses see it.
type theme struct {
	label   string
	members []int
}

// Analyze finds the patterns in ms (one user's memories, any order) and
// returns those whose confidence reaches p.MinConfidence, strongest first.
// Embeddings that Load laid out in one array are normalised in place.
func Analyze(ctx context.Context, ms []Memory, p Params) ([]Pattern, error) {
	ms = slices.Clone(ms)
	slices.SortStableFunc(ms, func(a, b Memory) int { return a.CreatedAt.Compare(b.CreatedAt) })
	var out []Pattern
	themes, sem, err := semantic(ctx, ms, p)
	if err != nil {
		return nil, err
	}
	out = append(out, sem...)
	out = append(out, temporal(ms, themes, p)...)
	out = append(out, emotional(ms, themes, p)...)
	kept := out[:0]
	seen := map[string]bool{}
	for _, pt := range out {
		if pt.Confidence >= p.MinConfidence && !seen[pt.Fingerprint] {
			seen[pt.Fingerprint] = true
			kept = append(kept, pt)
		}
	}
	slices.SortStableFunc(kept, func(a, b Pattern) int {
		if a.Confidence != b.Confidence {
			return cmpFloat(b.Confidence, a.Confidence)
		}
		return strings.Compare(a.Fingerprint, b.Fingerprint)
	})
	return kept, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func ids(ms []Memory, idx []int) []uuid.UUID {
	out := make([]uuid.UUID, len(idx))
	for i, j := range idx {
		out[i] = ms[j].ID
	}
	return out
}

// round keeps evidence readable.
func round(x float64, digits int) float64 {
	s := math.Pow(10, float64(digits))
	return math.Round(x*s) / s
}

func pText(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return fmt.Sprintf("p = %.3f", p)
}
