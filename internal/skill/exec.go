package skill

import (
	"bytes"
	"cmp"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/helixhq/helix/internal/third_party/jsonschema"
	"github.com/tetratelabs/wazero"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/scrub"
	"github.com/helixhq/helix/internal/size"
)

// ExecutorOptions configure an Executor.
type ExecutorOptions struct {
	// CacheDir holds compiled WebAssembly; "" means DefaultCacheDir(), and
	// "-" keeps compiled modules in memory only.
	CacheDir string
	// JSChild is the command that runs a JavaScript skill in a child process
	// (it must end up in RunChild). Default: this executable with "skill __run-js".
	JSChild []string
	// Limits are the caps of the configuration, combined with the defaults.
	Limits Limits
	// MaxCodeBytes caps a skill's code (0: DefaultMaxCodeBytes): a bigger
	// skill is refused before anything runs.
	MaxCodeBytes int64
	// Signatures, when set, is checked by Exec before a registry skill runs.
	Signatures *SignaturePolicy
	// Net bounds the requests of skills granted net: capabilities.
	Net NetLimits
	// NetRootCAs, when set, are the only roots a skill's HTTPS request
	// trusts (tests, a private CA); nil means the system's.
	NetRootCAs *x509.CertPool
}

// Executor runs skills. It is safe for concurrent use; Close it when done.
type Executor struct {
	cache    wazero.CompilationCache
	codeDir  string // the code of stored skills by sha256; "" for none
	jsChild  []string
	limits   Limits
	maxCode  int64
	net      NetLimits
	netRoots *x509.CertPool

	signatures *SignaturePolicy

	schemasMu sync.Mutex
	schemas   map[string]*jsonschema.Schema // by sha256 of the schema

	runtimesMu sync.Mutex
	runtimes   map[uint32]*wasmRuntime // by memory limit in pages

	jsMu    sync.Mutex
	jsReady *jsProcess // started by Prestart, taken by the next JavaScript run
}

// DefaultCacheDir is $XDG_CACHE_HOME/helix/wasm (or the OS equivalent).
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "helix", "wasm"), nil
}

// NewExecutor prepares an executor; the compilation cache directory is created on demand.
func NewExecutor(o ExecutorOptions) (*Executor, error) {
	e := &Executor{limits: DefaultLimits().Min(o.Limits), maxCode: cmp.Or(o.MaxCodeBytes, DefaultMaxCodeBytes), jsChild: o.JSChild, net: o.Net.withDefaults(), netRoots: o.NetRootCAs,
		schemas: map[string]*jsonschema.Schema{}, runtimes: map[uint32]*wasmRuntime{}, signatures: o.Signatures}
	dir := o.CacheDir
	if dir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return nil, fmt.Errorf("wasm cache: %w", err)
		}
		dir = d
	}
	if dir == "-" {
		e.cache = wazero.NewCompilationCache()
	} else {
		c, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			return nil, fmt.Errorf("wasm cache %s: %w", dir, err)
		}
		e.cache = c
		e.codeDir = filepath.Join(dir, "skills")
	}
	if len(e.jsChild) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("locate helix for JavaScript skills: %w", err)
		}
		e.jsChild = []string{exe, "skill", ChildCommand}
	}
	return e, nil
}

// JSChild is the command that runs this executor's JavaScript skills.
func (e *Executor) JSChild() []string { return e.jsChild }

// MaxCodeBytes is the largest skill code this executor runs.
func (e *Executor) MaxCodeBytes() int64 { return e.maxCode }

// CheckCodeSize refuses code larger than max.
func CheckCodeSize(code []byte, max int64) error {
	if int64(len(code)) > max {
		return fmt.Errorf("the skill's code is %s, more than the limit of %s (skill.max-code-size)", size.Format(int64(len(code))), size.Format(max))
	}
	return nil
}

// Close releases the runtimes and the compilation cache.
func (e *Executor) Close() error {
	ctx := context.Background()
	e.runtimesMu.Lock()
	defer e.runtimesMu.Unlock()
	for _, rt := range e.runtimes {
		_ = rt.r.Close(ctx)
	}
	e.runtimes = map[uint32]*wasmRuntime{}
	e.jsMu.Lock()
	if e.jsReady != nil {
		e.jsReady.kill()
		e.jsReady = nil
	}
	e.jsMu.Unlock()
	return e.cache.Close(ctx)
}

// ExecOptions are one execution's inputs.
type ExecOptions struct {
	Input  []byte // a JSON document
	UserID string // "" or a UUID, recorded in skill_executions
	// Limits asked by the caller (flags, a composite step); the lowest of
	// these, the executor's and the skill's own wins.
	Limits Limits
	// Env are values for variables the skill declares with env:NAME capabilities.
	Env map[string]string
	// CompositeExecutionID links the skill_executions row to a composite run (0: none).
	CompositeExecutionID int64
	// Client is the program that asked for the run, recorded as
	// skill_executions.client ("": the helix CLI; "mcp:NAME" through helix mcp serve).
	Client string
	// AllowPrivate is the operator's opt-in for loopback and private
	// addresses and for net:http= grants (skill exec --allow-private).
	AllowPrivate bool
}

// Result is how an execution ended. A skill's failure is a Status with an
// Error message, never a Go error.
type Result struct {
	ExecutionID   int64           `json:"execution_id,omitempty"`
	Skill         string          `json:"skill"`
	Version       string          `json:"version,omitempty"`
	Engine        Engine          `json:"engine"`
	SHA256        string          `json:"sha256"` // of the skill's code
	Status        Status          `json:"status"`
	Output        json.RawMessage `json:"output,omitempty"` // valid JSON when Status is ok
	Error         string          `json:"error,omitempty"`
	Stderr        string          `json:"stderr,omitempty"`
	Duration      time.Duration   `json:"-"`
	DurationMS    float64         `json:"duration_ms"`
	Limits        Limits          `json:"limits"`
	InputSHA256   string          `json:"input_sha256"`
	StartedAt     time.Time       `json:"started_at"`
	SchemaErrPath string          `json:"schema_error_path,omitempty"` // with invalid_input
	// What the run cost: CPU time (user + system) and the peak memory, of
	// the JavaScript child process (its rusage) or of the wasm instance
	// (its linear memory and the call stack's heap). Zero when nothing ran.
	CPUMS        float64 `json:"cpu_ms"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	// Network is what the skill did on the network, nil when it made no request.
	Network *NetworkRecord `json:"network,omitempty"`
	// Scrubbed counts what was replaced in the stored record (output, error,
	// stderr); nil when nothing was. StoredOutput is the output as stored.
	Scrubbed     *scrub.Counts   `json:"scrubbed,omitempty"`
	StoredOutput json.RawMessage `json:"-"`
}

// Exec validates the input, runs the skill and records a skill_executions row
// (also for invalid input). The returned error is only for what is not the
// skill's fault: a bad option, the database, or ctx being cancelled.
func (e *Executor) Exec(ctx context.Context, q db.Querier, s *Skill, o ExecOptions) (*Result, error) {
	if s.Disabled {
		return nil, fmt.Errorf("%w: %s@%s (helix skill enable %s turns it back on)", ErrDisabled, s.Name, s.Version, s.Name)
	}
	if err := e.signatures.check(ctx, q, s, time.Now()); err != nil {
		return nil, err
	}
	res, err := e.Run(ctx, s, o)
	if err != nil {
		if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
			return res, err
		}
		// stopped mid-run: the row says so, and no output is kept
		res.Status, res.Output, res.Error = StatusInterrupted, nil, interrupted(ctx)
		if rerr := recordExecution(context.WithoutCancel(ctx), q, s, o, res); rerr != nil {
			return res, errors.Join(err, fmt.Errorf("record execution of %s: %w", res.Skill, rerr))
		}
		return res, err
	}
	if err := recordExecution(context.WithoutCancel(ctx), q, s, o, res); err != nil {
		return res, fmt.Errorf("record execution of %s: %w", res.Skill, err)
	}
	return res, nil
}

// interrupted is the error text of a run a signal (or the caller) stopped.
func interrupted(ctx context.Context) string {
	return "interrupted before it finished: " + context.Cause(ctx).Error()
}

// Run is Exec without the database record: validate, then run in the sandbox.
//
// The timeout bounds the whole call from here: for JavaScript that includes
// sending the code to the child and parsing it. Compiling a wasm module is
// the exception (helix's work, cached, and bounded by the code size cap).
func (e *Executor) Run(ctx context.Context, s *Skill, o ExecOptions) (*Result, error) {
	begin := time.Now()
	res := &Result{
		Skill:       s.Name,
		Version:     s.Version,
		Engine:      s.Engine,
		SHA256:      s.SHA256,
		Limits:      e.limits.Min(o.Limits).Min(s.Limits),
		InputSHA256: Sum(o.Input),
		StartedAt:   time.Now(),
	}
	if o.UserID != "" {
		if _, err := uuid.Parse(o.UserID); err != nil {
			return res, usage(fmt.Errorf("invalid user id %q: use a UUID", o.UserID))
		}
	}
	if err := CheckCodeSize(s.Code, e.maxCode); err != nil {
		return res, usage(fmt.Errorf("skill %s: %w", s.Name, err))
	}
	caps, _, err := ParseCapabilities(s.Capabilities)
	if err != nil {
		return res, usage(fmt.Errorf("skill %s: %w", s.Name, err))
	}
	for k := range o.Env {
		if !caps.allows(k) {
			return res, usage(fmt.Errorf("skill %s does not declare env:%s; it may only read variables it declares", s.Name, k))
		}
	}
	if res.SHA256 == "" { // s may be shared by concurrent runs: not set there
		res.SHA256 = Sum(s.Code)
	}
	start := time.Now()
	defer func() {
		res.Duration = time.Since(start)
		res.DurationMS = float64(res.Duration.Microseconds()) / 1000
	}()
	if !json.Valid(o.Input) {
		res.Status, res.Error = StatusInvalidInput, "input is not a JSON document"
		return res, nil
	}
	if len(s.Params) > 0 {
		if path, msg, err := e.validate(s.Params, o.Input); err != nil {
			return res, usage(fmt.Errorf("skill %s: parameter schema: %w", s.Name, err))
		} else if msg != "" {
			res.Status, res.Error, res.SchemaErrPath = StatusInvalidInput, msg, path
			return res, nil
		}
	}
	var out runOutcome
	netS := e.newNetSession(caps, o.AllowPrivate, begin.Add(res.Limits.Timeout))
	switch s.Engine {
	case EngineWasm:
		out = e.runWasm(ctx, s, res.SHA256, o, caps, res.Limits, netS)
	case EngineJS:
		out = e.runJS(ctx, s, o, caps, res.Limits, begin.Add(res.Limits.Timeout), netS)
	default:
		return res, fmt.Errorf("skill %s: unknown engine %q", s.Name, s.Engine)
	}
	res.CPUMS, res.PeakRSSBytes, res.Network = out.cpuMS, out.peakRSS, netS.record()
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	res.Status, res.Error, res.Stderr = out.status, out.err, out.stderr
	if res.Status == StatusError && netS.lastRefused() {
		// the skill did not get past a request its capabilities refuse
		res.Status = StatusRefused
	}
	if res.Status == StatusOK {
		out.stdout = bytes.TrimSpace(out.stdout)
		switch {
		case len(out.stdout) == 0:
			res.Status, res.Error = StatusError, "the skill wrote no output: it must write one JSON document on stdout"
		case !json.Valid(out.stdout):
			res.Status, res.Error = StatusError, "the skill's output is not JSON: "+snippet(out.stdout)
		default:
			res.Output = out.stdout
		}
	}
	return res, nil
}

// runOutcome is what an engine reports.
type runOutcome struct {
	status  Status
	stdout  []byte
	stderr  string
	err     string
	cpuMS   float64
	peakRSS int64
}

// CompileSchema checks a parameter JSON Schema.
func CompileSchema(schema []byte) error {
	_, err := compileSchema(schema)
	return err
}

func compileSchema(schema []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("params.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("params.json")
}

// validate returns the path and message of the first schema violation, if any.
func (e *Executor) validate(schema, input []byte) (path, msg string, err error) {
	key := Sum(schema)
	e.schemasMu.Lock()
	sch := e.schemas[key]
	e.schemasMu.Unlock()
	if sch == nil {
		if sch, err = compileSchema(schema); err != nil {
			return "", "", err
		}
		e.schemasMu.Lock()
		e.schemas[key] = sch
		e.schemasMu.Unlock()
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return "", "", err
	}
	verr := sch.Validate(inst)
	if verr == nil {
		return "", "", nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return "", "", verr
	}
	return describe(ve)
}

// describe renders the deepest violations as "at /path: message".
func describe(ve *jsonschema.ValidationError) (string, string, error) {
	var leaves []*jsonschema.ValidationError
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			leaves = append(leaves, v)
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	en := message.NewPrinter(language.English)
	parts := make([]string, 0, len(leaves))
	first := ""
	for i, l := range leaves {
		p := "/" + strings.Join(l.InstanceLocation, "/")
		if i == 0 {
			first = p
		}
		parts = append(parts, fmt.Sprintf("at %s: %s", p, l.ErrorKind.LocalizedString(en)))
	}
	return first, "input does not match the skill's schema: " + strings.Join(parts, "; "), nil
}

func snippet(b []byte) string {
	const n = 120
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// cappedBuffer keeps the first max bytes written and notes what it dropped.
type cappedBuffer struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	max       int64
	dropped   int64
	onOverrun func()
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - int64(c.buf.Len())
	if int64(len(p)) <= room {
		return c.buf.Write(p)
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.dropped += int64(len(p)) - max(room, 0)
	if c.onOverrun != nil {
		c.onOverrun()
		return 0, errors.New("output limit exceeded")
	}
	return len(p), nil
}

func (c *cappedBuffer) setMax(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.max = n
}

func (c *cappedBuffer) overrun() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped > 0
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	// PostgreSQL text holds no NUL bytes.
	s := strings.ReplaceAll(strings.ToValidUTF8(c.buf.String(), "?"), "\x00", "")
	if c.dropped > 0 {
		s += fmt.Sprintf("\n[… %d more bytes dropped]", c.dropped)
	}
	return s
}

func (c *cappedBuffer) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Bytes()
}
