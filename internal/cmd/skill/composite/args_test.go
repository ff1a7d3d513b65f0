package composite

import (
	"testing"

	"github.com/helixhq/helix/internal/cmdtest"
)

func TestArgs(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)

	var v *ValidateOptions
	cmd := NewCmdValidate(f, func(o *ValidateOptions) error { v = o; return nil })
	cmd.SetArgs([]string{"wf.yaml"})
	if err := cmd.Execute(); err != nil || v.File != "wf.yaml" {
		t.Errorf("validate: %v %+v", err, v)
	}

	var a *AddCompositeOptions
	cmd = NewCmdAddComposite(f, func(o *AddCompositeOptions) error { a = o; return nil })
	cmd.SetArgs([]string{"-"})
	if err := cmd.Execute(); err != nil || a.File != "-" {
		t.Errorf("add-composite: %v %+v", err, a)
	}

	var r *RunOptions
	cmd = NewCmdRun(f, func(o *RunOptions) error { r = o; return nil })
	cmd.SetArgs([]string{"brief@1.0.0", "--input", `{"q": 1}`, "--user-id", "0b6c5c1e-57d3-4a55-9a69-2a86e1f4d1a0"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	got := [3]string{r.Target, r.Input, r.UserID.String()}
	if want := [3]string{"brief@1.0.0", `{"q": 1}`, "0b6c5c1e-57d3-4a55-9a69-2a86e1f4d1a0"}; got != want {
		t.Errorf("run options %q, want %q", got, want)
	}
	cmd = NewCmdRun(f, func(o *RunOptions) error { r = o; return nil })
	cmd.SetArgs([]string{"brief"})
	if err := cmd.Execute(); err != nil || r.Input != "{}" {
		t.Errorf("default input: %v %q", err, r.Input)
	}
	for _, args := range [][]string{{}, {"a", "b"}} {
		cmd = NewCmdRun(f, func(*RunOptions) error { return nil })
		cmd.SetArgs(args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		if err := cmd.Execute(); err == nil {
			t.Errorf("run %v: want a usage error", args)
		}
	}
}
