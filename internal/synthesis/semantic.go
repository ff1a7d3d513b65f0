package synthesis

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/helixhq/helix/internal/synthesis/cluster"
)

// hashDim is the size of text vectors when no memory has an embedding.
const hashDim = 512

// semantic clusters the memories' embeddings. Memories without an embedding
// are placed by a hashed TF-IDF vector of their text: among themselves when
// no memory has an embedding, otherwise by joining the cluster whose text
// centroid is closest, if closer than the cluster's own least typical members.
func semantic(ctx context.Context, ms []Memory, p Params) ([]theme, []Pattern, error) {
	n := len(ms)
	if n < max(p.MinClusterSize, 2) {
		return nil, nil, nil
	}
	docs := make([][]string, n)
	for i, m := range ms {
		docs[i] = Tokens(m.Content)
	}
	dim := dominantDim(ms)
	var withEmb, without []int
	for i, m := range ms {
		if dim > 0 && len(m.Embedding) == dim {
			withEmb = append(withEmb, i)
		} else {
			without = append(without, i)
		}
	}
	text := newTextVectors(docs, hashDim)
	base := withEmb
	if textSpace(len(withEmb), n, p) {
		base, without = append(withEmb, without...), nil
		dim = 0
	}
	var mat *cluster.Matrix
	space := map[string]any{"space": "embedding", "dimensions": dim}
	if dim == 0 {
		mat, space = lsaMatrix(docs, base, p.Seed)
	} else if x := contiguous(ms, base, dim); x != nil {
		mat = cluster.InPlace(x, len(base), dim)
	} else {
		mat = cluster.NewEmpty(len(base), dim)
		for r, i := range base {
			mat.SetRow(r, ms[i].Embedding)
		}
	}
	res, err := runClustering(ctx, mat, p, space)
	if err != nil {
		return nil, nil, err
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = cluster.Noise
	}
	for r, i := range base {
		labels[i] = res.labels[r]
	}
	silh := cluster.Silhouette(mat, res.labels)
	byText := joinByText(text, labels, without, res.k)
	keywords := ClassTFIDF(docs, labels, res.k, 5)

	var themes []theme
	var out []Pattern
	for c := range res.k {
		var members, rows []int
		for r, i := range base {
			if res.labels[r] == c {
				members = append(members, i)
				rows = append(rows, r)
			}
		}
		if len(members) < p.MinClusterSize {
			continue
		}
		members = append(members, byText[c]...)
		slices.Sort(members) // time order: ms is sorted by created_at
		positive := 0
		var sil []float64
		for _, r := range rows {
			sil = append(sil, silh[r])
			if silh[r] > 0 {
				positive++
			}
		}
		words := make([]string, 0, 3)
		for _, kw := range keywords[c][:min(3, len(keywords[c]))] {
			words = append(words, kw.Word)
		}
		lbl := strings.Join(words, " · ")
		if lbl == "" {
			lbl = "untitled"
		}
		var vals []float64
		for _, i := range members {
			if v := ms[i].Valence; v != nil {
				vals = append(vals, *v)
			}
		}
		mean, _ := meanVar(vals)
		desc := fmt.Sprintf("%s (%d memories", lbl, len(members))
		if len(vals) > 0 {
			desc += fmt.Sprintf(", mean valence %s", signed(mean))
		}
		desc += ")"
		ev := map[string]any{
			"keywords":            keywords[c],
			"size":                len(members),
			"mean_silhouette":     round(cluster.Mean(sil), 4),
			"positive_silhouette": positive,
			"text_vector_members": len(byText[c]),
			"algorithm":           res.algorithm,
			"params":              res.params,
		}
		ev["space"] = space
		if len(vals) > 0 {
			ev["mean_valence"] = round(mean, 4)
		}
		if p.Algorithm == Auto {
			ev["chosen_by"] = res.chosenBy
		}
		if res.persistence != nil {
			ev["persistence"] = round(res.persistence[c], 4)
		}
		// Confidence: the Laplace-smoothed share of members closer to their own
		// cluster than to any other (positive silhouette).
		conf := float64(positive+1) / float64(len(rows)+2)
		out = append(out, newPattern(SemanticCluster, ids(ms, members), desc, conf, ev))
		themes = append(themes, theme{label: lbl, members: members})
	}
	return themes, out, nil
}

// contiguous returns the array holding the embeddings of ms[base...] when
// they lie back to back in one array, as Load leaves them, so that the
// matrix can be built in place instead of copied.
func contiguous(ms []Memory, base []int, dim int) []float32 {
	if dim == 0 || dim%8 != 0 || len(base) == 0 {
		return nil
	}
	first := ms[base[0]].Embedding
	all := first[:cap(first)]
	if len(all) < len(base)*dim {
		return nil
	}
	for r, i := range base {
		if &ms[i].Embedding[0] != &all[r*dim] {
			return nil
		}
	}
	return all[:len(base)*dim]
}

func signed(x float64) string {
	if x < 0 {
		return fmt.Sprintf("−%.2f", -x)
	}
	return fmt.Sprintf("+%.2f", x)
}

func dominantDim(ms []Memory) int {
	count := map[int]int{}
	best, dim := 0, 0
	for _, m := range ms {
		if l := len(m.Embedding); l > 0 {
			count[l]++
			if count[l] > best || (count[l] == best && l < dim) {
				best, dim = count[l], l
			}
		}
	}
	return dim
}

type clustering struct {
	algorithm   string
	chosenBy    string // how Auto chose the algorithm
	labels      []int
	k           int
	params      map[string]any
	persistence []float64
}

func runClustering(ctx context.Context, m *cluster.Matrix, p Params, space map[string]any) (*clustering, error) {
	switch p.Algorithm {
	case HDBSCAN:
		return runHDBSCAN(ctx, m, p)
	case KMeans:
		return runKMeans(ctx, m, p)
	case DBSCAN:
		return runDBSCAN(ctx, m, p)
	}
	if space["space"] == "lsa" {
		// Measured on labelled corpora (scripts/bench/text_vs_sklearn.sh): in
		// LSA space the k-distance curve has no elbow between topics, and
		// DBSCAN puts nearly every text in one cluster.
		// The mean silhouette in LSA space rises with k without a peak on
		// every labelled corpus measured, so the candidates stop at the
		// spectrum's knee: the number of topics that stand out.
		knee, _ := space["spectrum_knee"].(int)
		res, err := runKMeansUpTo(ctx, m, p, max(2, knee))
		if res != nil {
			res.chosenBy = fmt.Sprintf("text space: k-means with k by silhouette, k at most %d (the LSA spectrum's knee)", max(2, knee))
		}
		return res, err
	}
	db, err := runDBSCAN(ctx, m, p)
	if err != nil {
		return nil, err
	}
	db.chosenBy = "dbscan: no cluster holds more than half the memories"
	if largest(db.labels, db.k) <= m.N/2 {
		return db, nil
	}
	km, err := runKMeans(ctx, m, p)
	if err != nil {
		return nil, err
	}
	sd, sk := cluster.Mean(cluster.Silhouette(m, db.labels)), km.params["silhouette"].(float64)
	if sk > sd {
		km.chosenBy = fmt.Sprintf("dbscan put %d of %d memories in one cluster; k-means separates them better (mean silhouette %.4f > %.4f)",
			largest(db.labels, db.k), m.N, sk, sd)
		return km, nil
	}
	db.chosenBy = fmt.Sprintf("dbscan put %d of %d memories in one cluster, but k-means separates them no better (mean silhouette %.4f <= %.4f)",
		largest(db.labels, db.k), m.N, sk, sd)
	return db, nil
}

// largest is the size of the biggest cluster.
func largest(labels []int, k int) int {
	size := make([]int, k)
	for _, l := range labels {
		if l >= 0 {
			size[l]++
		}
	}
	big := 0
	for _, s := range size {
		big = max(big, s)
	}
	return big
}

func runHDBSCAN(ctx context.Context, m *cluster.Matrix, p Params) (*clustering, error) {
	ms := p.MinClusterSize
	r, err := cluster.HDBSCAN(ctx, m, ms, ms)
	if err != nil {
		return nil, err
	}
	return &clustering{algorithm: HDBSCAN, labels: r.Labels, k: len(r.Persistence), persistence: r.Persistence,
		params: map[string]any{"min_cluster_size": ms, "min_samples": ms}}, nil
}

func runKMeans(ctx context.Context, m *cluster.Matrix, p Params) (*clustering, error) {
	return runKMeansUpTo(ctx, m, p, 20)
}

// runKMeansUpTo is k-means with k by silhouette among 2..kMax (and at most
// one cluster per --min-cluster-size memories).
func runKMeansUpTo(ctx context.Context, m *cluster.Matrix, p Params, kMax int) (*clustering, error) {
	r, err := cluster.KMeansAuto(ctx, m, min(kMax, max(2, m.N/p.MinClusterSize)), 3, p.Seed)
	if err != nil {
		return nil, err
	}
	return &clustering{algorithm: KMeans, labels: r.Labels, k: r.K,
		params: map[string]any{"k": r.K, "silhouette": round(r.Silhouette, 4), "seed": p.Seed}}, nil
}

func runDBSCAN(ctx context.Context, m *cluster.Matrix, p Params) (*clustering, error) {
	ms := p.MinClusterSize
	eps, auto := p.Eps, p.Eps <= 0
	if auto {
		kd, err := cluster.KDistances(ctx, m, ms)
		if err != nil {
			return nil, err
		}
		eps = cluster.ElbowEps(kd)
	}
	r, err := cluster.DBSCAN(ctx, m, eps, ms)
	if err != nil {
		return nil, err
	}
	k := 0
	for _, l := range r.Labels {
		k = max(k, l+1)
	}
	return &clustering{algorithm: DBSCAN, labels: r.Labels, k: k,
		params: map[string]any{"eps": round(eps, 4), "eps_from_elbow": auto, "min_samples": ms}}, nil
}

// joinByText assigns memories without embeddings to clusters by text: a
// memory joins the cluster with the most similar text centroid when that
// similarity reaches the cluster's 10th-percentile member similarity.
func joinByText(text *textVectors, labels []int, without []int, k int) [][]int {
	out := make([][]int, k)
	if len(without) == 0 || k == 0 {
		return out
	}
	v := make([]float32, text.dim)
	cent := make([][]float64, k)
	for c := range cent {
		cent[c] = make([]float64, text.dim)
	}
	for i, l := range labels {
		if l >= 0 {
			for j, x := range text.vector(i, v) {
				cent[l][j] += float64(x)
			}
		}
	}
	for c := range cent {
		normalize(cent[c])
	}
	cos := func(v []float32, c []float64) float64 {
		s := 0.0
		for j, x := range v {
			s += float64(x) * c[j]
		}
		return s
	}
	sims := make([][]float64, k)
	for i, l := range labels {
		if l >= 0 {
			sims[l] = append(sims[l], cos(text.vector(i, v), cent[l]))
		}
	}
	floor := make([]float64, k)
	for c := range k {
		floor[c] = quantile(sims[c], 0.1)
	}
	for _, i := range without {
		text.vector(i, v)
		best, at := -1.0, -1
		for c := range k {
			if s := cos(v, cent[c]); s > best {
				best, at = s, c
			}
		}
		if at >= 0 && best > 0 && best >= floor[at] {
			out[at] = append(out[at], i)
		}
	}
	return out
}
