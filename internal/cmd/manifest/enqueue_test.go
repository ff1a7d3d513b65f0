package manifest

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
		{"tools/weather.yaml --enqueue", "--enqueue takes URLs only"},
		{"https://example.com/a.json --enqueue --dry-run", "--enqueue and --dry-run"},
	} {
		t.Run(tt.argv, func(t *testing.T) {
			f, _ := cmdtest.Factory(t, false)
			_, err := cmdtest.Parse(func(runF func(*ImportOptions) error) *cobra.Command { return NewCmdImport(f, runF) }, tt.argv)
			cmdtest.WantFlagError(t, err, tt.wantErr)
		})
	}
}
