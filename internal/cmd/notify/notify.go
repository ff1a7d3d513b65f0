// Package notify implements `helix notify test`: a test event to every
// webhook of notify.webhook-url (package notify).
package notify

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/notify"
	"github.com/helixhq/helix/internal/tableprinter"
)

// NewCmdNotify builds `helix notify`.
func NewCmdNotify(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notify",
		Short: "Webhook notifications: send a test event",
		Long: `helix tells the webhooks of notify.webhook-url when a schedule disables
itself or a fire fails (schedule add --notify), a queued job is discarded
after its retries, a tool is revoked or proposed with wider permissions, or
audit verify finds a chain broken; see "Notifications" in the README.`,
	}
	cmd.AddCommand(NewCmdTest(f, nil))
	return cmd
}

// TestOptions are the inputs of `notify test`.
type TestOptions struct {
	F        *cmdutil.Factory
	Settings notify.Settings
}

// NewCmdTest builds `notify test`.
func NewCmdTest(f *cmdutil.Factory, runF func(*TestOptions) error) *cobra.Command {
	opts := &TestOptions{F: f}
	cmd := &cobra.Command{
		Use:   "test",
		Short: "POST a test event to every webhook of notify.webhook-url, now, and report each answer",
		Long: `Send one event of kind test to every webhook of notify.webhook-url at once,
synchronously (not through the queue), in each webhook's format (json,
slack, discord), and print each webhook's answer: its HTTP status or why it
failed. A private or loopback address is refused unless
notify.allow-private is true. Webhook URLs are shown without their path
(which is usually their token).

EXAMPLES
  HELIX_NOTIFY_WEBHOOK_URL=slack+https://hooks.slack.com/services/T0/B0/XXXX helix notify test
  helix notify test -o json

` + cmdutil.ExitStatus(cmdutil.ExitFailed, cmdutil.ExitUsage, cmdutil.ExitPartial) + `
  (1: no webhook answered 2xx; 3: some did)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return cmdutil.InputError(err)
			}
			s, err := shared.NotifySettings(cfg)
			if err != nil {
				return cmdutil.InputError(err)
			}
			if len(s.Targets) == 0 {
				return cmdutil.InputError(errors.New("no webhook: set notify.webhook-url (HELIX_NOTIFY_WEBHOOK_URL)"))
			}
			opts.Settings = s
			if runF != nil {
				return runF(opts)
			}
			return testRun(cmd.Context(), opts)
		},
	}
	return cmd
}

// answer is one webhook's outcome.
type answer struct {
	Webhook string `json:"webhook"`
	Format  string `json:"format"`
	OK      bool   `json:"ok"`
	Status  int    `json:"status,omitempty"`
	Error   string `json:"error,omitempty"`
}

func testRun(ctx context.Context, opts *TestOptions) error {
	f, s := opts.F, opts.Settings
	ev := notify.New(notify.KindTest, "helix notify test", "a test event: this webhook is set up", f.Now())
	hc := s.Client()
	out := make([]answer, len(s.Targets))
	var wg sync.WaitGroup
	for i, t := range s.Targets {
		wg.Go(func() {
			status, err := notify.Send(ctx, hc, t, ev)
			a := answer{Webhook: t.Display(), Format: t.Format, OK: err == nil, Status: status}
			if err != nil {
				a.Error = err.Error()
			}
			out[i] = a
		})
	}
	wg.Wait()
	var fails []string
	for _, a := range out {
		if !a.OK {
			fails = append(fails, a.Webhook+": "+a.Error)
		}
	}
	if f.Global.JSON() {
		if err := cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"event": ev, "webhooks": out}); err != nil {
			return err
		}
	} else {
		tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
		tp.Header("WEBHOOK", "FORMAT", "STATUS", "RESULT")
		for _, a := range out {
			res := "delivered"
			if !a.OK {
				res = a.Error
			}
			st := "-"
			if a.Status != 0 {
				st = strconv.Itoa(a.Status)
			}
			tp.Row(a.Webhook, a.Format, st, res)
		}
		if err := tp.Render(); err != nil {
			return err
		}
	}
	switch {
	case len(fails) == 0:
		return nil
	case len(fails) < len(out):
		return &cmdutil.PartialError{Failed: fails, Total: len(out)}
	}
	// exit 1 whatever the reasons: a refused address is the webhook's
	// answer here, not this command's bad input
	return fmt.Errorf("no webhook took the test event: %s", strings.Join(fails, "; "))
}
