// Command clusterbench runs helix's clustering on a raw float32 file for
// scripts/bench/cluster_vs_sklearn.sh: `gen` writes planted data, `run`
// clusters it and writes one label per line, printing the seconds taken.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"time"

	"github.com/helixhq/helix/internal/synthesis/cluster"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: clusterbench gen|run [flags]")
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	n := fs.Int("n", 2000, "points")
	d := fs.Int("d", 384, "dimensions")
	k := fs.Int("k", 20, "clusters (gen: planted; run: k-means k)")
	seed := fs.Uint64("seed", 1, "seed")
	noise := fs.Float64("noise", 0.05, "gen: share of uniformly random points")
	in := fs.String("in", "", "input .f32 file (n×d little-endian float32)")
	out := fs.String("out", "", "output file")
	algo := fs.String("algo", "dbscan", "dbscan or kmeans")
	eps := fs.Float64("eps", 0, "DBSCAN eps (0: elbow)")
	minSamples := fs.Int("min-samples", 5, "DBSCAN min_samples")
	nInit := fs.Int("n-init", 3, "k-means restarts (best inertia kept)")
	_ = fs.Parse(os.Args[2:])
	switch os.Args[1] {
	case "gen":
		rows, truth := cluster.Planted(*n, *d, *k, 1.0, *noise, *seed)
		f, err := os.Create(*out)
		if err != nil {
			log.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for _, r := range rows {
			if err := binary.Write(w, binary.LittleEndian, r); err != nil {
				log.Fatal(err)
			}
		}
		check(w.Flush(), f.Close())
		writeLabels(*out+".truth", truth)
	case "run":
		raw, err := os.ReadFile(*in)
		if err != nil {
			log.Fatal(err)
		}
		cnt := len(raw) / 4 / *d
		m := cluster.NewEmpty(cnt, *d)
		row := make([]float32, *d)
		for i := range cnt {
			for j := range row {
				row[j] = float32frombits(binary.LittleEndian.Uint32(raw[(i**d+j)*4:]))
			}
			m.SetRow(i, row)
		}
		raw = nil
		ctx := context.Background()
		start := time.Now()
		var labels []int
		switch *algo {
		case "kmeans":
			r, err := cluster.KMeans(ctx, m, *k, *nInit, *seed)
			check(err)
			labels = r.Labels
		case "hdbscan":
			r, err := cluster.HDBSCAN(ctx, m, *minSamples, *minSamples)
			check(err)
			labels = r.Labels
		default:
			e := *eps
			if e == 0 {
				kd, err := cluster.KDistances(ctx, m, *minSamples)
				check(err)
				e = cluster.ElbowEps(kd)
				fmt.Fprintf(os.Stderr, "elbow eps %.6f (%.2fs)\n", e, time.Since(start).Seconds())
				start = time.Now()
			}
			r, err := cluster.DBSCAN(ctx, m, e, *minSamples)
			check(err)
			labels = r.Labels
		}
		fmt.Printf("%.3f\n", time.Since(start).Seconds())
		writeLabels(*out, labels)
	default:
		log.Fatalf("unknown command %q", os.Args[1])
	}
}

func writeLabels(path string, labels []int) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, l := range labels {
		fmt.Fprintln(w, l)
	}
	check(w.Flush(), f.Close())
}

func check(errs ...error) {
	for _, err := range errs {
		if err != nil {
			log.Fatal(err)
		}
	}
}

func float32frombits(b uint32) float32 { return math.Float32frombits(b) }
