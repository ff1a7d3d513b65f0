// Command mcpbench measures MCP calls over one warm stdio session against
// one process per call, interleaved: it starts an MCP server command (helix
// mcp serve …), makes -warmup unmeasured calls, then -n calls of one tool,
// and after every n/proc-n of them runs the -proc command once. It prints
// "mcp NS" and "proc NS" lines (latencies in nanoseconds), then the CPU
// each side used: "cpu mcp-helix S" (the server process), "cpu proc-helix S"
// (the processes), and with -db "cpu mcp-pg S" (the session's backends, by
// /proc) and "cpu exited-pg S" (what the postmaster reaped meanwhile: the
// processes' backends, plus any other session's that ended; an upper bound).
// With -http ADDR it instead serves GET /ping (a small JSON answer) for the
// tool to call.
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
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	httpAddr := flag.String("http", "", "serve GET /ping on this address instead")
	tool := flag.String("tool", "", "tool to call")
	args := flag.String("args", "{}", "its arguments (JSON)")
	n := flag.Int("n", 1000, "warm calls")
	warmup := flag.Int("warmup", 10, "unmeasured calls first")
	procArgv := flag.String("proc", "", "the per-process command to interleave (JSON argv)")
	procN := flag.Int("proc-n", 0, "how many times to run it (default n)")
	dbURL := flag.String("db", "", "the bench database: its backends' CPU is read from /proc")
	flag.Parse()
	if *httpAddr != "" {
		http.HandleFunc("GET /ping", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"pong": true}`)
		})
		log.Fatal(http.ListenAndServe(*httpAddr, nil))
	}
	if flag.NArg() == 0 || *tool == "" {
		log.Fatal("usage: mcpbench -tool NAME [-args JSON] [-n N] [-proc JSON -proc-n N] [-db URL] -- COMMAND ARGS...")
	}
	var a map[string]any
	if err := json.Unmarshal([]byte(*args), &a); err != nil {
		log.Fatalf("-args: %v", err)
	}
	var proc []string
	if *procArgv != "" {
		if err := json.Unmarshal([]byte(*procArgv), &proc); err != nil || len(proc) == 0 {
			log.Fatalf("-proc: a JSON argv: %v", err)
		}
		if *procN <= 0 {
			*procN = *n
		}
	}
	ctx := context.Background()
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	call := func(i int) time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: *tool, Arguments: a})
		el := time.Since(t0)
		if err != nil || res.IsError {
			log.Fatalf("call %d: %v %+v", i, err, res)
		}
		return el
	}
	for i := 0; i < *warmup; i++ {
		call(-1)
	}
	var db *pgx.Conn
	var backends []int
	var pgStart, reapedStart float64
	if *dbURL != "" {
		if db, err = pgx.Connect(ctx, *dbURL); err != nil {
			log.Fatal(err)
		}
		defer db.Close(ctx)
		backends = sessionBackends(ctx, db)
		pgStart = cpu(backends...)
		reapedStart = reaped(ctx, db)
	}
	srvStart := cpu(cmd.Process.Pid)
	var procCPU float64
	done := 0
	for i := 0; i < *n; i++ {
		fmt.Println("mcp", call(i).Nanoseconds())
		for len(proc) > 0 && done < (i+1)**procN / *n {
			pc := exec.Command(proc[0], proc[1:]...)
			t0 := time.Now()
			if out, err := pc.CombinedOutput(); err != nil {
				log.Fatalf("%s: %v\n%s", strings.Join(proc, " "), err, out)
			}
			fmt.Println("proc", time.Since(t0).Nanoseconds())
			procCPU += (pc.ProcessState.UserTime() + pc.ProcessState.SystemTime()).Seconds()
			done++
		}
	}
	fmt.Printf("cpu mcp-helix %.2f\n", cpu(cmd.Process.Pid)-srvStart)
	if len(proc) > 0 {
		fmt.Printf("cpu proc-helix %.2f\n", procCPU)
	}
	if db != nil {
		fmt.Printf("cpu mcp-pg %.2f\n", cpu(backends...)-pgStart)
		if len(proc) > 0 {
			fmt.Printf("cpu exited-pg %.2f\n", reaped(ctx, db)-reapedStart)
		}
	}
}

// sessionBackends are the backends on the bench database other than db's
// own: the warm server's pool.
func sessionBackends(ctx context.Context, db *pgx.Conn) []int {
	rows, err := db.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		log.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		log.Fatal(err)
	}
	return pids
}

// reaped is the CPU of the postmaster's exited children (cutime + cstime).
func reaped(ctx context.Context, db *pgx.Conn) float64 {
	var self int
	if err := db.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&self); err != nil {
		log.Fatal(err)
	}
	f := stat(self)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	pf := stat(ppid)
	if len(pf) < 15 {
		return 0
	}
	return ticks(pf[13]) + ticks(pf[14])
}

// cpu is the user and system time of the processes, in seconds.
func cpu(pids ...int) float64 {
	var s float64
	for _, p := range pids {
		if f := stat(p); len(f) > 12 {
			s += ticks(f[11]) + ticks(f[12])
		}
	}
	return s
}

// stat is /proc/PID/stat after the command name: state is [0], ppid [1],
// utime [11], stime [12], cutime [13], cstime [14].
func stat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// ticks converts clock ticks (USER_HZ, 100 on Linux) to seconds.
func ticks(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v / 100
}
