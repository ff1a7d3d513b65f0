// Command lineageplant writes the planted data of scripts/lineage-planted.sh
// (lineage.Plant): before.jsonl (4 topics), added.jsonl (10 % more on 3 of
// them, and a 5th topic), deleted.txt (the 4th topic's memory ids) and
// topics.tsv (every memory's topic), for one user and seed.
//
// Run: go run ./scripts/lineageplant -user UUID -seed N -out DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/lineage"
	"github.com/helixhq/helix/internal/memories"
)

func main() {
	user := flag.String("user", "45454545-4545-4545-8545-454545454545", "the user's id")
	seed := flag.Uint64("seed", 1, "the planting's seed")
	dim := flag.Int("dim", 16, "embedding dimensions")
	out := flag.String("out", ".", "directory to write into")
	flag.Parse()
	u, err := uuid.Parse(*user)
	if err != nil {
		log.Fatalf("-user: %v", err)
	}
	p := lineage.Plant(u, *seed, lineage.PlantOptions{Dim: *dim})
	write := func(name string, ms []memories.Memory) {
		f, err := os.Create(filepath.Join(*out, name))
		if err != nil {
			log.Fatal(err)
		}
		enc := json.NewEncoder(f)
		for _, m := range ms {
			if err := enc.Encode(m); err != nil {
				log.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
	write("before.jsonl", p.Before)
	write("added.jsonl", p.Added)
	var del, topics []byte
	for _, id := range p.Deleted {
		del = fmt.Appendf(del, "%s\n", id)
	}
	for _, ms := range [][]memories.Memory{p.Before, p.Added} {
		for _, m := range ms {
			topics = fmt.Appendf(topics, "%s\t%d\n", m.ID, p.Topic[m.ID])
		}
	}
	for name, b := range map[string][]byte{"deleted.txt": del, "topics.tsv": topics} {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
