package skill

import (
	"github.com/helixhq/helix/internal/size"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// childGrace is how long after the timeout the parent waits for the child to
// report before killing it.
const childGrace = 500 * time.Millisecond

// jsProcess is a child `helix skill __run-js` waiting for its request on stdin.
type jsProcess struct {
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr *cappedBuffer
	// helix's ends of the network channel: the child's request documents
	// come in on netIn, the answers go out on netOut.
	netIn, netOut *os.File
}

func (e *Executor) startJS() (*jsProcess, error) {
	cmd := exec.Command(e.jsChild[0], e.jsChild[1:]...)
	// Nothing of helix's environment (database URL, API keys) reaches the child.
	cmd.Env = []string{"GOTRACEBACK=none"}
	cmd.SysProcAttr = childSysProcAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// The child writes nothing before its request: the output cap is set then.
	p := &jsProcess{cmd: cmd, stdin: stdin, stdout: &cappedBuffer{}, stderr: &cappedBuffer{max: StderrCap}}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	cmd.WaitDelay = time.Second
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{reqW, respR} // fds 3 and 4: childNetOut, childNetIn
	p.netIn, p.netOut = reqR, respW
	err = cmd.Start()
	reqW.Close()
	respR.Close()
	if err != nil {
		p.closeNet()
		return nil, err
	}
	return p, nil
}

func (p *jsProcess) closeNet() {
	p.netIn.Close()
	p.netOut.Close()
}

func (p *jsProcess) kill() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	p.closeNet()
}

// Prestart starts a JavaScript child ahead of need when ref (a file, or a
// stored NAME[@VERSION] that was JavaScript the last time this cache
// resolved it), so that the child's start overlaps the database's answer.
// The next JavaScript run takes it; Close ends it if none does.
func (e *Executor) Prestart(ref string) {
	if !e.likelyJS(ref) {
		return
	}
	p, err := e.startJS()
	if err != nil {
		return // runJS will start one and report the error
	}
	e.jsMu.Lock()
	defer e.jsMu.Unlock()
	if e.jsReady != nil {
		p.kill()
		return
	}
	e.jsReady = p
}

func (e *Executor) likelyJS(ref string) bool {
	if st, err := os.Stat(ref); err == nil && st.Mode().IsRegular() { // as Resolve decides
		f, err := os.Open(ref)
		if err != nil {
			return false
		}
		defer f.Close()
		head := make([]byte, 4)
		n, _ := io.ReadFull(f, head)
		eng, err := EngineFor(ref, head[:n])
		return err == nil && eng == EngineJS
	}
	r, err := ParseRef(ref)
	if err != nil || e.codeDir == "" {
		return false
	}
	_, err = os.Stat(e.jsHintPath(r.String()))
	return err == nil
}

// jsHintPath is the file whose presence says ref resolved to a JavaScript skill.
func (e *Executor) jsHintPath(ref string) string {
	return filepath.Join(e.codeDir, "js-"+Sum([]byte(ref))[:32])
}

// noteEngine keeps the hint Prestart reads up to date.
func (e *Executor) noteEngine(ref string, eng Engine) {
	path := e.jsHintPath(ref)
	_, err := os.Stat(path)
	switch had := err == nil; {
	case eng == EngineJS && !had:
		if os.MkdirAll(e.codeDir, 0o700) == nil {
			_ = os.WriteFile(path, nil, 0o600)
		}
	case eng != EngineJS && had:
		_ = os.Remove(path)
	}
}

// runJS runs s in a child until deadline (the call's start + the timeout):
// marshalling, piping and parsing a large script are inside the limit.
func (e *Executor) runJS(ctx context.Context, s *Skill, o ExecOptions, caps Capabilities, lim Limits, deadline time.Time, netS *netSession) (out runOutcome) {
	var timedOut atomic.Bool
	var proc atomic.Pointer[jsProcess]
	timer := time.AfterFunc(time.Until(deadline)+childGrace, func() {
		timedOut.Store(true)
		if p := proc.Load(); p != nil {
			_ = p.cmd.Process.Kill()
		}
	})
	defer timer.Stop()
	timeoutOutcome := runOutcome{status: StatusTimeout, err: fmt.Sprintf("the skill ran longer than the timeout of %s and was stopped", lim.Timeout)}
	req, err := json.Marshal(childRequest{
		Code:        string(s.Code),
		Input:       o.Input,
		TimeoutMS:   max(time.Until(deadline).Milliseconds(), 1),
		LimitMS:     lim.Timeout.Milliseconds(),
		MemoryBytes: lim.MemoryBytes,
		OutputBytes: lim.OutputBytes,
		CPUMS:       lim.CPU.Milliseconds(),
		Clock:       caps.Clock,
		Random:      caps.Random,
		Env:         o.Env,
	})
	if err != nil {
		return runOutcome{status: StatusError, err: err.Error()}
	}
	e.jsMu.Lock()
	p := e.jsReady
	e.jsReady = nil
	e.jsMu.Unlock()
	if p == nil {
		if p, err = e.startJS(); err != nil {
			return runOutcome{status: StatusError, err: "start the JavaScript runner: " + err.Error()}
		}
	}
	p.stdout.setMax(lim.OutputBytes + 2*StderrCap + 4096)
	proc.Store(p)
	if timedOut.Load() { // the timer fired before the child was there to kill
		p.kill()
		return timeoutOutcome
	}
	stop := context.AfterFunc(ctx, func() { _ = p.cmd.Process.Kill() })
	netCtx, netCancel := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		netS.serve(netCtx, p.netIn, p.netOut)
	}()
	// A child that dies before reading all of it is explained by Wait.
	_, _ = p.stdin.Write(req)
	_ = p.stdin.Close()
	runErr := p.cmd.Wait()
	timer.Stop()
	stop()
	netCancel()
	p.closeNet()
	<-served
	cpuMS, peak := childCost(p.cmd.ProcessState)
	defer func() { out.cpuMS, out.peakRSS = cpuMS, peak }()

	var resp childResponse
	if err := json.Unmarshal(p.stdout.Bytes(), &resp); err == nil && resp.Status != "" {
		if resp.PeakRSS > 0 {
			peak = resp.PeakRSS
		}
		return runOutcome{status: resp.Status, stdout: resp.Output, stderr: resp.Log, err: resp.Error}
	}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return runOutcome{status: StatusError, err: "cancelled"}
	case lim.CPU > 0 && time.Duration(cpuMS*float64(time.Millisecond)) >= lim.CPU && errors.As(runErr, &ee) &&
		killedByCPULimit(ee):
		// the kernel's RLIMIT_CPU ended it before the child's watchdog could answer
		return runOutcome{status: StatusCPULimit, err: cpuLimitText(lim.CPU), stderr: p.stderr.String()}
	case timedOut.Load():
		return timeoutOutcome
	}
	log := p.stderr.String()
	if strings.Contains(log, "out of memory") || (errors.As(runErr, &ee) && killedBy(ee, syscall.SIGKILL)) {
		return runOutcome{status: StatusMemoryLimit, err: fmt.Sprintf("the skill needed more than the memory limit of %s", size.Format(lim.MemoryBytes))}
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
