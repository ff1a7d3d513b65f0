package profilecmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/profile"
)

// ShowOptions are the inputs of `profile show`.
type ShowOptions struct {
	IO     *iostreams.IOStreams
	F      *cmdutil.Factory
	UserID cmdutil.UserID
}

// NewCmdShow builds `helix profile show`.
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "show --user-id UUID",
		Short: "Show a user's profile",
		Long: `Show the profile profile update last built for a user: the integrated
summary, the full_synthesis findings by layer, the top live lineages with
their status and age, and the open recommendations. --output json prints
the stored document (its shape is in README, "Patterns over time and
profiles"). A user without a profile is an error (exit 2).

EXAMPLES
  helix profile show --user-id 11111111-1111-4111-8111-111111111111
  helix profile show --user-id $U -o json

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !opts.UserID.Given {
				return cmdutil.FlagErrorf("give --user-id UUID")
			}
			if runF != nil {
				return runF(opts)
			}
			return showRun(cmd.Context(), opts)
		},
	}
	cmdutil.UserIDVar(cmd.Flags(), &opts.UserID, "the user (UUID)")
	return cmd
}

func showRun(ctx context.Context, opts *ShowOptions) error {
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	st, err := profile.Get(ctx, pool, opts.UserID.ID)
	if errors.Is(err, profile.ErrNotFound) {
		return cmdutil.InputError(fmt.Errorf("no profile for user %s (build it: helix profile update --user-id %s)", opts.UserID.ID, opts.UserID.ID))
	}
	if err != nil {
		return err
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, st)
	}
	var p profile.Profile
	if err := json.Unmarshal(st.Profile, &p); err != nil {
		return fmt.Errorf("profile of user %s: %w", opts.UserID.ID, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "user %s, profile updated %s\n", p.UserID, cmdutil.FormatTime(p.UpdatedAt))
	if p.Summary != nil {
		fmt.Fprintf(&b, "\nSummary (confidence %.2f):\n  %s\n", p.Summary.Confidence, safe(p.Summary.Text))
	} else {
		b.WriteString("\nSummary: none yet\n")
	}
	if len(p.Findings) > 0 {
		b.WriteString("\nFindings:\n")
		for _, f := range p.Findings {
			status := ""
			if f.Status != nil {
				status = ", " + *f.Status
			}
			fmt.Fprintf(&b, "  [%s] %s (%.2f%s): %s\n", f.Layer, safe(f.Title), f.Confidence, status, safe(f.Description))
		}
	}
	b.WriteString("\nLineages:\n")
	if len(p.Lineages) == 0 {
		b.WriteString("  none\n")
	}
	for _, l := range p.Lineages {
		content := ""
		if l.Content != nil {
			content = *l.Content
		}
		fmt.Fprintf(&b, "  %s %s %s, %.1f days, %d runs, %d memories: %s\n", l.Source, l.Kind, l.Status, l.AgeDays, l.RunsSeen, l.Size, safe(content))
	}
	b.WriteString("\nOpen recommendations:\n")
	if len(p.Recommendations) == 0 {
		b.WriteString("  none\n")
	}
	for _, r := range p.Recommendations {
		layer := r.PatternType
		if r.Layer != nil {
			layer += "/" + *r.Layer
		}
		fmt.Fprintf(&b, "  - %s (%s)\n", safe(r.Text), layer)
	}
	_, err = fmt.Fprint(opts.IO.Out, b.String())
	return err
}

// safe shows control characters of model-written text as \xNN, never
// interpreted by the terminal, and a line break as a space.
func safe(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
