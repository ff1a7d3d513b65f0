// Package tool implements `helix tool list|show|approve|revoke`: the review
// side of the tool lifecycle (proposed → approved → revoked, or superseded).
package tool

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/safetext"
	"github.com/helixhq/helix/internal/size"
	"github.com/helixhq/helix/internal/tableprinter"
	"github.com/helixhq/helix/internal/toolexec"
)

// NewCmdTool is the `tool` group.
func NewCmdTool(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tool <command>",
		Short: "Review imported tools (list, show, approve, revoke) and run approved ones (exec)",
	}
	list := NewCmdList(f, nil)
	_ = list.RegisterFlagCompletionFunc("state", cmdutil.CompleteWords(manifest.States...))
	cmd.AddCommand(list)
	for _, c := range []*cobra.Command{NewCmdShow(f, nil), NewCmdApprove(f, nil), NewCmdRevoke(f, nil), NewCmdExec(f, nil)} {
		c.ValidArgsFunction = cmdutil.CompleteFirstArg(cmdutil.CompleteColumn(f, "tool_manifests", "name", false))
		cmd.AddCommand(c)
	}
	return cmd
}

// Options are the inputs of every `tool` subcommand.
type Options struct {
	IO *iostreams.IOStreams
	F  *cmdutil.Factory

	State   string // list
	Name    string
	Version string
	By      string
	Reason  string
	UserID  cmdutil.UserID
}

func newOptions(f *cmdutil.Factory) *Options { return &Options{IO: f.IOStreams, F: f} }

// NewCmdList lists recorded tool versions.
func NewCmdList(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := newOptions(f)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List tool versions and their lifecycle state",
		Long: `List every recorded tool version, by name and newest version first, with its
state (proposed, approved, revoked, superseded) and the hosts it may reach.

EXAMPLES
  helix tool list
  helix tool list --state proposed
  helix tool list --output json
  helix tool list --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b

With --user-id: that user's own tools and the shared ones (OWNER says whose);
without it, the shared ones only.

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.State != "" && !slices.Contains(manifest.States, opts.State) {
				return cmdutil.FlagErrorf("invalid --state %q: use one of %s", opts.State, strings.Join(manifest.States, ", "))
			}
			if runF != nil {
				return runF(opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.State, "state", "", "only tools in this state: "+strings.Join(manifest.States, ", "))
	cmdutil.OwnerVar(cmd.Flags(), &opts.UserID)
	return cmd
}

func listRun(ctx context.Context, opts *Options) error {
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
		return err
	}
	tools, err := manifest.ListFor(ctx, pool, opts.State, opts.UserID.Owner())
	if err != nil {
		return err
	}
	if opts.F.Global.JSON() {
		if tools == nil {
			tools = []manifest.Tool{}
		}
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"tools": tools})
	}
	if len(tools) == 0 {
		cmdutil.Fprintf(opts.IO.ErrOut, "no tools\n")
		return nil
	}
	tp := tableprinter.New(opts.IO.Out, opts.IO.IsStdoutTTY())
	tp.Header("NAME", "VERSION", "STATE", "HOSTS", "UPDATED", "OWNER")
	for _, t := range tools {
		hosts := strings.Join(t.Hosts, ",")
		if hosts == "" {
			hosts = "none"
		}
		tp.Row(t.Name, t.Version, t.State, hosts, cmdutil.FormatTime(t.UpdatedAt), owner.FromPtr(t.Owner).String())
	}
	return tp.Render()
}

// NewCmdShow prints one tool version with its manifest and audit trail.
func NewCmdShow(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := newOptions(f)
	cmd := &cobra.Command{
		Use:   "show NAME[@VERSION]",
		Short: "Show a tool version: manifest, permissions and audit trail",
		Long: `Show one tool version (the newest when no version is given): its state,
entrypoint, requested permissions and credentials, parameters schema, and every
lifecycle transition with who made it, when and why, and its last 10
executions with what each cost (CPU time and peak memory of skill tools).

EXAMPLES
  helix tool show listPets
  helix tool show listPets@1.0.0 --output json
  helix tool show weather --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name, opts.Version = manifest.ParseRef(args[0])
			if opts.Name == "" {
				return cmdutil.FlagErrorf("missing tool name in %q", args[0])
			}
			if runF != nil {
				return runF(opts)
			}
			return showRun(cmd.Context(), opts)
		},
	}
	cmdutil.OwnerVar(cmd.Flags(), &opts.UserID)
	return cmd
}

func showRun(ctx context.Context, opts *Options) error {
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
		return err
	}
	t, err := manifest.ShowFor(ctx, pool, opts.Name, opts.Version, opts.UserID.Owner())
	if err != nil {
		return err
	}
	execs, err := toolexec.RecentExecutions(ctx, pool, t.Name, t.Version, recentExecutions)
	if err != nil {
		return err
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, struct {
			*manifest.Tool
			Executions []toolexec.Execution `json:"executions"`
		}{t, execs})
	}
	if err := printTool(opts.IO.Out, t); err != nil {
		return err
	}
	return printExecutions(opts.IO.Out, execs, opts.IO.IsStdoutTTY())
}

// recentExecutions is how many of a version's runs tool show lists.
const recentExecutions = 10

// printExecutions lists a version's last runs with what each cost (CPU and
// peak memory where helix measures them: skill tools).
func printExecutions(w io.Writer, execs []toolexec.Execution, tty bool) error {
	if _, err := fmt.Fprintf(w, "recent executions (%d):\n", len(execs)); err != nil || len(execs) == 0 {
		return err
	}
	tp := tableprinter.New(w, tty)
	tp.Header("ID", "STATUS", "STARTED", "DURATION", "CPU", "PEAK MEM", "USER", "ERROR")
	for _, e := range execs {
		cpu, peak, user, errText := "-", "-", "-", "-"
		if e.CPUMS != nil {
			cpu = fmt.Sprintf("%.1fms", *e.CPUMS)
		}
		if e.PeakRSSBytes != nil {
			peak = size.Format(*e.PeakRSSBytes)
		}
		if e.UserID != "" {
			user = e.UserID
		}
		if e.Error != "" {
			errText = firstLine(e.Error)
		}
		status := e.Status
		if e.HTTPStatus != 0 {
			status += fmt.Sprintf(" (%d)", e.HTTPStatus)
		}
		tp.Row(fmt.Sprint(e.ID), status, cmdutil.FormatTime(e.StartedAt), fmt.Sprintf("%.1fms", e.DurationMS), cpu, peak, user, errText)
	}
	return tp.Render()
}

// printTool shows a version for review: above all what approving it lets
// run (a local command, a URL, a container) and with what limits. Every
// text that came from outside (the manifest is what a document or a server
// said) is escaped: a description cannot clear the screen or forge a line.
func printTool(w io.Writer, t *manifest.Tool) error {
	m := t.Manifest
	q := safetext.Line
	var b strings.Builder
	fmt.Fprintf(&b, "%s@%s  %s\n", q(t.Name), q(t.Version), t.State)
	if m.Title != "" {
		fmt.Fprintf(&b, "title:       %s\n", q(m.Title))
	}
	fmt.Fprintf(&b, "source:      %s\n", q(t.Source))
	fmt.Fprintf(&b, "sha256:      %s\n", t.SHA256)
	fmt.Fprintf(&b, "owner:       %s\n", owner.FromPtr(t.Owner))
	if m.Description != "" {
		fmt.Fprintf(&b, "description: %s\n", q(firstLine(m.Description)))
	}
	p := m.Permissions
	hosts := strings.Join(p.Network, ", ")
	if hosts == "" {
		hosts = "none"
	}
	switch e := m.Entrypoint; {
	case e.HTTP != nil:
		fmt.Fprintf(&b, "entrypoint:  http %s %s\n", q(e.HTTP.Method), q(e.HTTP.URL))
	case e.Container != nil:
		fmt.Fprintf(&b, "entrypoint:  container %s %s\n", q(e.Container.Image), q(strings.Join(e.Container.Command, " ")))
	case e.MCP != nil && len(e.MCP.Command) > 0:
		fmt.Fprintf(&b, "entrypoint:  mcp tool %s of the stdio MCP server this command starts\n", q(e.MCP.Tool))
		fmt.Fprintf(&b, "command:     %s\n", q(shellQuote(e.MCP.Command)))
		fmt.Fprintf(&b, "sandbox:     none: the command runs as helix's user, with PATH and the granted credentials as its only environment\n")
		hosts = "not limited: the command reaches what it wants"
	case e.MCP != nil:
		fmt.Fprintf(&b, "entrypoint:  mcp tool %s of the Streamable HTTP MCP server at %s\n", q(e.MCP.Tool), q(e.MCP.URL))
	default:
		fmt.Fprintf(&b, "entrypoint:  skill %s\n", q(e.Skill))
	}
	fmt.Fprintf(&b, "network:     %s\n", q(hosts))
	for _, kv := range []struct {
		k string
		v any
	}{{"storage", p.Storage}, {"cpu", p.CPU}, {"memory", p.Memory}, {"timeout", p.Timeout}} {
		if kv.v != nil && kv.v != "" {
			fmt.Fprintf(&b, "%-12s %s\n", kv.k+":", q(fmt.Sprint(kv.v)))
		}
	}
	for i, set := range m.Credentials {
		var names []string
		for _, c := range set {
			names = append(names, c.Scheme+" ("+c.Type+")")
		}
		label := "credentials:"
		if i > 0 {
			label = "  or"
		}
		fmt.Fprintf(&b, "%-12s %s\n", label, q(strings.Join(names, " + ")))
	}
	if len(m.Tags) > 0 {
		fmt.Fprintf(&b, "tags:        %s\n", q(strings.Join(m.Tags, ", ")))
	}
	if ps := paramSummary(m.Parameters); ps != "" {
		fmt.Fprintf(&b, "parameters:  %s\n", q(ps))
	}
	for _, n := range m.Notes {
		fmt.Fprintf(&b, "note:        %s\n", q(n))
	}
	b.WriteString("audit:\n")
	for _, a := range t.Audit {
		fmt.Fprintf(&b, "  %s  %-10s %s → %s  %s\n", cmdutil.FormatTime(a.At), q(a.Actor), a.From, a.To, q(a.Reason))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shellQuote is argv as a POSIX shell would take it: a word with anything
// but letters, digits and -_./=:@,+ is quoted.
func shellQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@,+") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// NewCmdApprove approves a proposed tool version.
func NewCmdApprove(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := newOptions(f)
	cmd := &cobra.Command{
		Use:   "approve NAME@VERSION",
		Short: "Approve a proposed tool version",
		Long: `Approve a proposed tool version with the permissions it requests. Older
approved versions of the same tool become superseded. Only a proposed version
can be approved (exit 2 otherwise).

With --user-id a user approves their own tool (imported with manifest import
--user-id): it runs only for them, within the permissions it requests. Shared
tools stay the operator's to approve; a user approving one, or another user's,
is told it is not found.

EXAMPLES
  helix tool approve listPets@1.0.0
  helix tool approve weather@1.1.0 --by alice --reason "reviewed hosts"
  helix tool approve my-notes@1.0.0 --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name, opts.Version = manifest.ParseRef(args[0])
			if opts.Name == "" || opts.Version == "" {
				return cmdutil.FlagErrorf("approve needs NAME@VERSION, got %q", args[0])
			}
			if opts.By == "" {
				opts.By = manifest.DefaultActor()
			}
			if runF != nil {
				return runF(opts)
			}
			return approveRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.By, "by", "", "who approves, for the audit trail (default: the current user)")
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "why, for the audit trail")
	cmdutil.UserIDVar(cmd.Flags(), &opts.UserID, "approve this user's own tool (UUID); without it, a shared one")
	return cmd
}

func approveRun(ctx context.Context, opts *Options) error {
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
		return err
	}
	t, err := manifest.ApproveFor(ctx, pool, opts.Name, opts.Version, opts.UserID.Owner(), opts.By, opts.Reason, opts.F.Now())
	if err != nil {
		return err
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, t)
	}
	_, err = fmt.Fprintf(opts.IO.Out, "approved %s@%s (by %s)\n", t.Name, t.Version, opts.By)
	return err
}

// NewCmdRevoke revokes one or every version of a tool.
func NewCmdRevoke(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := newOptions(f)
	cmd := &cobra.Command{
		Use:   "revoke NAME[@VERSION] --reason TEXT",
		Short: "Revoke a tool version, or every live version of a tool",
		Long: `Revoke a proposed or approved tool version; without a version, every
proposed and approved version of the tool. A reason is required and goes to the
audit trail. A revoked version stays revoked: import a new version to propose
the tool again.

EXAMPLES
  helix tool revoke listPets@1.0.0 --reason "leaks customer ids"
  helix tool revoke weather --reason "provider shut down" --by alice
  helix tool revoke my-notes --reason "not needed" --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name, opts.Version = manifest.ParseRef(args[0])
			if opts.Name == "" {
				return cmdutil.FlagErrorf("missing tool name in %q", args[0])
			}
			if strings.TrimSpace(opts.Reason) == "" {
				return cmdutil.FlagErrorf("--reason is required")
			}
			if opts.By == "" {
				opts.By = manifest.DefaultActor()
			}
			if runF != nil {
				return runF(opts)
			}
			return revokeRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.By, "by", "", "who revokes, for the audit trail (default: the current user)")
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "why (required)")
	cmdutil.UserIDVar(cmd.Flags(), &opts.UserID, "revoke this user's own tool (UUID); without it, a shared one")
	return cmd
}

func revokeRun(ctx context.Context, opts *Options) error {
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
		return err
	}
	changes, err := manifest.RevokeFor(shared.WithNotify(ctx, opts.F), pool, opts.Name, opts.Version, opts.UserID.Owner(), opts.By, opts.Reason, opts.F.Now())
	if err != nil {
		return err
	}
	if opts.F.Global.JSON() {
		if changes == nil {
			changes = []manifest.Change{}
		}
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"revoked": changes})
	}
	for _, c := range changes {
		if _, err := fmt.Fprintf(opts.IO.Out, "revoked %s@%s\n", c.Name, c.Version); err != nil {
			return err
		}
	}
	return nil
}

// paramSummary lists the top-level parameters, "*" marking required ones.
func paramSummary(schema any) string {
	s, _ := schema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	req := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, x := range r {
			if n, ok := x.(string); ok {
				req[n] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	for i, n := range names {
		if p, ok := props[n].(map[string]any); ok && p["x-helix-in"] != nil {
			n += " (" + fmt.Sprint(p["x-helix-in"]) + ")"
		}
		if req[names[i]] {
			n += "*"
		}
		names[i] = n
	}
	return strings.Join(names, ", ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
