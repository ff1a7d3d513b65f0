// Package audit implements `helix audit verify|anchor`: proof that the audit
// tables are as helix wrote them (package audit).
package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/audit"
	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/notify"
	"github.com/helixhq/helix/internal/tableprinter"
)

// NewCmdAudit builds `helix audit`.
func NewCmdAudit(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Prove the audit tables unchanged: verify their hash chains, print anchors",
		Long: `Every finished row of helix's audit tables (tool_executions,
skill_executions, composite_skill_executions, tool_audit, helix_llm_usage,
helix_memory_search_calls) is a link of its table's hash chain, written in
the same transaction as the row. verify recomputes the chains; anchor prints
their heads, to keep outside the database and give to verify --anchor later.`,
	}
	cmd.AddCommand(NewCmdVerify(f, nil), NewCmdAnchor(f, nil))
	return cmd
}

// VerifyOptions are the inputs of `audit verify`.
type VerifyOptions struct {
	F          *cmdutil.Factory
	Table      string
	Since      string
	AnchorFile string

	opts audit.Options
}

// maxAnchor caps an anchor file (a log of anchors, one a line).
const maxAnchor = 64 << 20

// NewCmdVerify builds `audit verify`.
func NewCmdVerify(f *cmdutil.Factory, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{F: f}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Recompute the audit hash chains; exit 1 naming the first row changed, deleted or inserted out of chain",
		Long: `Recompute each audit table's hash chain from its rows and compare. A row
edited after it was written no longer matches its hash (changed); a deleted
row leaves a gap (deleted); a finished row written around the audit trigger
has no place in the chain (unchained). Exit 0 when every chain is intact,
1 naming the table and the first row found wrong.

--since checks only the rows from that time on, trusting the link before
them. --anchor FILE also checks that every head in FILE (what helix audit
anchor printed earlier) is still in its chain, which proves that nothing up
to the anchor was deleted or rewritten: the newest rows deleted leave a
shorter chain that is consistent, found only this way (truncated).

The chain holds against edits, deletions and rows written past helix; a
database owner who appends a row through the trigger makes a valid link,
and one who deletes the newest rows or rewrites a whole chain is found only
by an anchor kept elsewhere.

EXAMPLES
  helix audit verify
  helix audit verify --table tool_executions --since 7d -o json
  helix audit anchor > anchor-$(date +%F).json && helix audit verify --anchor anchor-$(date +%F).json

` + cmdutil.ExitStatusDB + `
  (verify: 1 means a chain is broken)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.complete(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return verifyRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Table, "table", "", "verify one audit table only")
	cmd.Flags().StringVar(&opts.Since, "since", "", "verify rows from this RFC 3339 time or age (7d, 12h) on")
	cmd.Flags().StringVar(&opts.AnchorFile, "anchor", "", "an anchor printed by helix audit anchor: its heads must still be in the chains")
	return cmd
}

func (o *VerifyOptions) complete() error {
	o.opts.Table = o.Table
	if o.Since != "" {
		t, err := shared.ParseSince(o.Since, o.F.Now())
		if err != nil {
			return err
		}
		o.opts.Since = t
	}
	if o.AnchorFile != "" {
		b, err := readAnchor(o.AnchorFile)
		if err != nil {
			return cmdutil.InputError(fmt.Errorf("read anchor: %w", err))
		}
		a, err := audit.ParseAnchor(b)
		if err != nil {
			return cmdutil.InputError(fmt.Errorf("%s: %w", o.AnchorFile, err))
		}
		o.opts.Anchor = a
	}
	return nil
}

// readAnchor is the file's last non-empty line: an anchor, or the newest of
// the anchors appended to a log.
func readAnchor(path string) ([]byte, error) {
	b, err := shared.ReadCapped(path, maxAnchor)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimRight(b, "\r\n\t ")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return b, nil
}

func verifyRun(ctx context.Context, opts *VerifyOptions) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	res, err := audit.Verify(ctx, pool, opts.opts)
	if errors.Is(err, audit.ErrUnknownTable) {
		return cmdutil.FlagErrorf("invalid --table %v", err)
	}
	if err != nil {
		return err
	}
	var broken, tables []string
	for _, r := range res {
		if !r.Intact {
			broken = append(broken, r.Problem.Message)
			tables = append(tables, r.Table)
		}
	}
	if f.Global.JSON() {
		if err := cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"intact": len(broken) == 0, "tables": res}); err != nil {
			return err
		}
	} else if err := printResults(f, res); err != nil {
		return err
	}
	if len(broken) > 0 {
		notifyBroken(ctx, f, pool, tables, broken)
		return cmdutil.DriftError(fmt.Errorf("audit chain broken: %s", strings.Join(broken, "; ")))
	}
	return nil
}

// notifyBroken queues an audit_chain_broken notification to the webhooks
// of notify.webhook-url (README, Notifications); a failure to queue it is
// a warning, never verify's result.
func notifyBroken(ctx context.Context, f *cmdutil.Factory, pool *pgxpool.Pool, tables, broken []string) {
	cfg, err := f.Config()
	if err != nil {
		return
	}
	o := shared.NotifyOutbox(cfg, f.Logger())
	ev := notify.New(notify.KindAuditChainBroken, "table "+strings.Join(tables, ", "), strings.Join(broken, "; "), f.Now())
	if err := o.Insert(context.WithoutCancel(ctx), pool, ev); err != nil {
		f.Logger().Warn("notification not queued", "kind", ev.Kind, "err", err)
	}
}

func printResults(f *cmdutil.Factory, res []audit.Result) error {
	tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
	tp.Header("TABLE", "ROWS CHECKED", "CHAIN", "STATUS")
	for _, r := range res {
		status := "intact"
		if !r.Intact {
			status = r.Problem.Kind
			if r.Problem.ID != nil {
				status += " at id " + strconv.FormatInt(*r.Problem.ID, 10)
			}
		}
		tp.Row(r.Table, strconv.FormatInt(r.Rows, 10), strconv.FormatInt(r.Seq, 10), status)
	}
	return tp.Render()
}

// AnchorOptions are the inputs of `audit anchor`.
type AnchorOptions struct {
	F *cmdutil.Factory
}

// NewCmdAnchor builds `audit anchor`.
func NewCmdAnchor(f *cmdutil.Factory, runF func(*AnchorOptions) error) *cobra.Command {
	opts := &AnchorOptions{F: f}
	return &cobra.Command{
		Use:   "anchor",
		Short: "Print the audit chains' heads as one JSON line, to keep outside the database",
		Long: `Print each audit chain's length and last hash, and the time, as one JSON
line: {"at":…,"heads":[{"table":…,"seq":…,"hash":…},…]}. Keep it where the
database's owners cannot write (a log shipper, another host, a signed
commit); helix audit verify --anchor FILE proves later that the chains
still hold every row up to it.

EXAMPLES
  helix audit anchor >> /var/lib/helix/audit-anchors.jsonl
  helix audit anchor > anchor.json && helix audit verify --anchor anchor.json

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			pool, err := f.DB(cmd.Context())
			if err != nil {
				return err
			}
			a, err := audit.TakeAnchor(cmd.Context(), pool, f.Now())
			if err != nil {
				return err
			}
			return cmdutil.WriteJSON(f.IOStreams.Out, a)
		},
	}
}
