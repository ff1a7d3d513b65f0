package manifest

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
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
			cmd := NewCmdImport(f, func(*ImportOptions) error { return nil })
			cmd.SetArgs(strings.Fields(tt.argv))
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			var fe *cmdutil.FlagError
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &fe) {
				t.Fatalf("error %v, want a flag error containing %q", err, tt.wantErr)
			}
		})
	}
}
