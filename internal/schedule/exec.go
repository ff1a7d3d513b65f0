package schedule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Result is the outcome of one run of a job's command line.
type Result struct {
	Status   string
	ExitCode *int
	Counts   []byte // the result's top-level numbers, flags and short strings (JSON), or nil
	Error    string // the job's error message (its last JSON error line on stderr)
	Duration time.Duration
}

// describe is the result in a few words, for a disabled schedule's reason.
func (r *Result) describe() string {
	s := r.Status
	if r.ExitCode != nil {
		s = fmt.Sprintf("exit %d", *r.ExitCode)
	}
	if r.Error != "" {
		s += ": " + r.Error
	}
	return s
}

// Exit statuses of helix (cmdutil's table; schedule cannot import cmdutil's CLI plumbing).
const (
	exitPartial     = 3
	exitSkipped     = 5
	exitInterrupted = 130
)

// Exec runs `exe --output=json ARGV...` with env and waits. Cancelling ctx
// sends the job SIGTERM (helix jobs stop cleanly on it: a chunk rolls back,
// the run is marked interrupted) and SIGKILL after killAfter. On Linux the
// job also gets SIGTERM when the worker dies, so a killed worker leaves no
// job running unrecorded.
func Exec(ctx context.Context, exe string, argv, env []string, killAfter time.Duration) *Result {
	cmd := exec.CommandContext(ctx, exe, append([]string{"--output=json"}, argv...)...)
	cmd.Env = env
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = max(killAfter, time.Second)
	cmd.SysProcAttr = sysProcAttr()
	stdout := &capped{max: 1 << 20}
	stderr := &capped{max: 64 << 10, tail: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	err := cmd.Run()
	r := &Result{Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
		zero := 0
		r.Status, r.ExitCode = StatusOK, &zero
	case errors.As(err, &ee):
		code := ee.ExitCode()
		ws, _ := ee.Sys().(syscall.WaitStatus)
		switch {
		case code == exitPartial:
			r.Status = StatusPartial
		case code == exitSkipped:
			r.Status = StatusSkipped
		case code == exitInterrupted, ctx.Err() != nil,
			ws.Signaled() && (ws.Signal() == syscall.SIGTERM || ws.Signal() == syscall.SIGINT):
			r.Status = StatusInterrupted
		default:
			r.Status = StatusFailed
		}
		if code >= 0 {
			r.ExitCode = &code
		} else if ws.Signaled() {
			r.Error = "killed by " + ws.Signal().String()
		}
	case ctx.Err() != nil:
		r.Status, r.Error = StatusInterrupted, err.Error()
	default:
		r.Status, r.Error = StatusFailed, err.Error()
	}
	if msg := lastError(stderr.Bytes()); msg != "" {
		r.Error = msg
	}
	r.Counts = counts(stdout.Bytes())
	return r
}

// lastError is the message of the last JSON error line ({"error": {"message": ...}})
// on a job's stderr, else its last line that is not a JSON log record.
func lastError(stderr []byte) string {
	lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
	fallback := ""
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		var e struct {
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(l), &e) == nil {
			if e.Error != nil && e.Error.Message != "" {
				return e.Error.Message
			}
			continue
		}
		if fallback == "" {
			fallback = l
		}
	}
	if len(fallback) > 1000 {
		fallback = fallback[:1000]
	}
	return fallback
}

// counts keeps a JSON result's top-level numbers, booleans and short strings:
// the run's figures, small enough to keep for every fire.
func counts(stdout []byte) []byte {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(stdout))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return nil
	}
	keep := map[string]any{}
	scalars := func(m map[string]any) {
		for k, v := range m {
			if _, ok := keep[k]; ok {
				continue
			}
			switch x := v.(type) {
			case json.Number, bool:
				keep[k] = x
			case string:
				if len(x) <= 200 {
					keep[k] = x
				}
			}
		}
	}
	scalars(m)
	// A job that keeps its figures under "counts" (synthesize: users, done,
	// patterns, memories) has them shown, not only its run_id.
	if c, ok := m["counts"].(map[string]any); ok {
		scalars(c)
	}
	if len(keep) == 0 {
		return nil
	}
	b, _ := json.Marshal(keep)
	return b
}

// capped keeps at most max bytes of what is written: the first ones, or with
// tail the last ones.
type capped struct {
	buf  []byte
	max  int
	tail bool
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if c.tail {
		c.buf = append(c.buf, p...)
		if len(c.buf) > c.max {
			c.buf = append(c.buf[:0], c.buf[len(c.buf)-c.max:]...)
		}
		return n, nil
	}
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return n, nil
}

func (c *capped) Bytes() []byte { return c.buf }
