package manifest

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/safetext"
	"github.com/helixhq/helix/internal/toolexec"
)

const mcpHelp = `
MCP servers: --mcp-command 'CMD ARGS...' starts a stdio MCP server (split into
words as a shell would: quote a word with spaces, '/opt/my tools/srv'; nothing
is expanded and no shell runs it; CMD is looked up on PATH and recorded as an
absolute path), --mcp-url URL reaches a Streamable HTTP one; each of the tools
it lists is recorded as proposed, named NAMESPACE.tool (the namespace from the
server's name, or --namespace), at the server's version, with its input schema
as parameters and the server as entrypoint. helix tool exec starts the server
with an empty environment (PATH only) plus the variables named with --mcp-env
(credentials: HELIX_TOOL_<NAME>_<VAR> or tool-credentials), under the tool's
timeout; an HTTP server is reached only at its recorded host.

  helix manifest import --mcp-command 'node /opt/mcp/server-everything/dist/index.js stdio' --namespace everything
  helix manifest import --mcp-url https://mcp.example.com/mcp --mcp-env API_TOKEN
`

func mcpFlags(cmd *cobra.Command, opts *ImportOptions) {
	fl := cmd.Flags()
	fl.StringVar(&opts.MCPCommand, "mcp-command", "", "import the tools of the stdio MCP server this command starts")
	fl.StringVar(&opts.MCPURL, "mcp-url", "", "import the tools of the Streamable HTTP MCP server at this URL")
	fl.StringSliceVar(&opts.MCPEnv, "mcp-env", nil, "variables the MCP server needs (credentials the tools must be granted)")
	cmd.MarkFlagsMutuallyExclusive("mcp-command", "mcp-url")
}

func checkMCPFlags(opts *ImportOptions) error {
	mcp := opts.MCPCommand != "" || opts.MCPURL != ""
	switch {
	case !mcp && len(opts.Targets) == 0:
		return cmdutil.FlagErrorf("nothing to import: give files or URLs, or --mcp-command or --mcp-url")
	case !mcp && len(opts.MCPEnv) > 0:
		return cmdutil.FlagErrorf("--mcp-env goes with --mcp-command or --mcp-url")
	case mcp && opts.Enqueue:
		return cmdutil.FlagErrorf("--enqueue cannot import an MCP server")
	case opts.MCPCommand != "" && strings.TrimSpace(opts.MCPCommand) == "":
		return cmdutil.FlagErrorf("--mcp-command is empty")
	case opts.MCPURL != "" && !manifest.IsURL(opts.MCPURL):
		return cmdutil.FlagErrorf("invalid --mcp-url %q: use an http(s) URL", opts.MCPURL)
	}
	if opts.MCPCommand != "" {
		if _, err := toolexec.ParseCommand(opts.MCPCommand); err != nil {
			return cmdutil.FlagErrorf("invalid --mcp-command %v", err)
		}
	}
	for _, e := range opts.MCPEnv {
		if e == "" || strings.ContainsAny(e, "= \t") {
			return cmdutil.FlagErrorf("invalid --mcp-env %q: a variable name", e)
		}
	}
	return nil
}

// mcpCandidates lists the tools of the MCP server given by --mcp-command or
// --mcp-url (none without them).
func mcpCandidates(ctx context.Context, opts *ImportOptions, max manifest.Maxima) ([]manifest.Candidate, error) {
	if opts.MCPCommand == "" && opts.MCPURL == "" {
		return nil, nil
	}
	srv := toolexec.MCPServer{URL: opts.MCPURL}
	if opts.MCPCommand != "" {
		argv, err := toolexec.ParseCommand(opts.MCPCommand) // checkMCPFlags parsed it already
		if err != nil {
			return nil, cmdutil.FlagErrorf("invalid --mcp-command %v", err)
		}
		path, err := exec.LookPath(argv[0])
		if err != nil {
			return nil, cmdutil.InputError(fmt.Errorf("--mcp-command: %w", err))
		}
		if path, err = filepath.Abs(path); err != nil {
			return nil, cmdutil.InputError(err)
		}
		argv[0] = path
		srv.Command = argv
	} else {
		srv.HTTP = netguard.Client(opts.AllowPrivate, opts.FetchTimeout)
	}
	cctx, cancel := context.WithTimeout(ctx, opts.FetchTimeout)
	defer cancel()
	cs, err := toolexec.ConnectMCP(cctx, srv)
	if err != nil {
		if cs != nil && cs.Stderr() != "" {
			err = fmt.Errorf("%w (server stderr: %s)", err, cs.Stderr())
		}
		return nil, fmt.Errorf("connect to the MCP server: %w (nothing was imported)", err)
	}
	defer cs.Close()
	cands, warns, err := manifest.FromMCP(cctx, cs.ClientSession, manifest.MCPOptions{Command: srv.Command, URL: opts.MCPURL,
		Namespace: opts.Namespace, Env: opts.MCPEnv, Timeout: opts.ToolTimeout, Maxima: max})
	if err != nil {
		return nil, fmt.Errorf("%w (nothing was imported)", cs.Explain(err))
	}
	asJSON := opts.F.Global.JSON() // stderr carries JSON objects only: log lines
	for _, w := range warns {
		if asJSON {
			opts.F.Logger().Warn(firstLine(w.Message), "source", "MCP server", "pointer", w.Pointer)
			continue
		}
		cmdutil.Fprintf(opts.IO.ErrOut, "warning: MCP server#%s: %s\n", safetext.Line(w.Pointer), safetext.Line(firstLine(w.Message)))
	}
	if len(cands) == 0 {
		if asJSON {
			opts.F.Logger().Warn("the MCP server lists no tools to import")
		} else {
			cmdutil.Fprintf(opts.IO.ErrOut, "the MCP server lists no tools to import\n")
		}
	}
	return cands, nil
}
