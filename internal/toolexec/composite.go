package toolexec

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/helixhq/helix/internal/composite"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/owner"
)

// CompositeTools runs the tool steps of composite skills (composite.ToolRunner).
type CompositeTools struct {
	R *Runner
	Q db.Querier
	// FindRuntime finds docker or podman the first time a container tool runs
	// (nil: container tools cannot run).
	FindRuntime func(context.Context) (*ContainerRunner, error)
	// Client is recorded with each tool execution ("": the helix CLI).
	Client string
	// Owner is whom the steps' tools are resolved for: the user's own
	// approved tool of a name, then the shared one.
	Owner owner.Owner

	once sync.Once
}

// CheckTool reports a tool that is not recorded or not approved.
func (c *CompositeTools) CheckTool(ctx context.Context, ref string) error {
	_, err := c.load(ctx, ref)
	return err
}

func (c *CompositeTools) load(ctx context.Context, ref string) (*manifest.Tool, error) {
	name, version := manifest.ParseRef(ref)
	t, err := LoadFor(ctx, c.Q, name, version, c.Owner)
	var nf *manifest.NotFoundError
	var na *NotApprovedError
	if errors.As(err, &nf) || errors.As(err, &na) {
		return nil, fmt.Errorf("%w: %v", composite.ErrUnknownTool, err)
	}
	return t, err
}

// RunTool runs one step's tool; its audit row names the composite run.
func (c *CompositeTools) RunTool(ctx context.Context, req composite.ExecRequest) (composite.ExecResult, error) {
	t, err := c.load(ctx, req.Tool)
	if err != nil {
		return composite.ExecResult{}, err
	}
	if Kind(t.Manifest) == "container" && c.FindRuntime != nil {
		c.once.Do(func() { c.R.Container, c.R.ContainerErr = c.FindRuntime(ctx) })
	}
	res, err := c.R.Exec(ctx, c.Q, t, Options{Input: req.Input, UserID: req.UserID, CompositeExecutionID: req.CompositeExecutionID, Client: c.Client})
	if res == nil {
		return composite.ExecResult{}, err
	}
	out := composite.ExecResult{Status: res.Status, Output: res.Output, Error: res.Error}
	if res.Status == StatusOK && len(res.SchemaErrors) > 0 {
		out.Status, out.Error = StatusError, "response does not match the declared schema: "+res.SchemaErrors[0]
	}
	// A tool that failed is the step's failure (retried or not by its
	// on_error); only an execution that could not even be recorded stops the run.
	if err != nil && res.ExecutionID == 0 {
		return out, err
	}
	return out, nil
}
