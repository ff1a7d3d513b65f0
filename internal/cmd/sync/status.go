package synccmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/syncer"
	"github.com/helixhq/helix/internal/tableprinter"
)

// StatusOptions are the inputs of `sync status`.
type StatusOptions struct {
	F *cmdutil.Factory
}

// NewCmdStatus shows the backlog per entity type.
func NewCmdStatus(f *cmdutil.Factory, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{F: f}
	return &cobra.Command{
		Use:   "status",
		Short: "Show pending changes and open conflicts per entity type",
		Long: `Show, per entity type, its merge strategy, how many changes wait for
reconcile (and on how many entities), when the oldest of them arrived, and
how many conflicts wait for a person. Nothing pending prints nothing (exit 0).

EXAMPLES
  helix sync status
  helix sync status --output json

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return statusRun(cmd.Context(), opts)
		},
	}
}

func statusRun(ctx context.Context, opts *StatusOptions) error {
	f := opts.F
	cfg, err := f.Config()
	if err != nil {
		return cmdutil.InputError(err)
	}
	strats, err := shared.SyncStrategies(cfg)
	if err != nil {
		return err
	}
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	bs, err := syncer.Status(ctx, pool, strats)
	if err != nil {
		return err
	}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"entity_types": bs})
	}
	var pending int64
	for _, b := range bs {
		pending += b.Pending
	}
	if pending == 0 {
		// an empty table says nothing a person can tell from a failure
		cmdutil.Fprintf(f.IOStreams.ErrOut, "No pending changes.\n")
	}
	tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
	tp.Header("ENTITY TYPE", "STRATEGY", "PENDING", "ENTITIES", "OLDEST", "OPEN CONFLICTS")
	for _, b := range bs {
		oldest := "-"
		if b.Oldest != nil {
			oldest = cmdutil.FormatTime(*b.Oldest)
		}
		tp.Row(b.EntityType, string(b.Strategy), fmt.Sprint(b.Pending), fmt.Sprint(b.Entities), oldest, fmt.Sprint(b.OpenConflicts))
	}
	return tp.Render()
}
