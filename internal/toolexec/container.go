package toolexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/helixhq/helix/internal/manifest"
)

// The platform's container limits; a manifest may ask for less, never more.
const (
	containerCPUMillis = 500
	containerMemory    = 512 << 20
	containerScratch   = 1 << 30
	containerPids      = 128
)

// ContainerRunner runs container tools through docker or podman.
type ContainerRunner struct {
	Runtime string // the CLI: "docker" or "podman", a path
	// MaxOutput caps what the container may print.
	MaxOutput int64
}

// FindRuntime returns a runner for the first of podman and docker that is
// on PATH and whose engine answers. A CLI without a reachable engine (the
// docker client with no daemon) is not a runtime: the error says so.
func FindRuntime(ctx context.Context) (*ContainerRunner, error) {
	var problems []string
	for _, name := range []string{"podman", "docker"} {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		out, err := exec.CommandContext(cctx, path, "version", "--format", "{{.Server.Version}}").CombinedOutput()
		cancel()
		if err == nil && len(bytes.TrimSpace(out)) > 0 {
			return &ContainerRunner{Runtime: path}, nil
		}
		problems = append(problems, fmt.Sprintf("%s is on PATH but its engine does not answer (%s)", name, firstLine(strings.TrimSpace(string(out)))))
	}
	if len(problems) == 0 {
		return nil, &RuntimeError{Msg: "container tools need docker or podman on PATH: none found; nothing was run"}
	}
	return nil, &RuntimeError{Msg: "no usable container runtime: " + strings.Join(problems, "; ") + "; nothing was run"}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// RunArgs are the runtime's arguments for a tool: no network unless the
// manifest grants hosts, at most half a CPU and 512 MB (no swap), a read-only root, a
// 1 GB scratch tmpfs, a pids limit, no capabilities, no new privileges.
func RunArgs(m *manifest.Manifest) []string {
	lim, _ := m.Permissions.Limits()
	cpu := int64(containerCPUMillis)
	if lim.CPUMillis > 0 && lim.CPUMillis < cpu {
		cpu = lim.CPUMillis
	}
	mem := int64(containerMemory)
	if lim.MemoryBytes > 0 && lim.MemoryBytes < mem {
		mem = lim.MemoryBytes
	}
	scratch := int64(containerScratch)
	if lim.StorageBytes > 0 && lim.StorageBytes < scratch {
		scratch = lim.StorageBytes
	}
	network := "none"
	if len(m.Permissions.Network) > 0 {
		// A runtime cannot limit a container to hosts; granting any network
		// is the reviewer's decision, made when approving the hosts.
		network = "bridge"
	}
	args := []string{"run", "--rm", "-i",
		"--network", network,
		"--cpus", strconv.FormatFloat(float64(cpu)/1000, 'f', -1, 64),
		"--memory", strconv.FormatInt(mem, 10),
		// swap equal to memory: no swap at all, the memory limit is the limit
		"--memory-swap", strconv.FormatInt(mem, 10),
		"--read-only",
		"--tmpfs", "/tmp:rw,noexec,nosuid,size=" + strconv.FormatInt(scratch, 10),
		"--pids-limit", strconv.Itoa(containerPids),
		"--cap-drop", "ALL",
		"--security-opt", "no-new-privileges",
		m.Entrypoint.Container.Image,
	}
	return append(args, m.Entrypoint.Container.Command...)
}

// run starts the container with the input on stdin; its stdout is the output.
func (c *ContainerRunner) run(ctx context.Context, t *manifest.Tool, input []byte, res *Result) error {
	if c.Runtime == "" {
		return &RuntimeError{Msg: "container tools need docker or podman"}
	}
	lim, _ := t.Manifest.Permissions.Limits()
	timeout := DefaultTimeout
	if lim.TimeoutMS > 0 {
		timeout = time.Duration(lim.TimeoutMS) * time.Millisecond
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// --cidfile names the container, so that its cgroup can be followed for
	// what the run cost (containerCost).
	dir, err := os.MkdirTemp("", "helix-cid-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cidfile := filepath.Join(dir, "cid")
	args := RunArgs(t.Manifest)
	args = append([]string{args[0], "--cidfile", cidfile}, args[1:]...)
	cmd := exec.CommandContext(cctx, c.Runtime, args...)
	cmd.Stdin = bytes.NewReader(input)
	max := c.MaxOutput
	if max <= 0 {
		max = 10 << 20
	}
	var stdout, stderr capped
	stdout.max, stderr.max = max, 64<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	res.BytesSent = int64(len(input))
	var cost containerCost
	done := make(chan struct{})
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		cost.follow(cctx, c.Runtime, cidfile, done)
	}()
	err = cmd.Run()
	close(done)
	<-followed
	res.CPUMS, res.PeakRSSBytes = cost.figures()
	res.BytesReceived = int64(stdout.b.Len())
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		res.Status, res.Error = StatusTimeout, fmt.Sprintf("no result within %s", timeout)
		return errors.New(res.Error)
	case stdout.over:
		res.Status, res.Error = StatusTooLarge, fmt.Sprintf("output over the %d-byte cap", max)
		return errors.New(res.Error)
	case err != nil:
		res.Status, res.Error = StatusError, fmt.Sprintf("%v: %s", err, firstLine(strings.TrimSpace(stderr.b.String())))
		return errors.New(res.Error)
	}
	out := bytes.TrimSpace(stdout.b.Bytes())
	if json.Valid(out) && len(out) > 0 {
		res.Output = json.RawMessage(out)
	} else {
		res.Output, _ = json.Marshal(string(out))
	}
	res.Status = StatusOK
	if t.Manifest.Returns != nil && json.Valid(out) && len(out) > 0 {
		res.SchemaErrors = checkResponse(t.Manifest.Returns, out)
	}
	return nil
}

// capped keeps at most max bytes and notes an overrun.
type capped struct {
	b    bytes.Buffer
	max  int64
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if left := c.max - int64(c.b.Len()); int64(len(p)) > left {
		c.over = true
		if left > 0 {
			c.b.Write(p[:left])
		}
		return len(p), nil
	}
	return c.b.Write(p)
}
