package toolexec

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// containerCost follows a running container's cgroup: its CPU time and its
// peak memory. The runtime removes the cgroup when the container exits
// (run --rm), so the figures are the last sample's, taken every 50 ms: the
// CPU time may miss the last 50 ms of work; the peak is the kernel's own
// high-water mark (memory.peak, memory.max_usage_in_bytes) where it keeps
// one, else the largest memory.current seen.
type containerCost struct {
	mu   sync.Mutex
	cpu  time.Duration
	peak int64
	seen bool
}

func (c *containerCost) figures() (*float64, *int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen {
		return nil, nil
	}
	ms := float64(c.cpu.Microseconds()) / 1000
	peak := c.peak
	return &ms, &peak
}

// follow samples until done: it reads the container's id from cidfile,
// asks the runtime for its process, and reads that process's cgroup.
func (c *containerCost) follow(ctx context.Context, runtime, cidfile string, done <-chan struct{}) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	var groups map[string]string
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if groups == nil {
			b, err := os.ReadFile(cidfile)
			if err != nil || len(bytes.TrimSpace(b)) == 0 {
				continue
			}
			ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
			out, err := exec.CommandContext(ictx, runtime, "inspect", "--format", "{{.State.Pid}}", string(bytes.TrimSpace(b))).Output()
			cancel()
			pid, perr := strconv.Atoi(strings.TrimSpace(string(out)))
			if err != nil || perr != nil || pid <= 0 {
				continue
			}
			cg, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
			if err != nil {
				return // the container is gone already
			}
			groups = parseProcCgroup(cg)
		}
		cpu, mem, peak, ok := readCgroup("/sys/fs/cgroup", groups)
		if !ok {
			continue
		}
		c.mu.Lock()
		c.seen, c.cpu = true, max(c.cpu, cpu)
		c.peak = max(c.peak, mem, peak)
		c.mu.Unlock()
	}
}

// parseProcCgroup reads /proc/PID/cgroup: controller → path ("" for the
// cgroup v2 unified hierarchy).
func parseProcCgroup(b []byte) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 || strings.Contains(parts[2], "..") {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			m[""] = parts[2]
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			m[ctl] = parts[2]
		}
	}
	return m
}

// readCgroup reads CPU time, current memory and the kernel's peak (0 if it
// keeps none) under root, from cgroup v1 controllers or the v2 hierarchy.
func readCgroup(root string, groups map[string]string) (cpu time.Duration, mem, peak int64, ok bool) {
	num := func(path string) (int64, bool) {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, false
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return n, err == nil
	}
	if p, v1 := groups["cpuacct"]; v1 {
		ns, okCPU := num(filepath.Join(root, "cpuacct", p, "cpuacct.usage"))
		mp := groups["memory"]
		mem, okMem := num(filepath.Join(root, "memory", mp, "memory.usage_in_bytes"))
		peak, _ = num(filepath.Join(root, "memory", mp, "memory.max_usage_in_bytes"))
		return time.Duration(ns), mem, peak, okCPU && okMem
	}
	p, v2 := groups[""]
	if !v2 {
		return 0, 0, 0, false
	}
	dir := filepath.Join(root, p)
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return 0, 0, 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(l, "usage_usec "); found {
			us, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return 0, 0, 0, false
			}
			cpu, ok = time.Duration(us)*time.Microsecond, true
		}
	}
	mem, okMem := num(filepath.Join(dir, "memory.current"))
	peak, _ = num(filepath.Join(dir, "memory.peak"))
	return cpu, mem, peak, ok && okMem
}
