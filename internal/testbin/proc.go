package testbin

import (
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Buffer is a bytes.Buffer safe for a process's writes and a test's reads.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *Buffer) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// Proc is a helix process started by a test.
type Proc struct {
	Cmd            *exec.Cmd
	Stdout, Stderr Buffer
	done           chan struct{}
	code           int
}

// Start runs helix with args and exactly the environment env (build it from
// os.Environ() to inherit the test's). The process is killed at the test's
// end if it is still running.
func Start(t testing.TB, env []string, args ...string) *Proc {
	t.Helper()
	p := &Proc{Cmd: exec.Command(Helix(t), args...), done: make(chan struct{})}
	p.Cmd.Env = env
	p.Cmd.Stdout, p.Cmd.Stderr = &p.Stdout, &p.Stderr
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.Cmd.Wait()
		p.code = p.Cmd.ProcessState.ExitCode()
		if ws, ok := p.Cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.code = 128 + int(ws.Signal()) // as a shell reports it
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.Cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Code is the exit status once Done is closed: 128+N when killed by signal N.
func (p *Proc) Code() int { <-p.done; return p.code }

// Wait returns the exit status; a process still running after limit is
// killed and the test marked failed (-1).
func (p *Proc) Wait(t testing.TB, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(limit):
		_ = p.Cmd.Process.Kill()
		<-p.done
		t.Errorf("helix %s still running after %v; stderr:\n%s", strings.Join(p.Cmd.Args[1:], " "), limit, p.Stderr.String())
		return -1
	}
}
