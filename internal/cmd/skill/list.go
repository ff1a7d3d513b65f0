package skill

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/tableprinter"
)

// ListOptions are the inputs of `skill list`.
type ListOptions struct {
	IO     *iostreams.IOStreams
	F      *cmdutil.Factory
	All    bool
	UserID cmdutil.UserID
}

// NewCmdList lists the stored skills.
func NewCmdList(f *cmdutil.Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List stored skills (latest versions)",
		Long: `List the stored skills: the latest version of each, or every version with --all-versions.
Columns: name, version, engine, size, versions stored, capabilities, created,
owner (shared, or the user's UUID), enabled, uses (executions) and last used.

With --user-id: that user's own skills and the shared ones (never another
user's); without it, the shared ones only.

EXAMPLES
  helix skill list
  helix skill list --all-versions --output json
  helix skill list --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all-versions", false, "list every version, not only the latest")
	cmdutil.Alias(cmd.Flags(), "all-versions", "all")
	cmdutil.OwnerVar(cmd.Flags(), &opts.UserID)
	return cmd
}

func listRun(ctx context.Context, opts *ListOptions) error {
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
		return err
	}
	list, err := skill.ListFor(ctx, pool, opts.All, opts.UserID.Owner())
	if err != nil {
		return err
	}
	if opts.F.Global.JSON() {
		if list == nil {
			list = []skill.Summary{}
		}
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"skills": list})
	}
	tp := tableprinter.New(opts.IO.Out, opts.IO.IsStdoutTTY())
	tp.Header("NAME", "VERSION", "ENGINE", "SIZE", "VERSIONS", "CAPABILITIES", "CREATED", "OWNER", "ENABLED", "USES", "LAST USED")
	for _, s := range list {
		caps := strings.Join(s.Capabilities, ",")
		if caps == "" {
			caps = "-"
		}
		last := "-"
		if s.LastUsedAt != nil {
			last = cmdutil.FormatTime(*s.LastUsedAt)
		}
		tp.Row(s.Name, s.Version, string(s.Engine), fmt.Sprint(s.Size), fmt.Sprint(s.Versions), caps, cmdutil.FormatTime(s.CreatedAt),
			owner.FromPtr(s.Owner).String(), fmt.Sprint(s.Enabled), fmt.Sprint(s.UsageCount), last)
	}
	return tp.Render()
}
