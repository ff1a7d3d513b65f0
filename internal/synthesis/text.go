package synthesis

import (
	"hash/fnv"
	"math"
	"sort"
	"strings"
	"unicode"
)

// stopWords is scikit-learn's ENGLISH_STOP_WORDS plus contractions' leftovers.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above across after afterwards again against all almost alone along
already also although always am among amongst amoungst amount an and another any anyhow anyone anything
anyway anywhere are around as at back be became because become becomes becoming been before beforehand
behind being below beside besides between beyond bill both bottom but by call can cannot cant co con could
couldnt cry de describe detail do done down due during each eg eight either eleven else elsewhere empty
enough etc even ever every everyone everything everywhere except few fifteen fifty fill find fire first five
for former formerly forty found four from front full further get give go had has hasnt have he hence her
here hereafter hereby herein hereupon hers herself him himself his how however hundred i ie if in inc
indeed interest into is it its itself keep last latter latterly least less ltd made many may me meanwhile
might mill mine more moreover most mostly move much must my myself name namely neither never nevertheless
next nine no nobody none noone nor not nothing now nowhere of off often on once one only onto or other
others otherwise our ours ourselves out over own part per perhaps please put rather re same see seem seemed
seeming seems serious several she should show side since sincere six sixty so some somehow someone
something sometime sometimes somewhere still such system take ten than that the their them themselves then
thence there thereafter thereby therefore therein thereupon these they thick thin third this those though
three through throughout thru thus to together too top toward towards twelve twenty two un under until up
upon us very via was we well were what whatever when whence whenever where whereafter whereas whereby
wherein whereupon wherever whether which while whither who whoever whole whom whose why will with within
without would yet you your yours yourself yourselves s t d ll m re ve don didn doesn isn wasn couldn wouldn
won just got really today yesterday tomorrow`) {
		m[w] = true
	}
	return m
}()

// Tokens splits text into lower-case words of letters and digits, dropping
// stop words, numbers and single characters.
func Tokens(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, w := range fields {
		if len([]rune(w)) < 2 || stopWords[w] || isNumber(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// Keyword is a word and its c-TF-IDF weight in a cluster.
type Keyword struct {
	Word   string  `json:"word"`
	Weight float64 `json:"weight"`
}

// ClassTFIDF ranks each class's words by BERTopic's class-based TF-IDF:
// W(x,c) = tf(x,c) · log(1 + A/f(x)), tf L1-normalised within the class, A the
// average number of words per class, f(x) the word's count over all classes.
// docs[i] belongs to class labels[i]; classes are 0..k-1 and any negative
// label (noise) forms one more class that takes part in f(x) and A. It
// returns the top n words of each class 0..k-1.
func ClassTFIDF(docs [][]string, labels []int, k, n int) [][]Keyword {
	counts := make([]map[string]int, k+1)
	totals := make([]int, k+1)
	for i := range counts {
		counts[i] = map[string]int{}
	}
	f := map[string]int{}
	for i, toks := range docs {
		c := labels[i]
		if c < 0 {
			c = k
		}
		for _, w := range toks {
			counts[c][w]++
			totals[c]++
			f[w]++
		}
	}
	classes, words := 0, 0
	for _, t := range totals {
		if t > 0 {
			classes++
			words += t
		}
	}
	out := make([][]Keyword, k)
	if classes == 0 {
		return out
	}
	avg := float64(words) / float64(classes)
	for c := range k {
		var kws []Keyword
		for w, cnt := range counts[c] {
			tf := float64(cnt) / float64(totals[c])
			kws = append(kws, Keyword{w, tf * math.Log(1+avg/float64(f[w]))})
		}
		sort.Slice(kws, func(a, b int) bool {
			if kws[a].Weight != kws[b].Weight {
				return kws[a].Weight > kws[b].Weight
			}
			return kws[a].Word < kws[b].Word
		})
		out[c] = kws[:min(n, len(kws))]
	}
	return out
}

// textVectors makes deterministic hashed TF-IDF vectors: signed feature
// hashing (FNV-1a) into dim buckets, IDF smoothed as in scikit-learn
// (ln((1+N)/(1+df)) + 1) over the user's memories, L2-normalised. Vectors
// are made on demand, so 50,000 memories never hold 50,000 of them at once.
type textVectors struct {
	dim  int
	n    float64
	df   map[string]int
	docs [][]string
}

func newTextVectors(docs [][]string, dim int) *textVectors {
	df := map[string]int{}
	for _, toks := range docs {
		seen := map[string]bool{}
		for _, w := range toks {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	return &textVectors{dim: dim, n: float64(len(docs)), df: df, docs: docs}
}

// vector of document i, written into v (len dim).
func (tv *textVectors) vector(i int, v []float32) []float32 {
	clear(v)
	tf := map[string]int{}
	for _, w := range tv.docs[i] {
		tf[w]++
	}
	for w, c := range tf {
		h := fnv.New64a()
		_, _ = h.Write([]byte(w))
		x := h.Sum64()
		val := float64(c) * (math.Log((1+tv.n)/(1+float64(tv.df[w]))) + 1)
		if x>>63 == 1 {
			val = -val
		}
		v[x%uint64(tv.dim)] += float32(val)
	}
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss > 0 {
		inv := float32(1 / math.Sqrt(ss))
		for j := range v {
			v[j] *= inv
		}
	}
	return v
}
