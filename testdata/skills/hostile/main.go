// Command hostile is a test skill that misbehaves as its input asks:
// {"do": "loop" | "memhog" | "read" | "socket" | "flood" | "panic" | "probe" | "sleep" | "recurse", "path": "..."}.
// The behaviours share one module because compiling a Go-built module takes
// seconds; each is a separate function below.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"time"
)

func main() {
	var in struct{ Do, Path string }
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail("decode input:", err)
	}
	switch in.Do {
	case "loop":
		loop()
	case "memhog":
		memhog()
	case "read":
		read(in.Path)
	case "socket":
		socket()
	case "flood":
		flood()
	case "panic":
		var m map[string]int
		m["boom"] = 1 // assignment to entry in nil map
	case "probe":
		probe()
	case "sleep":
		sleep()
	case "recurse":
		fmt.Println(recurse(1))
	default:
		fail("unknown behaviour", in.Do)
	}
}

func fail(args ...any) {
	fmt.Fprintln(os.Stderr, args...)
	os.Exit(1)
}

// loop never ends.
func loop() {
	n := 0
	for {
		n++
	}
}

var keep [][]byte

// memhog allocates until refused.
func memhog() {
	for {
		b := make([]byte, 1<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		keep = append(keep, b)
	}
}

// read prints the file at path.
func read(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		fail("read:", err)
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"content": string(b)})
}

// socket tries to reach the local PostgreSQL server.
func socket() {
	c, err := net.Dial("tcp", "127.0.0.1:5432")
	if err != nil {
		fail("dial:", err)
	}
	c.Close()
	fmt.Println(`{"connected": true}`)
}

// flood writes 100 MB on stdout.
func flood() {
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = 'x'
	}
	for written := 0; written < 100<<20; written += len(chunk) {
		if _, err := os.Stdout.Write(chunk); err != nil {
			os.Exit(1)
		}
	}
}

// probe reports what the sandbox lets the skill see.
func probe() {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
		"env":    os.Environ(),
		"year":   time.Now().Year(),
		"random": hex.EncodeToString(b),
	})
}

// sleep sleeps 2 s and reports what the guest's clocks saw.
func sleep() {
	start := time.Now()
	time.Sleep(2 * time.Second)
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
		"start": start.UTC().Format(time.RFC3339Nano), "slept_ms": time.Since(start).Milliseconds(),
	})
}

// recurse never returns: every call adds a frame to the goroutine's stack.
func recurse(n int) int {
	var pad [64]byte
	pad[n%64] = byte(n)
	return recurse(n+1) + int(pad[(n+1)%64])
}
