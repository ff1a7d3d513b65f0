// Package toolexec runs approved tools inside the permissions they were
// approved with (HTTP operations, sandboxed skills, containers) and audits
// every execution in tool_executions.
package toolexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/scrub"
)

// Statuses of an execution.
const (
	StatusOK           = "ok"
	StatusHTTPError    = "http_error"    // the service answered with a non-2xx status
	StatusInvalidInput = "invalid_input" // nothing was sent
	StatusRefused      = "refused"       // a permission stopped it: host, redirect, private address
	StatusTooLarge     = "too_large"     // the response passed the size cap
	StatusTimeout      = "timeout"
	StatusUnavailable  = "unavailable" // the service could not be reached
	StatusError        = "error"
	StatusInterrupted  = "interrupted" // the caller cancelled it (SIGINT, an MCP client's cancellation)
)

// NotApprovedError is a tool version that exists but may not run: not
// approved, or (Changed) approved but its stored spec is no longer the one
// that was approved.
type NotApprovedError struct {
	exitcode.InputClass
	Ref, State string
	// Changed is the stored spec's sha256 when it is not Approved, the
	// sha256 of the spec that was imported and approved.
	Changed, Approved string
}

func (e *NotApprovedError) Error() string {
	if e.Changed != "" {
		return fmt.Sprintf("%s is approved, but its stored spec changed since (sha256 %s, approved %s): only the spec that was approved runs (review it with helix tool show; import it as a new version and approve that)",
			e.Ref, short(e.Changed), short(e.Approved))
	}
	return fmt.Sprintf("%s is %s: only an approved tool runs (review it with helix tool show, approve it with helix tool approve)", e.Ref, e.State)
}

func short(sha string) string { return sha[:min(len(sha), 12)] }

// InputError is a tool input that does not match the tool's parameters.
type InputError struct {
	exitcode.InputClass
	Msg string
}

func (e *InputError) Error() string { return e.Msg }

// RuntimeError is a container tool without a usable container runtime, or a
// tool whose credentials are not configured: the operator must act (exit 2).
type RuntimeError struct {
	exitcode.InputClass
	Msg string
}

func (e *RuntimeError) Error() string { return e.Msg }

// Load returns the approved version of a tool: the given version, or the
// approved one when version is "". Any other state is a NotApprovedError.
func Load(ctx context.Context, q db.Querier, name, version string) (*manifest.Tool, error) {
	return LoadFor(ctx, q, name, version, owner.Shared)
}

// LoadFor is Load for o: the user's own tool of that name, else the shared
// one (package owner); another user's is not found.
func LoadFor(ctx context.Context, q db.Querier, name, version string, o owner.Owner) (*manifest.Tool, error) {
	if version == "" {
		// the user's own name shadows a shared one as a whole: their
		// unapproved `weather` does not fall back to the shared one
		err := q.QueryRow(ctx, `SELECT version FROM tool_manifests WHERE name = $1 AND state = 'approved'
			AND user_id IS NOT DISTINCT FROM (SELECT user_id FROM tool_manifests WHERE name = $1 AND `+owner.Visible("user_id", 2)+`
				ORDER BY `+owner.OwnFirst("user_id")+` LIMIT 1)
			ORDER BY id DESC LIMIT 1`, name, o.Arg()).Scan(&version)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, err
		}
	}
	t, err := manifest.ShowFor(ctx, q, name, version, o)
	if err != nil {
		return nil, err
	}
	if t.State != manifest.Approved {
		return nil, &NotApprovedError{Ref: t.Name + "@" + t.Version, State: t.State}
	}
	// The row's sha256 is the digest of the spec as imported and approved
	// (it never changes for a name@version): a spec edited in place since
	// hashes otherwise and does not run.
	sha, _, err := manifest.Digest(t.Manifest)
	if err != nil {
		return nil, fmt.Errorf("digest of %s@%s: %w", t.Name, t.Version, err)
	}
	if sha != t.SHA256 {
		return nil, &NotApprovedError{Ref: t.Name + "@" + t.Version, State: t.State, Changed: sha, Approved: t.SHA256}
	}
	return t, nil
}

// Options are the inputs of one execution.
type Options struct {
	Input  []byte // the JSON document validated against the tool's parameters
	UserID string // "" or a UUID
	// CompositeExecutionID links the audit row to a composite run (0: none).
	CompositeExecutionID int64
	// Client names the program that asked for the run in the audit row
	// ("mcp:Claude Desktop"); "" is the helix CLI.
	Client string
}

// Result is how an execution ended. A tool's failure is a Status with an
// Error, never a Go error; err is for failing to run or record it at all.
type Result struct {
	ExecutionID int64             `json:"execution_id,omitempty"`
	Tool        string            `json:"tool"`
	Version     string            `json:"version"`
	Kind        string            `json:"kind"`
	Status      string            `json:"status"`
	HTTPStatus  int               `json:"http_status,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	ContentType string            `json:"content_type,omitempty"`
	Output      json.RawMessage   `json:"output"`
	// Content is an MCP tool's content blocks as its server sent them
	// (text, image, audio, resource…), for helix mcp serve to pass on typed.
	Content       json.RawMessage `json:"content,omitempty"`
	SchemaErrors  []string        `json:"response_schema_errors,omitempty"`
	Error         string          `json:"error,omitempty"`
	StartedAt     time.Time       `json:"started_at"`
	DurationMS    float64         `json:"duration_ms"`
	BytesSent     int64           `json:"bytes_sent"`
	BytesReceived int64           `json:"bytes_received"`
	// What the run cost where helix can measure it: a skill tool's sandbox
	// run, a container's cgroup. nil for HTTP and MCP tools (the work is the
	// remote service's).
	CPUMS        *float64 `json:"cpu_ms"`
	PeakRSSBytes *int64   `json:"peak_rss_bytes"`
}

// Runner runs tools. The zero value of each field is a safe default except
// HTTP, which every HTTP tool needs.
type Runner struct {
	HTTP      *HTTPRunner
	Skills    SkillRunner      // nil: skill tools fail with a RuntimeError
	Container *ContainerRunner // nil: container tools fail with a RuntimeError
	MCP       *MCPRunner       // nil: MCP tools fail with a RuntimeError
	// ContainerErr says why Container is nil (FindRuntime's error), for the record.
	ContainerErr error
	Now          func() time.Time
}

// SkillRunner runs a tool whose entrypoint is a helix skill.
type SkillRunner interface {
	RunSkill(ctx context.Context, ref string, input []byte, userID string, lim manifest.Limits) (*Result, error)
}

// Kind is the entrypoint's kind: http, skill, container or mcp.
func Kind(m *manifest.Manifest) string {
	switch {
	case m.Entrypoint.HTTP != nil:
		return "http"
	case m.Entrypoint.MCP != nil:
		return "mcp"
	case m.Entrypoint.Container != nil:
		return "container"
	}
	return "skill"
}

// Exec validates the input, runs the tool and records the execution. Input
// that does not match the parameters is an InputError (nothing is sent) and
// is recorded too.
func (r *Runner) Exec(ctx context.Context, q db.Querier, t *manifest.Tool, o Options) (*Result, error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	m := t.Manifest
	res := &Result{Tool: t.Name, Version: t.Version, Kind: Kind(m), StartedAt: now()}
	start := time.Now()
	var runErr error
	input, verr := validateInput(m.Parameters, o.Input)
	switch {
	case verr != nil:
		res.Status, res.Error = StatusInvalidInput, verr.Error()
		runErr = &InputError{Msg: fmt.Sprintf("input to %s@%s: %v", t.Name, t.Version, verr)}
	case res.Kind == "http":
		if r.HTTP == nil {
			runErr = &RuntimeError{Msg: "no HTTP runner"}
			break
		}
		runErr = r.HTTP.run(ctx, t, input, res)
	case res.Kind == "skill":
		if r.Skills == nil {
			runErr = &RuntimeError{Msg: "skill tools need the skill sandbox"}
			break
		}
		lim, _ := m.Permissions.Limits()
		var sr *Result
		if sr, runErr = r.Skills.RunSkill(ctx, m.Entrypoint.Skill, o.Input, o.UserID, lim); sr != nil {
			res.Status, res.Output, res.Error, res.BytesReceived = sr.Status, sr.Output, sr.Error, sr.BytesReceived
			res.CPUMS, res.PeakRSSBytes = sr.CPUMS, sr.PeakRSSBytes
			if sr.Status == StatusOK && m.Returns != nil {
				res.SchemaErrors = checkResponse(m.Returns, sr.Output)
			}
		}
		res.BytesSent = int64(len(o.Input))
	case res.Kind == "container":
		if r.Container == nil {
			runErr = &RuntimeError{Msg: "container tools need docker or podman"}
			if r.ContainerErr != nil {
				runErr = &RuntimeError{Msg: r.ContainerErr.Error()}
			}
			break
		}
		runErr = r.Container.run(ctx, t, o.Input, res)
	case res.Kind == "mcp":
		if r.MCP == nil {
			runErr = &RuntimeError{Msg: "no MCP runner"}
			break
		}
		runErr = r.MCP.run(ctx, t, input, res)
	}
	res.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	var re *RuntimeError
	if errors.As(runErr, &re) {
		// Nothing ran: the operator has to configure something first.
		res.Status, res.Error = StatusError, re.Msg
	}
	if runErr != nil && errors.Is(ctx.Err(), context.Canceled) && res.Status != StatusInvalidInput {
		res.Status = StatusInterrupted
	}
	if res.Status == "" {
		res.Status = StatusError
		if runErr != nil {
			res.Error = runErr.Error()
		}
	}
	if ctx.Err() != nil && res.Status != StatusOK {
		// stopped by a signal (or the caller): whatever the runner made of
		// the cancelled request, the record says interrupted and keeps no output
		res.Status, res.Error, res.Output, res.Content = StatusInterrupted, "interrupted before it finished: "+context.Cause(ctx).Error(), nil, nil
		runErr = ctx.Err()
	}
	if res.Output == nil {
		res.Output = json.RawMessage("null")
	}
	id, err := record(context.WithoutCancel(ctx), q, t, o, res)
	if err != nil {
		return res, fmt.Errorf("record execution of %s@%s: %w", t.Name, t.Version, err)
	}
	res.ExecutionID = id
	return res, runErr
}

// validateInput checks input against the parameters schema and decodes it.
func validateInput(params any, input []byte) (map[string]any, error) {
	if len(strings.TrimSpace(string(input))) == 0 {
		input = []byte("{}")
	}
	v, err := manifest.DecodeInput(input)
	if err != nil {
		return nil, fmt.Errorf("input is not JSON: %v", err)
	}
	ps, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	pv, err := manifest.DecodeInput(ps)
	if err != nil {
		return nil, err
	}
	sch, err := manifest.Compile(pv)
	if err != nil {
		return nil, fmt.Errorf("the tool's parameters schema does not compile: %v", err)
	}
	if err := sch.Validate(v); err != nil {
		return nil, errors.New(validationMessage(err))
	}
	obj, _ := v.(map[string]any)
	return obj, nil
}

// withoutInput is msg with every value of the input in it (a string or
// number of 3 characters or more, also percent-encoded) replaced by "…":
// a schema's message ("'x@y' is not valid email"), a tool's own error text
// or a URL may quote the input, and the audit keeps only its hash.
func withoutInput(msg string, input []byte) string {
	v, err := manifest.DecodeInput(input)
	if err != nil {
		return msg
	}
	var leaves []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			leaves = append(leaves, x, url.QueryEscape(x), url.PathEscape(x), strings.Trim(strconv.Quote(x), `"`))
		case json.Number:
			leaves = append(leaves, x.String())
		}
	}
	walk(v)
	// Longest first, so that a value's encoded form goes before its parts.
	slices.SortFunc(leaves, func(a, b string) int { return len(b) - len(a) })
	for _, l := range leaves {
		if len(l) >= 3 {
			msg = strings.ReplaceAll(msg, l, "…")
		}
	}
	return msg
}

// record writes the audit row. The input is kept as its sha256 only; the
// error without the input's values (withoutInput).
func record(ctx context.Context, q db.Querier, t *manifest.Tool, o Options, res *Result) (int64, error) {
	var user *uuid.UUID
	if o.UserID != "" {
		u, err := uuid.Parse(o.UserID)
		if err != nil {
			return 0, err
		}
		user = &u
	}
	sum := sha256.Sum256(o.Input)
	var comp *int64
	if o.CompositeExecutionID != 0 {
		comp = &o.CompositeExecutionID
	}
	var httpStatus *int
	if res.HTTPStatus != 0 {
		httpStatus = &res.HTTPStatus
	}
	// A tool's error may quote what the service answered: untrusted text,
	// scrubbed (package scrub) and counted like a skill's output.
	var errText *string
	var scrubbed *scrub.Counts
	if res.Error != "" {
		e, c := scrub.Text(withoutInput(res.Error, o.Input))
		errText = &e
		if c.Total() > 0 {
			scrubbed = &c
		}
	}
	var client *string
	if o.Client != "" {
		client = &o.Client
	}
	var id int64
	err := q.QueryRow(ctx, `
		INSERT INTO tool_executions (tool_id, tool_name, tool_version, kind, user_id, composite_execution_id,
		    input_sha256, status, http_status, started_at, duration_ms, bytes_sent, bytes_received, error, client, scrubbed,
		    cpu_ms, peak_rss_bytes)
		VALUES (nullif($15::bigint, 0), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $16, $17, $18)
		RETURNING id`,
		t.Name, t.Version, res.Kind, user, comp, hex.EncodeToString(sum[:]), res.Status, httpStatus,
		res.StartedAt, res.DurationMS, res.BytesSent, res.BytesReceived, errText, client, t.ID, scrubbed,
		res.CPUMS, res.PeakRSSBytes).Scan(&id)
	return id, err
}

// Execution is one row of tool_executions, as tool show lists it.
type Execution struct {
	ID         int64     `json:"id"`
	UserID     string    `json:"user_id,omitempty"`
	Status     string    `json:"status"`
	HTTPStatus int       `json:"http_status,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	DurationMS float64   `json:"duration_ms"`
	// CPUMS and PeakRSSBytes are nil where helix does not measure the work
	// (HTTP and MCP tools) and for runs recorded before it did.
	CPUMS        *float64 `json:"cpu_ms"`
	PeakRSSBytes *int64   `json:"peak_rss_bytes"`
	Error        string   `json:"error,omitempty"`
}

// RecentExecutions returns the last n executions of one tool version, newest first.
func RecentExecutions(ctx context.Context, q db.Querier, name, version string, n int) ([]Execution, error) {
	rows, err := q.Query(ctx, `
SELECT id, coalesce(user_id::text, ''), status, coalesce(http_status, 0), started_at, duration_ms, cpu_ms, peak_rss_bytes, coalesce(error, '')
FROM tool_executions WHERE tool_name = $1 AND tool_version = $2
ORDER BY started_at DESC, id DESC LIMIT $3`, name, version, n)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Execution, error) {
		var e Execution
		err := r.Scan(&e.ID, &e.UserID, &e.Status, &e.HTTPStatus, &e.StartedAt, &e.DurationMS, &e.CPUMS, &e.PeakRSSBytes, &e.Error)
		return e, err
	})
}
