package synthesis

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/helixhq/helix/internal/synthesis/cluster"
)

// LSA parameters, as scikit-learn's TruncatedSVD runs them (randomized SVD
// after Halko, Martinsson & Tropp 2011: 10 oversamples, 5 power iterations).
const (
	lsaComponents  = 100
	lsaOversamples = 10
	lsaPowerIters  = 5
)

// TFIDF is a sparse document-term matrix in compressed rows: TfidfVectorizer's
// sublinear_tf=True weighting (1 + ln tf) times smooth idf
// (ln((1+n)/(1+df)) + 1), each row L2-normalised.
type TFIDF struct {
	N, V   int
	RowPtr []int
	Col    []int
	Val    []float64
	Vocab  []string
}

// NewTFIDF weighs docs (token lists, stop words already dropped by Tokens).
func NewTFIDF(docs [][]string) *TFIDF {
	ids := map[string]int{}
	var vocab []string
	df := []int{}
	t := &TFIDF{N: len(docs), RowPtr: make([]int, 1, len(docs)+1)}
	counts := map[int]int{}
	for _, toks := range docs {
		clear(counts)
		for _, w := range toks {
			id, ok := ids[w]
			if !ok {
				id = len(vocab)
				ids[w] = id
				vocab = append(vocab, w)
				df = append(df, 0)
			}
			counts[id]++
		}
		start := len(t.Col)
		for id, c := range counts {
			df[id]++
			t.Col = append(t.Col, id)
			t.Val = append(t.Val, 1+math.Log(float64(c)))
		}
		sort.Sort(byCol{t.Col[start:], t.Val[start:]})
		t.RowPtr = append(t.RowPtr, len(t.Col))
	}
	t.V, t.Vocab = len(vocab), vocab
	n := float64(t.N)
	for i := range t.N {
		lo, hi := t.RowPtr[i], t.RowPtr[i+1]
		var ss float64
		for j := lo; j < hi; j++ {
			t.Val[j] *= math.Log((1+n)/(1+float64(df[t.Col[j]]))) + 1
			ss += t.Val[j] * t.Val[j]
		}
		if ss > 0 {
			inv := 1 / math.Sqrt(ss)
			for j := lo; j < hi; j++ {
				t.Val[j] *= inv
			}
		}
	}
	return t
}

type byCol struct {
	col []int
	val []float64
}

func (b byCol) Len() int           { return len(b.col) }
func (b byCol) Less(i, j int) bool { return b.col[i] < b.col[j] }
func (b byCol) Swap(i, j int) {
	b.col[i], b.col[j] = b.col[j], b.col[i]
	b.val[i], b.val[j] = b.val[j], b.val[i]
}

// mulDense returns A·X (n×l) for X V×l.
func (t *TFIDF) mulDense(x *mat.Dense) *mat.Dense {
	_, l := x.Dims()
	out := mat.NewDense(t.N, l, nil)
	xr := x.RawMatrix()
	or := out.RawMatrix()
	for i := range t.N {
		dst := or.Data[i*or.Stride : i*or.Stride+l]
		for j := t.RowPtr[i]; j < t.RowPtr[i+1]; j++ {
			v := t.Val[j]
			src := xr.Data[t.Col[j]*xr.Stride : t.Col[j]*xr.Stride+l]
			for c, s := range src {
				dst[c] += v * s
			}
		}
	}
	return out
}

// mulTDense returns Aᵀ·Y (V×l) for Y n×l.
func (t *TFIDF) mulTDense(y *mat.Dense) *mat.Dense {
	_, l := y.Dims()
	out := mat.NewDense(t.V, l, nil)
	yr := y.RawMatrix()
	or := out.RawMatrix()
	for i := range t.N {
		src := yr.Data[i*yr.Stride : i*yr.Stride+l]
		for j := t.RowPtr[i]; j < t.RowPtr[i+1]; j++ {
			v := t.Val[j]
			dst := or.Data[t.Col[j]*or.Stride : t.Col[j]*or.Stride+l]
			for c, s := range src {
				dst[c] += v * s
			}
		}
	}
	return out
}

// orthonormal overwrites y (r×c, r ≥ c) with an orthonormal basis of its
// columns: the thin Q of its QR factorisation (LAPACK's geqrf + orgqr, as
// scikit-learn's randomized_svd; mat.QR would build the full r×r Q).
func orthonormal(y *mat.Dense) *mat.Dense {
	a := y.RawMatrix()
	tau := make([]float64, min(a.Rows, a.Cols))
	work := []float64{0}
	lapack64.Geqrf(a, tau, work, -1)
	lw := int(work[0])
	lapack64.Orgqr(a, tau, work, -1)
	lw = max(lw, int(work[0]), a.Rows, a.Cols)
	work = make([]float64, lw)
	lapack64.Geqrf(a, tau, work, lw)
	lapack64.Orgqr(a, tau, work, lw)
	return y
}

// LSAResult is the reduced space.
type LSAResult struct {
	X          *mat.Dense // n×k: U·Σ, as TruncatedSVD.fit_transform returns
	Components int
	// ExplainedVariance is the share of the TF-IDF matrix's total variance
	// (squared Frobenius norm, as the rows are unit vectors) the components keep.
	ExplainedVariance float64
	// Singular values, largest first.
	Singular []float64
}

// LSA reduces t to at most k dimensions by randomized truncated SVD, seeded.
func LSA(t *TFIDF, k int, seed uint64) *LSAResult {
	k = min(k, t.N-1, t.V-1)
	if k < 1 {
		x := mat.NewDense(max(t.N, 1), 1, nil)
		return &LSAResult{X: x, Components: 0}
	}
	l := min(k+lsaOversamples, t.N, t.V)
	rng := rand.New(rand.NewPCG(seed, 0x15a))
	omega := mat.NewDense(t.V, l, nil)
	od := omega.RawMatrix().Data
	for i := range od {
		od[i] = rng.NormFloat64()
	}
	q := orthonormal(t.mulDense(omega))
	// Power iterations re-orthonormalise on the documents' side only: the
	// terms' side (V×l, V the vocabulary, often 5–10× n) would cost most of
	// the run, and one QR per iteration keeps the basis well conditioned
	// (the top singular values match an exact SVD to 1e-3, tested).
	for range lsaPowerIters {
		q = orthonormal(t.mulDense(t.mulTDense(q)))
	}
	// B = Qᵀ A (l×V); its left singular vectors and values come from the
	// small symmetric B·Bᵀ, and U·Σ of A is then Q·U_B·Σ.
	bt := t.mulTDense(q) // V×l = Bᵀ
	var bbt mat.SymDense
	bbt.SymOuterK(1, bt.T())
	var eig mat.EigenSym
	if !eig.Factorize(&bbt, true) {
		return &LSAResult{X: mat.NewDense(t.N, 1, nil)}
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	total := 0.0
	for i := range t.N {
		for j := t.RowPtr[i]; j < t.RowPtr[i+1]; j++ {
			total += t.Val[j] * t.Val[j]
		}
	}
	ub := mat.NewDense(l, k, nil)
	kept := 0.0
	singular := make([]float64, k)
	for c := range k {
		src := l - 1 - c // largest first
		s2 := max(vals[src], 0)
		kept += s2
		sigma := math.Sqrt(s2)
		singular[c] = sigma
		for r := range l {
			ub.Set(r, c, vecs.At(r, src)*sigma)
		}
	}
	x := mat.NewDense(t.N, k, nil)
	x.Mul(q, ub)
	ev := 0.0
	if total > 0 {
		ev = kept / total
	}
	return &LSAResult{X: x, Components: k, ExplainedVariance: ev, Singular: singular}
}

// lsaMatrix is the clustering input for memories without enough embeddings:
// the LSA vectors of their text, L2-normalised by the Matrix (scikit-learn's
// LSA examples add a Normalizer after TruncatedSVD for the same reason:
// k-means on unit vectors is cosine k-means).
func lsaMatrix(docs [][]string, base []int, seed uint64) (*cluster.Matrix, map[string]any) {
	sub := make([][]string, len(base))
	for r, i := range base {
		sub[r] = docs[i]
	}
	t := NewTFIDF(sub)
	res := LSA(t, lsaComponents, seed)
	_, k := res.X.Dims()
	m := cluster.NewEmpty(len(base), k)
	row := make([]float32, k)
	for r := range base {
		for c := range k {
			row[c] = float32(res.X.At(r, c))
		}
		m.SetRow(r, row)
	}
	return m, map[string]any{
		"space":              "lsa",
		"components":         res.Components,
		"vocabulary":         t.V,
		"explained_variance": round(res.ExplainedVariance, 4),
		"weighting":          "tf-idf, sublinear tf, smooth idf, english stop words",
		"spectrum_knee":      SpectrumKnee(res.Singular),
	}
}

// SpectrumKnee estimates how many topics stand out in an LSA spectrum: the
// position (1-based) of the knee of its leading half (kneedle: the point
// farthest below the chord, both axes scaled to [0,1]), which is the first
// value of the slowly falling bulk after the few large ones topics make. The
// whole 100-value tail would move the knee into the bulk. On the labelled
// corpora of scripts/bench/text_vs_sklearn.sh (8 labels each) it is 7 or 8.
func SpectrumKnee(sv []float64) int {
	y := sv[:max(len(sv)/2, min(len(sv), 3))]
	n := len(y)
	if n < 3 || y[0] == y[n-1] {
		return n
	}
	best, at := -1.0, n-1
	for i, v := range y {
		if d := (y[0]-v)/(y[0]-y[n-1]) - float64(i)/float64(n-1); d > best {
			best, at = d, i
		}
	}
	return at + 1
}

// textSpace decides to cluster the text instead of the embeddings: when
// fewer memories have an embedding than a cluster needs, or fewer than half
// of them do (clustering the few and attaching the many by text would let
// the few decide every theme).
func textSpace(withEmb, n int, p Params) bool {
	return withEmb < max(p.MinClusterSize, 2) || 2*withEmb < n
}
