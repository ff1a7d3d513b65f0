package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/safetext"
	"github.com/helixhq/helix/internal/toolexec"
)

// ExecOptions are the inputs of `tool exec`.
type ExecOptions struct {
	IO *iostreams.IOStreams
	F  *cmdutil.Factory
	// LookupEnv finds credentials (os.LookupEnv; tests replace it).
	LookupEnv func(string) (string, bool)
	// FindRuntime finds docker or podman (toolexec.FindRuntime; tests replace it).
	FindRuntime func(context.Context) (*toolexec.ContainerRunner, error)

	Name         string
	Version      string
	Input        string
	UserID       cmdutil.UserID
	AllowPrivate bool
	MaxResponse  string
	FilesDir     string
}

// NewCmdExec runs an approved tool.
func NewCmdExec(f *cmdutil.Factory, runF func(*ExecOptions) error) *cobra.Command {
	opts := &ExecOptions{IO: f.IOStreams, F: f, LookupEnv: os.LookupEnv, FindRuntime: toolexec.FindRuntime}
	cmd := &cobra.Command{
		Use:   "exec NAME[@VERSION] --input JSON|@FILE|-",
		Short: "Run an approved tool within its permissions",
		Long: `Run an approved tool version (without a version, the approved one). A
proposed, revoked or superseded version does not run (exit 2) and nothing is
sent. The input is validated against the tool's parameters schema first.

HTTP tools: the request is built from the input (path, query with the
operation's style/explode, headers, and "body" as JSON, a form or
multipart/form-data) against the recorded server URL. An empty value of a
required path, query or header parameter is refused (exit 2) unless the
operation allows empty values. A multipart file field (format: binary) is
given as @PATH, read from the --files directory only, or as base64; a field
with contentEncoding: base64 is sent as base64 (@PATH is read and encoded).
Request bodies are capped at --max-bytes too. It may only reach the tool's allowed hosts, checked on
every redirect too, never a private or loopback address (unless
--allow-private), within the tool's timeout (30s when it sets none), and the
response is capped at --max-bytes. The result is the status, the headers
that matter and the JSON or text body; a declared response schema is checked
and mismatches are reported (stderr, and response_schema_errors).

Credentials of the tool's security schemes come from the environment,
HELIX_TOOL_<NAME>_<SCHEME> (the tool's whole name, then the namespace it was
imported under: HELIX_TOOL_SWAGGER_PETSTORE_API_KEY serves every
swagger_petstore tool, ns.get_articlesearch.json included), or
the config file's tool-credentials map; never from the command line. They are
never printed, logged or stored.

Skill tools run in the skill sandbox with the manifest's timeout and memory.
Container tools run with docker or podman: no network unless hosts were
granted, 0.5 CPU, 512 MB, read-only root, 1 GB scratch tmpfs, pids limit;
without a working runtime the tool does not run (exit 2).

MCP tools (helix manifest import --mcp-command or --mcp-url) start their stdio
server with an empty environment (PATH only) plus the variables the tool was
granted, or reach their HTTP server at its recorded host only, within the
tool's timeout.

Every execution, refused input included, is recorded in tool_executions
(tool, version, user, input sha256, status, duration, bytes, error).

EXAMPLES
  helix tool exec swagger_petstore.listPets --input '{"limit": 5}'
  helix tool exec swagger_petstore.showPetById@1.0.0 --input '{"petId": "42"}' --output json
  HELIX_TOOL_OPENAI_API_APIKEYAUTH=sk-... helix tool exec openai_api.createModeration --input @moderation.json
  echo '{"q": "x"}' | helix tool exec search --input - --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name, opts.Version = manifest.ParseRef(args[0])
			if opts.Name == "" {
				return cmdutil.FlagErrorf("missing tool name in %q", args[0])
			}
			if _, err := manifest.ParseBytes(opts.MaxResponse); err != nil {
				return cmdutil.FlagErrorf("invalid --max-bytes: %v", err)
			}
			if runF != nil {
				return runF(opts)
			}
			return execRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Input, "input", "{}", "the tool's input: JSON, @FILE, or - for stdin")
	cmdutil.UserIDVar(fl, &opts.UserID, "the user the tool runs for (a UUID), recorded in tool_executions: their own approved tool of the name, else the shared one")
	fl.BoolVar(&opts.AllowPrivate, "allow-private", false, "let HTTP tools reach private and loopback addresses")
	fl.StringVar(&opts.MaxResponse, "max-bytes", "10MiB", "largest response body accepted")
	cmdutil.Alias(fl, "max-bytes", "max-response")
	fl.StringVar(&opts.FilesDir, "files", "", "directory that multipart file fields given as @PATH are read from (none: only base64)")
	return cmd
}

func execRun(ctx context.Context, opts *ExecOptions) error {
	input, err := readInput(opts.Input, opts.IO.In)
	if err != nil {
		return cmdutil.InputError(err)
	}
	cfg, err := opts.F.Config()
	if err != nil {
		return cmdutil.InputError(err)
	}
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
		return err
	}
	t, err := toolexec.LoadFor(ctx, pool, opts.Name, opts.Version, opts.UserID.Owner())
	if err != nil {
		if na := (*toolexec.NotApprovedError)(nil); errors.As(err, &na) {
			return fmt.Errorf("%w; nothing was sent", err)
		}
		return err
	}
	maxResp, _ := manifest.ParseBytes(opts.MaxResponse)
	env := &shared.ToolEnv{Config: cfg, DB: pool, LookupEnv: opts.LookupEnv, FindRuntime: opts.FindRuntime,
		Now: opts.F.Now, AllowPrivate: opts.AllowPrivate, MaxResponse: maxResp, FilesDir: opts.FilesDir}
	r, closeRunner, err := env.Runner(ctx, toolexec.Kind(t.Manifest))
	if err != nil {
		return err
	}
	defer closeRunner()
	res, err := r.Exec(ctx, pool, t, toolexec.Options{Input: input, UserID: opts.UserID.String()})
	if res != nil && res.Status != toolexec.StatusInterrupted {
		if perr := printResult(opts, res); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}

func printResult(opts *ExecOptions, res *toolexec.Result) error {
	if opts.F.Global.JSON() {
		// the findings are the result's response_schema_errors; stderr
		// carries JSON objects only
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	for _, e := range res.SchemaErrors {
		cmdutil.Fprintf(opts.IO.ErrOut, "warning: response does not match the declared schema: %s\n", safetext.Line(e))
	}
	status := res.Status
	if res.HTTPStatus != 0 {
		status = fmt.Sprintf("%s, HTTP %d", status, res.HTTPStatus)
	}
	cmdutil.Fprintf(opts.IO.ErrOut, "%s@%s: %s in %.0f ms (execution %d)\n", res.Tool, res.Version, status, res.DurationMS, res.ExecutionID)
	if string(res.Output) == "null" {
		return nil
	}
	var b bytes.Buffer
	var s string
	if json.Unmarshal(res.Output, &s) == nil {
		b.WriteString(s)
	} else if err := json.Indent(&b, res.Output, "", "  "); err != nil {
		b.Write(res.Output)
	}
	if !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
		b.WriteByte('\n')
	}
	if opts.IO.IsStdoutTTY() { // the tool's own bytes, shown, never interpreted; a pipe gets them as they are
		_, err := io.WriteString(opts.IO.Out, safetext.Text(b.String()))
		return err
	}
	_, err := opts.IO.Out.Write(b.Bytes())
	return err
}

func readInput(arg string, stdin io.Reader) ([]byte, error) {
	switch {
	case arg == "-":
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read input from stdin: %w", err)
		}
		return b, nil
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return nil, fmt.Errorf("read input: %w", err)
		}
		return b, nil
	}
	return []byte(arg), nil
}
