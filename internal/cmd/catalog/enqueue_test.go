package catalog

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
		{"--enqueue --out x.json --source https://example.com/api.json", "--enqueue and --out"},
	} {
		t.Run(tt.argv, func(t *testing.T) {
			f, _ := cmdtest.Factory(t, false)
			_, err := cmdtest.Parse(func(runF func(*FetchOptions) error) *cobra.Command { return NewCmdFetch(f, runF) }, tt.argv)
			cmdtest.WantFlagError(t, err, tt.wantErr)
		})
	}
}
