package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/size"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/tableprinter"
)

// ShowOptions are the inputs of `skill show`.
type ShowOptions struct {
	IO         *iostreams.IOStreams
	F          *cmdutil.Factory
	Ref        string
	Executions int
	UserID     cmdutil.UserID
}

// NewCmdShow shows one stored skill and its recent executions.
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "show NAME[@VERSION]",
		Short: "Show a stored skill: engine, hash, schema, capabilities, limits, recent runs",
		Long: `Show a stored skill (the latest version unless @VERSION is given): its engine,
size and sha256, its input JSON Schema, capabilities and own limits, and its
most recent executions from the audit (all versions).

With --user-id: the user's own skill of that name, else the shared one (and
only that user's runs of it); another user's skill is not found.

EXAMPLES
  helix skill show openapi-ops
  helix skill show rank@1.2.0 --executions 50 --output json
  helix skill show summary --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if opts.Executions < 0 {
				return cmdutil.FlagErrorf("invalid --executions %d: use 0 or more", opts.Executions)
			}
			if runF != nil {
				return runF(opts)
			}
			return showRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Executions, "executions", 10, "how many recent executions to show")
	cmdutil.OwnerVar(cmd.Flags(), &opts.UserID)
	return cmd
}

// shown is the JSON form of `skill show`.
type shown struct {
	Name         string            `json:"name"`
	Version      string            `json:"version"`
	Engine       skill.Engine      `json:"engine"`
	Size         int               `json:"size"`
	SHA256       string            `json:"sha256"`
	Params       json.RawMessage   `json:"params"`
	Capabilities []string          `json:"capabilities"`
	Limits       map[string]any    `json:"limits"`
	CreatedAt    string            `json:"created_at"`
	SignedBy     *skill.Signer     `json:"signed_by"` // null: unsigned
	Owner        any               `json:"owner"`
	Enabled      bool              `json:"enabled"`
	UsageCount   int64             `json:"usage_count"`
	LastUsedAt   any               `json:"last_used_at"`
	Executions   []skill.Execution `json:"executions"`
}

func showRun(ctx context.Context, opts *ShowOptions) error {
	r, err := skill.ParseRef(opts.Ref)
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
	r.Owner = opts.UserID.Owner()
	s, err := skill.Get(ctx, pool, r)
	if err != nil {
		return usageToInput(err)
	}
	execs, err := skill.RecentExecutionsOf(ctx, pool, s.Name, s.Owner, opts.UserID.Owner(), opts.Executions)
	if err != nil {
		return fmt.Errorf("read executions of %s: %w", s.Name, err)
	}
	out := shown{
		Name: s.Name, Version: s.Version, Engine: s.Engine, Size: len(s.Code), SHA256: s.SHA256,
		Params: s.Params, Capabilities: s.Capabilities, CreatedAt: cmdutil.FormatTime(s.CreatedAt),
		Limits: map[string]any{}, Executions: execs,
		Owner: s.Owner, Enabled: !s.Disabled, UsageCount: s.UsageCount,
	}
	last := "-"
	if s.LastUsedAt != nil {
		out.LastUsedAt, last = cmdutil.FormatTime(*s.LastUsedAt), cmdutil.FormatTime(*s.LastUsedAt)
	}
	sig, err := skill.LoadSignature(ctx, pool, s.ID)
	if err != nil {
		return fmt.Errorf("read signature of %s: %w", s.Name, err)
	}
	if sig != nil {
		out.SignedBy = &sig.Signer
	}
	if s.Limits.Timeout > 0 {
		out.Limits["timeout"] = s.Limits.Timeout.String()
	}
	if s.Limits.MemoryBytes > 0 {
		out.Limits["memory_bytes"] = s.Limits.MemoryBytes
	}
	if s.Limits.OutputBytes > 0 {
		out.Limits["output_bytes"] = s.Limits.OutputBytes
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, out)
	}
	w := opts.IO.Out
	fmt.Fprintf(w, "name:          %s\nversion:       %s\nengine:        %s\nsize:          %d bytes\nsha256:        %s\ncreated:       %s\n",
		out.Name, out.Version, out.Engine, out.Size, out.SHA256, out.CreatedAt)
	fmt.Fprintf(w, "owner:         %s\nenabled:       %t\nuses:          %d (last %s)\n", owner.FromPtr(s.Owner), !s.Disabled, s.UsageCount, last)
	signed := "unsigned"
	if out.SignedBy != nil {
		signed = fmt.Sprintf("%s (%s)", out.SignedBy.Principal, out.SignedBy.Fingerprint)
	}
	fmt.Fprintf(w, "signed by:     %s\n", signed)
	fmt.Fprintf(w, "capabilities:  %s\n", orNone(strings.Join(s.Capabilities, ", ")))
	var lims []string
	for _, k := range []string{"timeout", "memory_bytes", "output_bytes"} {
		if v, ok := out.Limits[k]; ok {
			lims = append(lims, fmt.Sprintf("%s=%v", k, v))
		}
	}
	fmt.Fprintf(w, "own limits:    %s\n", orNone(strings.Join(lims, ", ")))
	if len(s.Params) > 0 {
		fmt.Fprintf(w, "params schema:\n%s\n", indent(string(s.Params)))
	} else {
		fmt.Fprintln(w, "params schema: none (any JSON input)")
	}
	fmt.Fprintf(w, "\nrecent executions (%d):\n", len(execs))
	tp := tableprinter.New(w, opts.IO.IsStdoutTTY())
	tp.Header("ID", "VERSION", "STATUS", "STARTED", "DURATION", "CPU", "PEAK MEM", "REQUESTS", "USER", "ERROR")
	for _, e := range execs {
		cpu, peak := "-", "-"
		if e.CPUMS != nil {
			cpu = fmt.Sprintf("%.1fms", *e.CPUMS)
		}
		if e.PeakRSSBytes != nil {
			peak = size.Format(*e.PeakRSSBytes)
		}
		reqs := "-"
		if e.Requests > 0 || e.Refused > 0 {
			reqs = fmt.Sprint(e.Requests)
			if e.Refused > 0 {
				reqs += fmt.Sprintf(" (%d refused)", e.Refused)
			}
		}
		tp.Row(fmt.Sprint(e.ID), e.Version, string(e.Status), cmdutil.FormatTime(e.StartedAt),
			fmt.Sprintf("%.1fms", e.DurationMS), cpu, peak, reqs, orNone(e.UserID), orNone(e.Error))
	}
	return tp.Render()
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
