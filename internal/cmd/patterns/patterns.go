// Package patterns implements `helix patterns list|show`: a user's patterns,
// statistical (memory_synthesis) and LLM-found (memory_patterns), without SQL.
package patterns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/patterns"
	"github.com/helixhq/helix/internal/safetext"
	"github.com/helixhq/helix/internal/tableprinter"
)

// NewCmdPatterns builds `helix patterns`.
func NewCmdPatterns(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "patterns <command>",
		Short: "List and show a user's patterns, statistical and LLM-found",
	}
	cmd.AddCommand(NewCmdList(f, nil), NewCmdShow(f, nil))
	return cmd
}

// ListOptions are the inputs of `patterns list`.
type ListOptions struct {
	F      *cmdutil.Factory
	UserID cmdutil.UserID
	Type   string
	Since  string
	Limit  int

	since time.Time
}

// NewCmdList builds `patterns list`.
func NewCmdList(f *cmdutil.Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{F: f}
	cmd := &cobra.Command{
		Use:   "list --user-id UUID",
		Short: "List a user's patterns, newest first",
		Long: `List a user's patterns, newest first: the statistical ones helix synthesize
writes (memory_synthesis, source "statistical") and the ones an LLM found
(helix synthesize --llm, or the platform: memory_patterns, source "llm"),
each with its type, confidence, the ids of the memories it rests on
(evidence_ids), the algorithm or model that found it, the run that wrote it
and when. helix rewrites a user's patterns on each synthesis: created_at is
when the pattern was last written. Only the user's own patterns are listed.

EXAMPLES
  helix patterns list --user-id 11111111-1111-4111-8111-111111111111
  helix patterns list --user-id 11111111-1111-4111-8111-111111111111 --type recurring_theme --since 30d -o json

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit < 0 {
				return cmdutil.FlagErrorf("invalid --limit %d: want 0 (all) or more", opts.Limit)
			}
			if opts.Since != "" {
				t, err := shared.ParseSince(opts.Since, f.Now())
				if err != nil {
					return err
				}
				opts.since = t
			}
			if runF != nil {
				return runF(opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
	cmdutil.UserIDVar(cmd.Flags(), &opts.UserID, "the user whose patterns to list (UUID, required)")
	cmd.Flags().StringVar(&opts.Type, "type", "", "only patterns of this type (pattern_type)")
	cmd.Flags().StringVar(&opts.Since, "since", "", "only patterns written since this RFC 3339 time or age (30d, 12h)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 0, "at most this many patterns (0: all)")
	_ = cmd.MarkFlagRequired("user-id")
	return cmd
}

func listRun(ctx context.Context, opts *ListOptions) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	ps, err := patterns.List(ctx, pool, patterns.Filter{UserID: opts.UserID.ID, Type: opts.Type, Since: opts.since, Limit: opts.Limit})
	if err != nil {
		return err
	}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"user_id": opts.UserID.ID, "patterns": ps})
	}
	if len(ps) == 0 {
		cmdutil.Fprintf(f.IOStreams.ErrOut, "no patterns\n")
		return nil
	}
	tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
	tp.Header("ID", "SOURCE", "TYPE", "CONFIDENCE", "EVIDENCE", "ALGORITHM", "CREATED", "LINEAGE", "CONTENT")
	for _, p := range ps {
		tp.Row(p.ID.String(), p.Source, str(p.Type), conf(p.Confidence), strconv.Itoa(len(p.EvidenceIDs)), str(p.Algorithm),
			cmdutil.FormatTime(p.CreatedAt), lineageOf(p), content(p, 80))
	}
	return tp.Render()
}

// ShowOptions are the inputs of `patterns show`.
type ShowOptions struct {
	F      *cmdutil.Factory
	ID     uuid.UUID
	UserID cmdutil.UserID
}

// NewCmdShow builds `patterns show`.
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{F: f}
	cmd := &cobra.Command{
		Use:   "show ID --user-id UUID",
		Short: "Show one of a user's patterns in full",
		Long: `Show one of a user's patterns in full: its content, every evidence id,
confidence, algorithm and run. A pattern of another user is not found
(exit 2), like one that does not exist.

EXAMPLES
  helix patterns show 5b0e…  --user-id 11111111-1111-4111-8111-111111111111 -o json

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := uuid.Parse(args[0])
			if err != nil {
				return cmdutil.FlagErrorf("invalid pattern id %q: want a UUID (see helix patterns list)", args[0])
			}
			opts.ID = id
			if runF != nil {
				return runF(opts)
			}
			return showRun(cmd.Context(), opts)
		},
	}
	cmdutil.UserIDVar(cmd.Flags(), &opts.UserID, "the user the pattern belongs to (UUID, required)")
	_ = cmd.MarkFlagRequired("user-id")
	return cmd
}

func showRun(ctx context.Context, opts *ShowOptions) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	p, err := patterns.Get(ctx, pool, opts.UserID.ID, opts.ID)
	if errors.Is(err, patterns.ErrNotFound) {
		return cmdutil.InputError(fmt.Errorf("no pattern %s for user %s (see helix patterns list --user-id %s)", opts.ID, opts.UserID.ID, opts.UserID.ID))
	}
	if err != nil {
		return err
	}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, p)
	}
	run := "-"
	if p.RunID != nil {
		run = strconv.FormatInt(*p.RunID, 10)
	}
	fmt.Fprintf(f.IOStreams.Out, "id:\t%s\nuser:\t%s\nsource:\t%s\ntype:\t%s\nconfidence:\t%s\nalgorithm:\t%s\nrun:\t%s\ncreated:\t%s\nlineage:\t%s\nevidence:\t%s\ncontent:\t%s\n",
		p.ID, p.UserID, p.Source, safetext.Line(str(p.Type)), conf(p.Confidence), safetext.Line(str(p.Algorithm)), run,
		cmdutil.FormatTime(p.CreatedAt), lineageOf(p), safetext.Line(strings.Join(p.EvidenceIDs, " ")), safetext.Line(content(p, 0)))
	return nil
}

// lineageOf is "<status> since <first seen>, <n> runs (<id>)", or "-".
func lineageOf(p patterns.Pattern) string {
	l := p.Lineage
	if l == nil {
		return "-"
	}
	return fmt.Sprintf("%s since %s, %s (%s)", l.Status, cmdutil.FormatTime(l.FirstSeenAt), cmdutil.Count(l.RunsSeen, "run", ""), l.ID)
}

func str(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}

func conf(c *float64) string {
	if c == nil {
		return "-"
	}
	return strconv.FormatFloat(*c, 'f', 2, 64)
}

// content is a statistical pattern's text, or an LLM pattern's JSON, cut
// to max runes (0: whole).
func content(p patterns.Pattern, max int) string {
	s := string(p.Content)
	var text string
	if p.Source == patterns.Statistical && json.Unmarshal(p.Content, &text) == nil {
		s = text
	}
	if r := []rune(s); max > 0 && len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
