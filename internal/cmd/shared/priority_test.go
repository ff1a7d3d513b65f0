package shared

import (
	"bytes"
	"testing"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/queue"
)

func TestPriorityFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		ok   bool
		want int // queue.PriorityFor(forUser=true, given)
	}{
		{[]string{}, true, queue.PriorityUser},
		{[]string{"--enqueue"}, true, queue.PriorityUser},
		{[]string{"--enqueue", "--priority", "4"}, true, 4},
		{[]string{"--priority", "2"}, false, 0},
		{[]string{"--enqueue", "--priority", "0"}, false, 0},
		{[]string{"--enqueue", "--priority", "5"}, false, 0},
	} {
		var p int
		var enqueue bool
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		cmd.Flags().BoolVar(&enqueue, "enqueue", false, "")
		PriorityFlag(cmd, &p)
		cmd.SetArgs(c.args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if c.ok != (err == nil) || !c.ok && cmdutil.Code(err) != cmdutil.ExitUsage {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		if c.ok && queue.PriorityFor(true, p) != c.want {
			t.Errorf("%v: priority %d, want %d", c.args, queue.PriorityFor(true, p), c.want)
		}
	}
	if queue.PriorityFor(false, 0) != queue.PriorityBatch {
		t.Errorf("a batch's default priority is %d", queue.PriorityFor(false, 0))
	}
}
