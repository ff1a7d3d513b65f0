package skill

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

// childGrace is how long after the timeout the parent waits for the child to
// report before killing it.
const childGrace = 500 * time.Millisecond

func (e *Executor) runJS(ctx context.Context, s *Skill, o ExecOptions, caps Capabilities, lim Limits) runOutcome {
	req, err := json.Marshal(childRequest{
		Code:        string(s.Code),
		Input:       o.Input,
		TimeoutMS:   max(lim.Timeout.Milliseconds(), 1),
		MemoryBytes: lim.MemoryBytes,
		OutputBytes: lim.OutputBytes,
		Clock:       caps.Clock,
		Random:      caps.Random,
		Env:         o.Env,
	})
	if err != nil {
		return runOutcome{status: StatusError, err: err.Error()}
	}
	cctx, cancel := context.WithTimeout(ctx, lim.Timeout+childGrace)
	defer cancel()
	cmd := exec.CommandContext(cctx, e.jsChild[0], e.jsChild[1:]...)
	// Nothing of helix's environment (database URL, API keys) reaches the child.
	cmd.Env = []string{"GOTRACEBACK=none"}
	cmd.Stdin = bytes.NewReader(req)
	stdout := &cappedBuffer{max: lim.OutputBytes + 2*StderrCap + 4096}
	stderr := &cappedBuffer{max: StderrCap}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()

	var resp childResponse
	if err := json.Unmarshal(stdout.Bytes(), &resp); err == nil && resp.Status != "" {
		return runOutcome{status: resp.Status, stdout: resp.Output, stderr: resp.Log, err: resp.Error}
	}
	switch {
	case ctx.Err() != nil:
		return runOutcome{status: StatusError, err: "cancelled"}
	case cctx.Err() == context.DeadlineExceeded:
		return runOutcome{status: StatusTimeout, err: fmt.Sprintf("the skill ran longer than the timeout of %s and was stopped", lim.Timeout)}
	}
	log := stderr.String()
	var ee *exec.ExitError
	if strings.Contains(log, "out of memory") || (errors.As(runErr, &ee) && killedBy(ee, syscall.SIGKILL)) {
		return runOutcome{status: StatusMemoryLimit, err: fmt.Sprintf("the skill needed more than the memory limit of %s", formatBytes(lim.MemoryBytes))}
	}
	msg := "the JavaScript runner failed"
	if runErr != nil {
		msg += ": " + runErr.Error()
	}
	if l := firstLine(log); l != "" {
		msg += ": " + l
	}
	return runOutcome{status: StatusError, err: msg}
}

func killedBy(ee *exec.ExitError, sig syscall.Signal) bool {
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}
