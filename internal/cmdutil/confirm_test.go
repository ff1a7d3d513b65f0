package cmdutil

import (
	"errors"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/iostreams"
)

func TestConfirm(t *testing.T) {
	const what = "migrate down drops helix's tables"
	cases := []struct {
		name             string
		tty, json, yes   bool
		answer           string
		wantErr, wantAsk string
	}{
		{name: "--yes", yes: true},
		{name: "--yes at a terminal", tty: true, yes: true},
		{name: "no terminal", wantErr: what + ": add --yes to confirm"},
		{name: "json at a terminal", tty: true, json: true, wantErr: what + ": add --yes to confirm"},
		{name: "typed yes", tty: true, answer: "yes\n", wantAsk: "Migrate down drops helix's tables.\nType yes to go on: "},
		{name: "typed y", tty: true, answer: "y\n", wantErr: what + ": not confirmed"},
		{name: "no answer", tty: true, answer: "", wantErr: what + ": not confirmed (no answer; add --yes to confirm)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ios, in, _, errOut := iostreams.Test()
			ios.SetStdinTTY(c.tty)
			ios.SetStderrTTY(c.tty)
			in.WriteString(c.answer)
			err := Confirm(ios, c.json, c.yes, what)
			var fe *FlagError
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("err = %v", err)
			case c.wantErr != "" && (!errors.As(err, &fe) || err.Error() != c.wantErr):
				t.Fatalf("err = %v, want FlagError %q", err, c.wantErr)
			}
			if c.wantAsk != "" && errOut.String() != c.wantAsk {
				t.Errorf("prompt %q, want %q", errOut.String(), c.wantAsk)
			}
			if !c.tty && strings.Contains(errOut.String(), "Type yes") {
				t.Errorf("prompted without a terminal")
			}
		})
	}
}
