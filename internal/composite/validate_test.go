package composite

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden .err files of testdata/composite/bad")

// registry knows registry skills by name and NAME@VERSION, as the skills table would.
type registry map[string]bool

func (r registry) Check(_ context.Context, skill string) error {
	if r[skill] {
		return nil
	}
	return fmt.Errorf("%w %s: add it with helix skill add", ErrUnknownSkill, skill)
}

// TestValidateBad checks every broken definition of testdata/composite/bad
// against the message next to it (NAME.err): all problems, with locations.
func TestValidateBad(t *testing.T) {
	files, err := filepath.Glob("../../testdata/composite/bad/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Validate(context.Background(), src, "bad/"+name+".yaml", filepath.Dir(file), registry{"email-summary@1.2.0": true})
			var inv *InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("Validate = %v, want an *InvalidError", err)
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(file, ".yaml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update once and review the file)", err)
			}
			if got != string(want) {
				t.Errorf("message differs from %s\n got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

func TestValidateGood(t *testing.T) {
	src, err := os.ReadFile("../../testdata/composite/morning-brief.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Validate(context.Background(), src, "morning-brief.yaml", "../../testdata/composite", registry{"email-summary@1.2.0": true})
	if err != nil {
		t.Fatal(err)
	}
	rank := d.Steps[1]
	if rank.OnError.Action != ActionRetry || rank.OnError.MaxAttempts != 3 || rank.OnError.Then != ActionContinue || !rank.deps["fetch"] {
		t.Errorf("rank step = %+v", rank)
	}
	if len(d.SHA256) != 64 || !strings.Contains(string(d.JSON), `"skill":"rank.js"`) {
		t.Errorf("JSON %s sha %s", d.JSON, d.SHA256)
	}
}
