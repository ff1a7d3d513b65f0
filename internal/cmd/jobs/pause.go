package jobs

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/queue"
)

// QueueState is a queue after pause or resume.
type QueueState struct {
	Queue    string     `json:"queue"`
	Paused   bool       `json:"paused"`
	PausedAt *time.Time `json:"paused_at"`
}

// newCmdQueueAct builds `jobs pause QUEUE` and `jobs resume QUEUE`.
func newCmdQueueAct(f *cmdutil.Factory, verb string) *cobra.Command {
	short := map[string]string{
		"pause":  "Pause a queue: workers fetch none of its jobs until resume (running jobs finish)",
		"resume": "Resume a paused queue",
	}[verb]
	return &cobra.Command{
		Use:   verb + " QUEUE",
		Short: short,
		Long: short + `.

River's queue pause: every worker of the queue stops fetching from it
within a second (they are told through PostgreSQL's LISTEN/NOTIFY, or see
it on their next poll); jobs keep being queued, and wait. Queues: ` + strings.Join(queue.Queues, ", ") + `.
A pause holds while the queue is known to River: River forgets a queue
that no worker has run for a day, and a worker that starts it afresh
starts it running.

EXAMPLES
  helix jobs ` + verb + ` synthesize

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if !slices.Contains(queue.Queues, name) {
				return cmdutil.FlagErrorf("unknown queue %q: use %s", name, strings.Join(queue.Queues, ", "))
			}
			return queueAct(cmd.Context(), f, verb, name)
		},
	}
}

func queueAct(ctx context.Context, f *cmdutil.Factory, verb, name string) error {
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	c, err := queue.NewInsertClient(pool)
	if err != nil {
		return err
	}
	// River pauses only a queue it knows (a worker has run it): an operator
	// pausing before the night's first worker starts means it all the same
	if err := queue.EnsureQueue(ctx, pool, name); err != nil {
		return err
	}
	if verb == "pause" {
		err = c.QueuePause(ctx, name, nil)
	} else {
		err = c.QueueResume(ctx, name, nil)
	}
	if err != nil {
		return fmt.Errorf("%s queue %s: %w", verb, name, err)
	}
	q, err := c.QueueGet(ctx, name)
	if err != nil {
		return err
	}
	st := QueueState{Queue: q.Name, Paused: q.PausedAt != nil, PausedAt: q.PausedAt}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, st)
	}
	if st.Paused {
		_, err = fmt.Fprintf(f.IOStreams.Out, "queue %s paused since %s\n", st.Queue, cmdutil.FormatTime(*st.PausedAt))
	} else {
		_, err = fmt.Fprintf(f.IOStreams.Out, "queue %s running\n", st.Queue)
	}
	return err
}
