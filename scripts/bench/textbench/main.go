// Command textbench runs helix's text-only clustering (synthesis.Tokens →
// sublinear TF-IDF → LSA → spherical k-means) on one text per line of a JSON
// Lines file ({"text": ...}) and writes one label per line. It prints the
// seconds the pipeline took, reading excluded, as the sklearn side measures.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/synthesis/cluster"
)

func main() {
	in := flag.String("in", "", "JSON Lines of {\"text\": ...}")
	out := flag.String("out", "", "labels, one per line")
	k := flag.Int("k", 8, "clusters")
	comps := flag.Int("components", 100, "LSA components")
	nInit := flag.Int("n-init", 1, "k-means++ restarts")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	f, err := os.Open(*in)
	if err != nil {
		log.Fatal(err)
	}
	var texts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			log.Fatal(err)
		}
		texts = append(texts, r.Text)
	}
	start := time.Now()
	docs := make([][]string, len(texts))
	for i, t := range texts {
		docs[i] = synthesis.Tokens(t)
	}
	res := synthesis.LSA(synthesis.NewTFIDF(docs), *comps, *seed)
	_, d := res.X.Dims()
	m := cluster.NewEmpty(len(texts), d)
	row := make([]float32, d)
	for i := range texts {
		for c := range d {
			row[c] = float32(res.X.At(i, c))
		}
		m.SetRow(i, row)
	}
	km, err := cluster.KMeans(context.Background(), m, *k, *nInit, *seed)
	if err != nil {
		log.Fatal(err)
	}
	took := time.Since(start)
	w, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	bw := bufio.NewWriter(w)
	for _, l := range km.Labels {
		fmt.Fprintln(bw, l)
	}
	if err := bw.Flush(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.3f\n", took.Seconds())
}
