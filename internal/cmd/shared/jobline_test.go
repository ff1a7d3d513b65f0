package shared_test

import (
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/cmd/root"
	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdtest"
)

// FuzzValidateJob: a job line is outside bytes (a helix_schedules row anyone
// with the service key can write). Whatever it holds, the check never
// panics, and a line carrying --config or --database-url anywhere is refused.
func FuzzValidateJob(f *testing.F) {
	for _, seed := range []string{
		"decay run --full",
		"decay run --config other.yaml",
		"synthesize --all-users --database-url=postgres://x/y",
		"memory search --user-id a0000000-0000-4000-8000-000000000001 -- --config",
		"decay run -ojson",
		"sync reconcile --batch 500",
		"migrate down --yes",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		argv := strings.Split(line, " ")
		fac, _ := cmdtest.Factory(t, false)
		_, err := shared.ValidateJob(root.NewCmdRoot(fac), argv)
		for _, a := range argv {
			if a == "--config" || strings.HasPrefix(a, "--config=") || a == "--database-url" || strings.HasPrefix(a, "--database-url=") {
				if err == nil {
					t.Fatalf("%q accepted", argv)
				}
			}
		}
	})
}

// TestProfileUpdateIsSchedulable: the nightly profile line README shows is a
// job line schedule add accepts.
func TestProfileUpdateIsSchedulable(t *testing.T) {
	fac, _ := cmdtest.Factory(t, false)
	path, err := shared.ValidateJob(root.NewCmdRoot(fac), strings.Fields("profile update --all-users --max-cost 5"))
	if err != nil || path != "profile update" {
		t.Fatalf("%q, %v", path, err)
	}
}
