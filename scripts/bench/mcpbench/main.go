// Command mcpbench measures MCP calls over one warm stdio session: it starts
// an MCP server command (helix mcp serve …), calls one tool -n times and
// prints each call's latency in nanoseconds, one a line. With -http ADDR it
// instead serves GET /ping (a small JSON answer) for the tool to call.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	httpAddr := flag.String("http", "", "serve GET /ping on this address instead")
	tool := flag.String("tool", "", "tool to call")
	args := flag.String("args", "{}", "its arguments (JSON)")
	n := flag.Int("n", 1000, "calls")
	flag.Parse()
	if *httpAddr != "" {
		http.HandleFunc("GET /ping", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"pong": true}`)
		})
		log.Fatal(http.ListenAndServe(*httpAddr, nil))
	}
	if flag.NArg() == 0 || *tool == "" {
		log.Fatal("usage: mcpbench -tool NAME [-args JSON] [-n N] -- COMMAND ARGS...")
	}
	var a map[string]any
	if err := json.Unmarshal([]byte(*args), &a); err != nil {
		log.Fatalf("-args: %v", err)
	}
	ctx := context.Background()
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for i := 0; i < *n; i++ {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: *tool, Arguments: a})
		el := time.Since(t0)
		if err != nil || res.IsError {
			log.Fatalf("call %d: %v %+v", i, err, res)
		}
		fmt.Println(el.Nanoseconds())
	}
}
