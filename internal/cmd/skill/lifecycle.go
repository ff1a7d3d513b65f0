package skill

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/skill"
)

// LifecycleOptions are the inputs of `skill enable`, `skill disable` and `skill remove`.
type LifecycleOptions struct {
	IO     *iostreams.IOStreams
	F      *cmdutil.Factory
	Ref    string
	UserID cmdutil.UserID
	Yes    bool
	Action string // enable, disable, remove
}

// NewCmdEnable switches a stored skill back on.
func NewCmdEnable(f *cmdutil.Factory, runF func(*LifecycleOptions) error) *cobra.Command {
	return newLifecycle(f, runF, "enable", "Let a disabled skill run again", `Enable a stored skill (every version, or NAME@VERSION) that skill disable
switched off. With --user-id: that user's own skill; without it, the shared one.
A user cannot switch a shared skill on or off, and another user's skill is not
found.

EXAMPLES
  helix skill enable summary --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b
  helix skill enable openapi-ops
`)
}

// NewCmdDisable refuses every exec of a stored skill until it is enabled.
func NewCmdDisable(f *cmdutil.Factory, runF func(*LifecycleOptions) error) *cobra.Command {
	return newLifecycle(f, runF, "disable", "Refuse every run of a skill until it is enabled", `Disable a stored skill (every version, or NAME@VERSION): skill exec, composite
steps, tools and MCP refuse it (exit 2, saying it is disabled) until skill
enable. With --user-id: that user's own skill; without it, the shared one. A
user cannot switch a shared skill off for everyone, and another user's skill
is not found.

EXAMPLES
  helix skill disable summary --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b
  helix skill disable rank@1.2.0
`)
}

// NewCmdRemove deletes a stored skill.
func NewCmdRemove(f *cmdutil.Factory, runF func(*LifecycleOptions) error) *cobra.Command {
	cmd := newLifecycle(f, runF, "remove", "Delete a stored skill (every version, or one)", `Delete a stored skill: every version, or only NAME@VERSION. Its executions
stay in the audit. With --user-id: that user's own skill; without it, the
shared one. A user cannot remove a shared skill, and another user's skill is
not found. Needs --yes.

EXAMPLES
  helix skill remove summary --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b --yes
  helix skill remove rank@1.2.0 --yes
`)
	return cmd
}

func newLifecycle(f *cmdutil.Factory, runF func(*LifecycleOptions) error, action, short, long string) *cobra.Command {
	opts := &LifecycleOptions{IO: f.IOStreams, F: f, Action: action}
	cmd := &cobra.Command{
		Use:   action + " NAME[@VERSION]",
		Short: short,
		Long:  long + "\n" + cmdutil.ExitStatusDB,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(opts)
			}
			return lifecycleRun(cmd.Context(), opts)
		},
	}
	cmdutil.UserIDVar(cmd.Flags(), &opts.UserID, "the user whose own skill to "+action+" (UUID); without it, the shared one")
	if action == "remove" {
		cmd.Flags().BoolVar(&opts.Yes, "yes", false, "confirm the removal")
	}
	return cmd
}

func lifecycleRun(ctx context.Context, opts *LifecycleOptions) error {
	r, err := skill.ParseRef(opts.Ref)
	if err != nil {
		return cmdutil.InputError(err)
	}
	r.Owner = opts.UserID.Owner()
	if opts.Action == "remove" {
		if err := cmdutil.Confirm(opts.IO, opts.F.Global.JSON(), opts.Yes, "removing skill "+r.String()+" deletes its code"); err != nil {
			return err
		}
	}
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOwner(ctx, pool, r.Owner); err != nil {
		return err
	}
	var n int64
	switch opts.Action {
	case "remove":
		n, err = skill.Remove(ctx, pool, r)
	default:
		n, err = skill.SetEnabled(ctx, pool, r, opts.Action == "enable")
	}
	if err != nil {
		return usageToInput(err)
	}
	past := map[string]string{"enable": "enabled", "disable": "disabled", "remove": "removed"}[opts.Action]
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"skill": r.String(), "owner": r.Owner.Ptr(), opts.Action + "d": true, "versions": n})
	}
	_, err = fmt.Fprintf(opts.IO.Out, "%s %s (%s, %d version(s))\n", past, r, r.Owner, n)
	return err
}
