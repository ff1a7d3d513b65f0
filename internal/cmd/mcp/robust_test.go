package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// stdioSession is helix mcp serve over stdio, spoken to line by line.
type stdioSession struct {
	in   io.WriteCloser
	out  *bufio.Reader
	cmd  *exec.Cmd
	errs *strings.Builder
}

func startStdio(t *testing.T, dbURL string, extra ...string) *stdioSession {
	t.Helper()
	cmd := exec.Command(testbin.Helix(t), "mcp", "serve", "--user-id", userID)
	cmd.Env = helixEnv(t, append([]string{"DATABASE_URL=" + dbURL}, extra...)...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	errs := &strings.Builder{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return &stdioSession{in: in, out: bufio.NewReaderSize(out, 1<<20), cmd: cmd, errs: errs}
}

func (s *stdioSession) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatalf("write: %v (stderr %s)", err, s.errs.String())
	}
}

// answer reads the next message that is not a notification.
func (s *stdioSession) answer(t *testing.T) map[string]any {
	t.Helper()
	type res struct {
		m   map[string]any
		err error
	}
	c := make(chan res, 1)
	go func() {
		for {
			line, err := s.out.ReadBytes('\n')
			if err != nil {
				c <- res{err: err}
				return
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				c <- res{err: fmt.Errorf("%v: %q", err, line)}
				return
			}
			if _, ok := m["method"]; ok && m["id"] == nil {
				continue
			}
			c <- res{m: m}
			return
		}
	}()
	select {
	case r := <-c:
		if r.err != nil {
			t.Fatalf("read: %v (stderr %s)", r.err, s.errs.String())
		}
		return r.m
	case <-time.After(time.Minute):
		t.Fatalf("no answer (stderr %s)", s.errs.String())
	}
	return nil
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// One bad message on stdio is answered with its JSON-RPC error and the
// session goes on: bad JSON, no "jsonrpc", a batch, deep nesting, a line
// over the message cap.
func TestServeStdioBadMessages(t *testing.T) {
	t.Parallel()
	s := startStdio(t, pgtest.URL(t))
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := s.answer(t); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	cases := []struct {
		line string
		code float64
		id   any
	}{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"`, -32700, nil},
		{`{"id":3,"method":"tools/list"}`, -32600, 3.0},
		{`[{"jsonrpc":"2.0","id":4,"method":"tools/list"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600, nil},
		{`{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"_meta":{"x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"_meta":{"x":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}}}`, -32600, "deep"},
		{`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"x":"` + strings.Repeat("a", 17<<20) + `"}}}`, -32600, nil},
		{`"just a string"`, -32600, nil},
	}
	for _, c := range cases {
		s.send(t, c.line)
		m := s.answer(t)
		if errCode(m) != c.code || m["id"] != c.id {
			t.Errorf("%.60s…: answer %v, want code %v id %v", c.line, m, c.code, c.id)
		}
	}
	s.send(t, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	m := s.answer(t)
	if m["id"] != 8.0 || m["result"] == nil || !strings.Contains(fmt.Sprint(m["result"]), "memory_search") {
		t.Errorf("tools/list after the bad messages: %v", m)
	}
	s.in.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v, stderr %s", err, s.errs.String())
		}
	case <-time.After(time.Minute):
		t.Error("still running after stdin closed")
	}
}
