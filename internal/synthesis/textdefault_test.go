package synthesis

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/synthesis/cluster"
)

// wordnetGlosses is testdata/wordnet_glosses.jsonl: 480 WordNet 3.0 noun
// glosses ("lemma: gloss", Debian's wordnet-base), 60 from each of eight
// lexicographer files (animal, artifact, body, food, location, person,
// plant, substance), taken at a fixed stride through data.noun. WordNet 3.0 Copyright 2006 by
// Princeton University (see testdata/README).
func wordnetGlosses(t *testing.T) (ms []Memory, truth []int, k int) {
	t.Helper()
	f, err := os.Open("testdata/wordnet_glosses.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cats := map[string]int{}
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct{ Text, Category string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if _, ok := cats[r.Category]; !ok {
			cats[r.Category] = len(cats)
		}
		ms = append(ms, Memory{ID: uuid.NewSHA1(uuid.NameSpaceURL, []byte(r.Text)), Content: r.Text, CreatedAt: at.Add(time.Duration(len(ms)) * time.Hour)})
		truth = append(truth, cats[r.Category])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ms, truth, len(cats)
}

// clusterLabels turns the semantic clusters into one label per memory (-1:
// in no cluster) and returns the largest cluster's size.
func clusterLabels(ms []Memory, ps []Pattern) (labels []int, largest int) {
	at := map[uuid.UUID]int{}
	for i, m := range ms {
		at[m.ID] = i
	}
	labels = make([]int, len(ms))
	for i := range labels {
		labels[i] = -1
	}
	c := 0
	for _, p := range ps {
		if p.Type != SemanticCluster {
			continue
		}
		for _, id := range p.MemoryIDs {
			labels[at[id]] = c
		}
		largest = max(largest, len(p.MemoryIDs))
		c++
	}
	return labels, largest
}

// A new user without embeddings, whose memories are about eight balanced
// topics, gets themes from the default: no theme holds more than half the
// memories, and the themes follow the topics (ARI floor, well above the 0 of
// chance; the default measures 0.05 here, short glosses being hard). The previous
// default, DBSCAN with eps at the k-distance elbow, put nearly all of them in
// one theme (ARI about 0); asked for explicitly, it still does.
func TestTextDefaultDoesNotCollapse(t *testing.T) {
	t.Parallel()
	ms, truth, k := wordnetGlosses(t)
	if len(ms) != 480 || k != 8 {
		t.Fatalf("fixture: %d texts, %d labels", len(ms), k)
	}
	run := func(alg string) (ari float64, largest int, ps []Pattern) {
		p := DefaultParams()
		p.MinConfidence = 0
		if alg != "" {
			p.Algorithm = alg
		}
		ps, err := Analyze(context.Background(), ms, p)
		if err != nil {
			t.Fatal(err)
		}
		labels, largest := clusterLabels(ms, ps)
		return cluster.ARI(truth, labels), largest, ps
	}
	ari, largest, ps := run("")
	t.Logf("default: ARI %.4f, largest cluster %d of %d", ari, largest, len(ms))
	if 2*largest > len(ms) {
		t.Errorf("default: one cluster holds %d of %d memories", largest, len(ms))
	}
	if ari < 0.03 {
		t.Errorf("default: ARI %.4f against the topics, want >= 0.03", ari)
	}
	for _, p := range ps {
		if p.Type == SemanticCluster {
			t.Logf("default: %v %v, %v", p.Evidence["algorithm"], p.Evidence["params"], p.Evidence["chosen_by"])
			if p.Evidence["algorithm"] != KMeans || p.Evidence["chosen_by"] == nil {
				t.Errorf("default in the text space: evidence algorithm %v, chosen_by %v", p.Evidence["algorithm"], p.Evidence["chosen_by"])
			}
			break
		}
	}
	dbARI, dbLargest, _ := run(DBSCAN)
	t.Logf("--algorithm dbscan: ARI %.4f, largest cluster %d of %d", dbARI, dbLargest, len(ms))
	if dbARI >= 0.03 || 2*dbLargest <= len(ms) {
		t.Errorf("--algorithm dbscan no longer collapses (ARI %.4f, largest %d): the floor no longer tells the defaults apart", dbARI, dbLargest)
	}
}

// In the embedding space the default is DBSCAN, exactly as asked for
// explicitly, unless one DBSCAN cluster holds more than half the memories and
// k-means separates them better; --algorithm dbscan never switches.
func TestAutoOnEmbeddings(t *testing.T) {
	t.Parallel()
	rows, truth := cluster.Planted(400, 16, 4, 0.15, 0.05, 9)
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := make([]Memory, len(rows))
	for i, r := range rows {
		ms[i] = Memory{ID: uuid.NewSHA1(uuid.NameSpaceURL, []byte{byte(i), byte(i >> 8)}), Content: "memory", Embedding: r, CreatedAt: at.Add(time.Duration(i) * time.Hour)}
	}
	run := func(alg string, eps float64) ([]int, int, []Pattern) {
		p := DefaultParams()
		p.MinConfidence, p.Eps = 0, eps
		if alg != "" {
			p.Algorithm = alg
		}
		ps, err := Analyze(context.Background(), ms, p)
		if err != nil {
			t.Fatal(err)
		}
		labels, largest := clusterLabels(ms, ps)
		return labels, largest, ps
	}
	evidence := func(ps []Pattern) map[string]any {
		for _, p := range ps {
			if p.Type == SemanticCluster {
				return p.Evidence
			}
		}
		t.Fatal("no semantic cluster")
		return nil
	}
	// Separated topics: the default is DBSCAN, label for label.
	auto, _, ps := run("", 0)
	db, _, _ := run(DBSCAN, 0)
	if ari := cluster.ARI(auto, db); ari != 1 || evidence(ps)["algorithm"] != DBSCAN {
		t.Errorf("separated clusters: auto differs from dbscan (ARI %.4f between them, algorithm %v)", ari, evidence(ps)["algorithm"])
	}
	if ari := cluster.ARI(truth, auto); ari < 0.9 {
		t.Errorf("separated clusters: ARI %.4f", ari)
	}
	// An eps that swallows everything: DBSCAN returns one cluster, the default does not.
	_, dbLargest, _ := run(DBSCAN, 1.2)
	if dbLargest != len(ms) {
		t.Fatalf("--algorithm dbscan --eps 1.2: largest cluster %d of %d, want all", dbLargest, len(ms))
	}
	auto, largest, ps := run("", 1.2)
	ev := evidence(ps)
	if 2*largest > len(ms) || ev["algorithm"] != KMeans || cluster.ARI(truth, auto) < 0.9 {
		t.Errorf("auto with a swallowing eps: largest %d of %d, algorithm %v (%v), ARI %.4f", largest, len(ms), ev["algorithm"], ev["chosen_by"], cluster.ARI(truth, auto))
	}
}

func TestSpectrumKnee(t *testing.T) {
	// Four large values above a slowly falling bulk of 16: the knee of the
	// leading half (10 values) is the bulk's first value, the fifth.
	sv := []float64{10, 9, 8.5, 8}
	for i := range 16 {
		sv = append(sv, 3-0.05*float64(i))
	}
	if got := SpectrumKnee(sv); got != 5 {
		t.Errorf("SpectrumKnee = %d, want 5", got)
	}
	if got := SpectrumKnee([]float64{2, 1}); got != 2 {
		t.Errorf("SpectrumKnee of two values = %d, want 2", got)
	}
}
