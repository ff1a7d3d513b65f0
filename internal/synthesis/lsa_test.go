package synthesis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"gonum.org/v1/gonum/mat"

	"github.com/helixhq/helix/internal/synthesis/cluster"
)

func TestTFIDFMatchesScikitLearn(t *testing.T) {
	// TfidfVectorizer(sublinear_tf=True) on ["apple apple banana", "banana cherry"]:
	// apple: tf 1+ln2, idf ln(3/2)+1; banana: tf 1, idf 1; then L2.
	tf := NewTFIDF([][]string{{"apple", "apple", "banana"}, {"banana", "cherry"}})
	a := (1 + math.Log(2)) * (math.Log(1.5) + 1)
	b := 1.0
	n := math.Hypot(a, b)
	want := map[string]float64{"apple": a / n, "banana": b / n}
	for j := tf.RowPtr[0]; j < tf.RowPtr[1]; j++ {
		if w := tf.Vocab[tf.Col[j]]; math.Abs(tf.Val[j]-want[w]) > 1e-12 {
			t.Errorf("%s: %v, want %v", w, tf.Val[j], want[w])
		}
	}
}

func TestLSASingularValuesMatchExactSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := make([]string, 300)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
	}
	docs := make([][]string, 200)
	for i := range docs {
		topic := i % 5
		for range 12 {
			if rng.Float64() < 0.7 {
				docs[i] = append(docs[i], words[topic*60+rng.IntN(60)])
			} else {
				docs[i] = append(docs[i], words[rng.IntN(300)])
			}
		}
	}
	tf := NewTFIDF(docs)
	dense := mat.NewDense(tf.N, tf.V, nil)
	for i := range tf.N {
		for j := tf.RowPtr[i]; j < tf.RowPtr[i+1]; j++ {
			dense.Set(i, tf.Col[j], tf.Val[j])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(dense, mat.SVDNone) {
		t.Fatal("svd")
	}
	exact := svd.Values(nil)
	res := LSA(tf, 10, 1)
	// The five topics' components are exact; in the flat noise spectrum
	// after them randomized SVD (like scikit-learn's) runs a little low.
	for c := range 10 {
		got := mat.Norm(res.X.ColView(c), 2)
		tol := 1e-3
		if c >= 5 {
			tol = 0.03
		}
		if math.Abs(got-exact[c]) > tol*exact[c] {
			t.Errorf("σ%d = %v, exact %v", c, got, exact[c])
		}
	}
	if res.Components != 10 || res.ExplainedVariance <= 0 || res.ExplainedVariance >= 1 {
		t.Errorf("components %d, explained %v", res.Components, res.ExplainedVariance)
	}
	// fewer documents than components
	if small := LSA(NewTFIDF(docs[:4]), 100, 1); small.Components != 3 {
		t.Errorf("4 documents: %d components, want 3", small.Components)
	}
	if empty := LSA(NewTFIDF([][]string{{}, {}}), 100, 1); empty.Components != 0 {
		t.Errorf("no words: %d components", empty.Components)
	}
}

// Memories without embeddings, three topics in different words: the text
// space finds them, and the evidence says it was the text space.
func TestTextOnlyClustersByTopic(t *testing.T) {
	topics := [][]string{
		strings.Fields("sourdough starter flour oven loaf crust dough yeast bake bread knead proof"),
		strings.Fields("marathon training run pace miles tempo shoes intervals race stretch knee hill"),
		strings.Fields("invoice client deadline budget report meeting contract quarterly slides manager payroll audit"),
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var ms []Memory
	var truth []int
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 90 {
		k := i % 3
		var ws []string
		for range 8 {
			ws = append(ws, topics[k][rng.IntN(len(topics[k]))])
		}
		ms = append(ms, Memory{ID: uuid.New(), Content: "Today I " + strings.Join(ws, " ") + ".", CreatedAt: at.Add(time.Duration(i) * time.Hour)})
		truth = append(truth, k)
	}
	// a few embeddings do not pull the user out of the text space
	for i := range 4 {
		ms[i].Embedding = []float32{1, 2, 3, 4}
	}
	for _, alg := range []string{KMeans, HDBSCAN, DBSCAN} {
		p := DefaultParams()
		p.Algorithm, p.MinConfidence = alg, 0
		ps, err := Analyze(context.Background(), ms, p)
		if err != nil {
			t.Fatal(err)
		}
		labels := make([]int, len(ms))
		for i := range labels {
			labels[i] = -1
		}
		at := map[uuid.UUID]int{}
		for i, m := range ms {
			at[m.ID] = i
		}
		c := 0
		for _, pt := range ps {
			if pt.Type != SemanticCluster {
				continue
			}
			if sp := pt.Evidence["space"].(map[string]any); sp["space"] != "lsa" || sp["components"].(int) < 2 {
				t.Fatalf("%s: evidence space %v", alg, pt.Evidence["space"])
			}
			for _, id := range pt.MemoryIDs {
				labels[at[id]] = c
			}
			c++
		}
		if ari := cluster.ARI(truth, labels); c != 3 || ari < 0.9 {
			t.Errorf("%s: %d clusters, ARI %.3f: want the 3 topics", alg, c, ari)
		}
	}
}

// BenchmarkTextOnly times the text space of 5,000 memories without
// embeddings: TF-IDF, LSA to 100 components and the matrix k-means reads.
func BenchmarkTextOnly(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("word%d", i)
	}
	docs := make([][]string, 5000)
	for i := range docs {
		for range 15 {
			docs[i] = append(docs[i], vocab[(i%20)*1000+rng.IntN(1000)])
		}
	}
	base := make([]int, len(docs))
	for i := range base {
		base[i] = i
	}
	for b.Loop() {
		lsaMatrix(docs, base, 1)
	}
}
