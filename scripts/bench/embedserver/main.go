// Command embedserver is a local stand-in for an OpenAI-compatible embeddings
// server: POST /v1/embeddings answers deterministic vectors (hashed words) of
// -dim dimensions in OpenAI's response shape, after an optional per-request
// delay; GET /stats reports requests and inputs served so far.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	dim := flag.Int("dim", 1536, "dimensions")
	delay := flag.Duration("delay", 0, "latency added to each request")
	flag.Parse()
	var requests, inputs atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Input) == 0 {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`)
			return
		}
		requests.Add(1)
		inputs.Add(int64(len(req.Input)))
		time.Sleep(*delay)
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteString(`{"object":"list","data":[`)
		v := make([]float32, *dim)
		for i, in := range req.Input {
			clear(v)
			for _, word := range strings.Fields(strings.ToLower(in)) {
				h := fnv.New64a()
				h.Write([]byte(word))
				x := h.Sum64()
				v[x%uint64(*dim)] += 1
				v[(x>>20)%uint64(*dim)] -= 0.5
			}
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"object":"embedding","index":%d,"embedding":`, i)
			e, _ := json.Marshal(v)
			b.Write(e)
			b.WriteByte('}')
		}
		fmt.Fprintf(&b, `],"model":%q,"usage":{"prompt_tokens":%d,"total_tokens":%d}}`, req.Model, len(req.Input), len(req.Input))
		_, _ = w.Write([]byte(b.String()))
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%d %d\n", requests.Load(), inputs.Load())
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ln.Addr().String())
	log.Fatal(http.Serve(ln, mux))
}
