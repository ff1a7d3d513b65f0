package skill

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/tableprinter"
)

// ListOptions are the inputs of `skill list`.
type ListOptions struct {
	IO  *iostreams.IOStreams
	F   *cmdutil.Factory
	All bool
}

// NewCmdList lists the stored skills.
func NewCmdList(f *cmdutil.Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List stored skills (latest versions)",
		Long: `List the stored skills: the latest version of each, or every version with --all-versions.
Columns: name, version, engine, size, versions stored, capabilities, created.

EXAMPLES
  helix skill list
  helix skill list --all-versions --output json

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
	return cmd
}

func listRun(ctx context.Context, opts *ListOptions) error {
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	list, err := skill.List(ctx, pool, opts.All)
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
	tp.Header("NAME", "VERSION", "ENGINE", "SIZE", "VERSIONS", "CAPABILITIES", "CREATED")
	for _, s := range list {
		caps := strings.Join(s.Capabilities, ",")
		if caps == "" {
			caps = "-"
		}
		tp.Row(s.Name, s.Version, string(s.Engine), fmt.Sprint(s.Size), fmt.Sprint(s.Versions), caps, cmdutil.FormatTime(s.CreatedAt))
	}
	return tp.Render()
}
