package skill

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Limits bound one execution. A zero field means "no cap from this source";
// the effective limits are the lowest of the defaults, the configuration,
// the caller's and the skill's own (see Limits.Min).
type Limits struct {
	Timeout     time.Duration
	MemoryBytes int64
	OutputBytes int64
	// CPU caps the CPU time (user + system) the skill may use, apart from
	// the wall-clock Timeout: a busy loop ends at whichever comes first.
	CPU time.Duration
}

type limitsJSON struct {
	TimeoutMS   int64 `json:"timeout_ms"`
	MemoryBytes int64 `json:"memory_bytes"`
	OutputBytes int64 `json:"output_bytes"`
	CPUMS       int64 `json:"cpu_ms,omitempty"`
}

// MarshalJSON writes {"timeout_ms", "memory_bytes", "output_bytes", "cpu_ms"}, as in skill_executions.limits.
func (l Limits) MarshalJSON() ([]byte, error) {
	return json.Marshal(limitsJSON{l.Timeout.Milliseconds(), l.MemoryBytes, l.OutputBytes, l.CPU.Milliseconds()})
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (l *Limits) UnmarshalJSON(b []byte) error {
	var j limitsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*l = Limits{time.Duration(j.TimeoutMS) * time.Millisecond, j.MemoryBytes, j.OutputBytes, time.Duration(j.CPUMS) * time.Millisecond}
	return nil
}

// Defaults.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultMemoryBytes = 128 << 20
	DefaultOutputBytes = 1 << 20
	// DefaultCPU is the CPU time a run may use (skill.cpu-limit), whatever
	// its wall-clock timeout.
	DefaultCPU = 10 * time.Second
	// StderrCap bounds the skill's log kept in memory and in skill_executions.
	StderrCap = 64 << 10
	// DefaultMaxCodeBytes caps a skill's code (skill.max-code-size): a
	// Go-built wasm skill is a few MiB; a 60 MB script took 9–11 s to marshal,
	// pipe and parse before any timeout could start.
	DefaultMaxCodeBytes = 16 << 20
)

// DefaultLimits are used when nothing lower is asked for.
func DefaultLimits() Limits {
	return Limits{Timeout: DefaultTimeout, MemoryBytes: DefaultMemoryBytes, OutputBytes: DefaultOutputBytes, CPU: DefaultCPU}
}

// Min returns, field by field, the lowest non-zero value of l and o.
func (l Limits) Min(o Limits) Limits {
	return Limits{
		Timeout:     minPos(l.Timeout, o.Timeout),
		MemoryBytes: minPos(l.MemoryBytes, o.MemoryBytes),
		OutputBytes: minPos(l.OutputBytes, o.OutputBytes),
		CPU:         minPos(l.CPU, o.CPU),
	}
}

func minPos[T ~int64](a, b T) T {
	if a <= 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

// Capabilities are what a skill is granted beyond pure computation.
// By default a skill has no filesystem, no environment, no network, a fixed
// clock and deterministic randomness.
type Capabilities struct {
	FSRead string     // host directory mounted read-only at /data (wasm only)
	Clock  bool       // real wall clock and monotonic clock
	Random bool       // cryptographic randomness instead of a fixed seed
	Env    []string   // names of variables the caller may pass (ExecOptions.Env)
	Net    []NetGrant // hosts the skill may send HTTP requests to (net.go)
}

// Capability strings.
const (
	CapFSRead = "fs:read=" // fs:read=/host/dir
	CapClock  = "clock"
	CapRandom = "random"
	CapEnv    = "env:" // env:NAME
)

// ParseCapabilities checks capability strings and normalises fs:read paths to absolute ones.
func ParseCapabilities(caps []string) (Capabilities, []string, error) {
	var c Capabilities
	norm := make([]string, 0, len(caps))
	for _, s := range caps {
		switch {
		case strings.HasPrefix(s, CapFSRead):
			dir := strings.TrimPrefix(s, CapFSRead)
			if dir == "" {
				return c, nil, fmt.Errorf("capability %q: name a directory, e.g. fs:read=/srv/skill-data", s)
			}
			if c.FSRead != "" {
				return c, nil, fmt.Errorf("capability %q: only one fs:read directory may be granted", s)
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return c, nil, fmt.Errorf("capability %q: %w", s, err)
			}
			c.FSRead = abs
			s = CapFSRead + abs
		case s == CapClock:
			c.Clock = true
		case s == CapRandom:
			c.Random = true
		case strings.HasPrefix(s, CapNetHTTPS), strings.HasPrefix(s, CapNetHTTP):
			scheme, v, _ := strings.Cut(strings.TrimPrefix(s, "net:"), "=")
			g, err := parseNetGrant(scheme, v)
			if err != nil {
				return c, nil, fmt.Errorf("capability %q: %w", s, err)
			}
			c.Net = append(c.Net, g)
			s = "net:" + scheme + "=" + strings.TrimPrefix(g.Origin(), scheme+"://")
		case strings.HasPrefix(s, CapEnv):
			name := strings.TrimPrefix(s, CapEnv)
			if name == "" || strings.ContainsAny(name, "= \t\n") {
				return c, nil, fmt.Errorf("capability %q: name a variable, e.g. env:API_BASE", s)
			}
			c.Env = append(c.Env, name)
		default:
			return c, nil, fmt.Errorf("unknown capability %q: use fs:read=DIR, clock, random, env:NAME, net:https=HOST[:PORT] or net:http=HOST[:PORT]", s)
		}
		norm = append(norm, s)
	}
	return c, norm, nil
}

// allows reports whether the capabilities declare variable name.
func (c Capabilities) allows(name string) bool {
	for _, n := range c.Env {
		if n == name {
			return true
		}
	}
	return false
}
