package synccmd

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/syncer"
	"github.com/helixhq/helix/internal/tableprinter"
)

// NewCmdConflicts is the `sync conflicts` group.
func NewCmdConflicts(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "conflicts <command>",
		Short: "List, show and resolve conflicts of manually merged entities",
	}
	cmd.AddCommand(NewCmdConflictsList(f, nil), NewCmdConflictsShow(f, nil), NewCmdConflictsResolve(f, nil))
	return cmd
}

// ConflictsListOptions are the inputs of `sync conflicts list`.
type ConflictsListOptions struct {
	F          *cmdutil.Factory
	EntityType string
	UserID     cmdutil.UserID
	All        bool
}

// NewCmdConflictsList lists open conflicts.
func NewCmdConflictsList(f *cmdutil.Factory, runF func(*ConflictsListOptions) error) *cobra.Command {
	opts := &ConflictsListOptions{F: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List open conflicts",
		Long: `List the conflicts waiting for a person: entities of a manual entity type
that devices edited concurrently. Each has two or more siblings, labelled
A, B, ... (see sync conflicts show). With --include-resolved, resolved and superseded
conflicts are listed too. No conflicts prints "no open conflicts" on stderr
(and {"conflicts": []} with --output json), exit 0.

EXAMPLES
  helix sync conflicts list
  helix sync conflicts list --entity-type skill --include-resolved --output json

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return conflictsListRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.EntityType, "entity-type", "", "only conflicts of this entity type")
	cmdutil.UserIDVar(cmd.Flags(), &opts.UserID, "only conflicts of this user (UUID)")
	cmd.Flags().BoolVar(&opts.All, "include-resolved", false, "include resolved and superseded conflicts")
	cmdutil.Alias(cmd.Flags(), "include-resolved", "all")
	return cmd
}

func conflictsListRun(ctx context.Context, opts *ConflictsListOptions) error {
	f := opts.F
	user := opts.UserID.Ptr()
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	cs, err := syncer.ListConflicts(ctx, pool, syncer.Filter{EntityType: opts.EntityType, UserID: user}, opts.All)
	if err != nil {
		return err
	}
	if cs == nil {
		cs = []syncer.Conflict{}
	}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"conflicts": cs})
	}
	if len(cs) == 0 {
		// no results is a success, but silence looks like a hang or a bug
		what := "no open conflicts"
		if opts.All {
			what = "no conflicts"
		}
		cmdutil.Fprintf(f.IOStreams.ErrOut, "%s\n", what)
		return nil
	}
	tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
	tp.Header("ID", "ENTITY TYPE", "ENTITY", "USER", "SIBLINGS", "STATUS", "UPDATED")
	for _, c := range cs {
		tp.Row(fmt.Sprint(c.ID), c.EntityType, c.EntityID, c.UserID.String(), fmt.Sprint(len(c.Siblings)), c.Status, cmdutil.FormatTime(c.UpdatedAt))
	}
	return tp.Render()
}

// ConflictsShowOptions are the inputs of `sync conflicts show`.
type ConflictsShowOptions struct {
	F  *cmdutil.Factory
	ID int64
}

// NewCmdConflictsShow prints a conflict's siblings.
func NewCmdConflictsShow(f *cmdutil.Factory, runF func(*ConflictsShowOptions) error) *cobra.Command {
	opts := &ConflictsShowOptions{F: f}
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show a conflict's siblings",
		Long: `Show one conflict: the entity, and each sibling with its label, device,
timestamp, vector clock and document (null: that sibling deleted the entity).
An unknown ID exits 2.

EXAMPLES
  helix sync conflicts show 12
  helix sync conflicts show 12 --output json

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			if runF != nil {
				return runF(opts)
			}
			return conflictsShowRun(cmd.Context(), opts)
		},
	}
}

func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, cmdutil.FlagErrorf("invalid conflict ID %q: want a positive number (see helix sync conflicts list)", s)
	}
	return id, nil
}

func conflictsShowRun(ctx context.Context, opts *ConflictsShowOptions) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	c, err := syncer.GetConflict(ctx, pool, opts.ID)
	if err != nil {
		return err
	}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, c)
	}
	out := f.IOStreams.Out
	cmdutil.Fprintf(out, "conflict %d (%s): %s %s of user %s, updated %s\n", c.ID, c.Status, c.EntityType, c.EntityID, c.UserID, cmdutil.FormatTime(c.UpdatedAt))
	for _, s := range c.Siblings {
		cmdutil.Fprintf(out, "\n%s  device %s at %s, clock %s\n  %s\n", s.Label, s.Device, cmdutil.FormatTime(s.TS), clockString(s.Clock), s.Doc)
	}
	if c.Resolution != nil {
		cmdutil.Fprintf(out, "\nresolution %s\n", c.Resolution)
	}
	return nil
}

func clockString(c syncer.Clock) string {
	s := "{"
	for i, d := range c.Devices() {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s:%d", d, c[d])
	}
	return s + "}"
}

// ConflictsResolveOptions are the inputs of `sync conflicts resolve`.
type ConflictsResolveOptions struct {
	F    *cmdutil.Factory
	ID   int64
	Take string
}

// NewCmdConflictsResolve settles a conflict.
func NewCmdConflictsResolve(f *cmdutil.Factory, runF func(*ConflictsResolveOptions) error) *cobra.Command {
	opts := &ConflictsResolveOptions{F: f}
	cmd := &cobra.Command{
		Use:   "resolve ID --take A|B|JSON",
		Short: "Resolve a conflict with one sibling or a new document",
		Long: `Resolve a conflict: --take a sibling's label (A, B, ...) keeps that version,
--take '{"...": ...}' writes a merged document of your own. The choice is
recorded as a change from device "helix" whose vector clock dominates every
sibling, folded into the state at once, so devices that sync it replace
their versions. A closed or unknown conflict, or a --take that is neither a
label nor a JSON object, exits 2.

EXAMPLES
  helix sync conflicts resolve 12 --take B
  helix sync conflicts resolve 12 --take '{"name":"standup","steps":["a","b"]}'

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			if runF != nil {
				return runF(opts)
			}
			return conflictsResolveRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Take, "take", "", "sibling label (A, B, ...) or a JSON object")
	_ = cmd.MarkFlagRequired("take")
	return cmd
}

func conflictsResolveRun(ctx context.Context, opts *ConflictsResolveOptions) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	res, err := syncer.ResolveConflict(ctx, pool, opts.ID, opts.Take, f.Now())
	if err != nil {
		return err
	}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"id": opts.ID, "resolution": res})
	}
	cmdutil.Fprintf(f.IOStreams.Out, "resolved conflict %d with %s (change %d, clock %s)\n", opts.ID, res.Take, res.ChangeID, clockString(res.Clock))
	return nil
}
