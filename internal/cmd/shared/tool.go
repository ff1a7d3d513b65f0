package shared

import (
	"context"
	"time"

	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/toolexec"
)

// ToolEnv is what a tool run takes from the settings and the machine.
type ToolEnv struct {
	Config *config.Config
	DB     db.Querier
	// LookupEnv finds credentials (os.LookupEnv; tests replace it).
	LookupEnv func(string) (string, bool)
	// FindRuntime finds docker or podman (toolexec.FindRuntime; tests replace it).
	FindRuntime  func(context.Context) (*toolexec.ContainerRunner, error)
	Now          func() time.Time
	AllowPrivate bool
	MaxResponse  int64 // also the cap of a request body
	// FilesDir is where multipart file fields given as @PATH are read
	// from ("": none, only base64).
	FilesDir string
}

// Runner is the runner (for tool exec and mcp serve) for a tool of kind (toolexec.Kind): credentials from
// the environment and the config file's tool-credentials, the skill sandbox
// or a container runtime when the kind needs one. close releases the sandbox.
func (e *ToolEnv) Runner(ctx context.Context, kind string) (r *toolexec.Runner, close func(), err error) {
	file, _ := e.Config.Get("tool-credentials").(map[string]any)
	secrets := &toolexec.Secrets{Env: e.LookupEnv, File: file}
	r = &toolexec.Runner{
		HTTP: &toolexec.HTTPRunner{AllowPrivate: e.AllowPrivate, MaxResponse: e.MaxResponse, MaxRequest: e.MaxResponse,
			FilesDir: e.FilesDir, Secrets: secrets},
		MCP: &toolexec.MCPRunner{AllowPrivate: e.AllowPrivate, MaxResponse: e.MaxResponse, Secrets: secrets},
		Now: e.Now,
	}
	close = func() {}
	switch kind {
	case "skill":
		eo, err := SkillExecutorOptions(e.Config)
		if err != nil {
			return nil, nil, err
		}
		x, err := skill.NewExecutor(eo)
		if err != nil {
			return nil, nil, err
		}
		close = func() { x.Close() }
		r.Skills = &toolexec.Skills{X: x, Q: e.DB}
	case "container":
		// Without a runtime, the run is still recorded: refused, with why.
		if rt, err := e.FindRuntime(ctx); err == nil {
			rt.MaxOutput = e.MaxResponse
			r.Container = rt
		} else {
			r.ContainerErr = err
		}
	}
	return r, close, nil
}
