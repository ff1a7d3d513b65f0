package synthesize

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdtest"
)

// TestEnqueueFlagErrors: --enqueue combinations that cannot work are usage
// errors (exit 2) before anything is queued. (Moved here from cmd/worker,
// which no longer builds other groups' commands in its tests.)
func TestEnqueueFlagErrors(t *testing.T) {
	for _, tt := range []struct{ argv, wantErr string }{
		{"--llm --all-users --enqueue --max-cost 5", "--max-cost bounds one run"},
		{"--all-users --enqueue --users-per-job -1", "invalid --users-per-job -1"},
	} {
		t.Run(tt.argv, func(t *testing.T) {
			f, _ := cmdtest.Factory(t, false)
			_, err := cmdtest.Parse(func(runF func(*Options) error) *cobra.Command { return NewCmdSynthesize(f, runF) }, tt.argv)
			cmdtest.WantFlagError(t, err, tt.wantErr)
		})
	}
}
