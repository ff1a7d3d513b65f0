package cmdutil

import (
	"bufio"
	"errors"
	"strings"

	"github.com/helixhq/helix/internal/iostreams"
)

// Confirm guards a destructive action. --yes on the command line confirms it
// (it is an argument: never from the environment or a file). Without --yes a
// person at a terminal (stdin and stderr both TTYs, text output) is asked to
// type "yes"; anything else — a script, cron, -o json — is a usage error
// (exit 2) that says to add --yes. what says what would be destroyed.
func Confirm(ios *iostreams.IOStreams, asJSON, yes bool, what string) error {
	if yes {
		return nil
	}
	if asJSON || !ios.IsStdinTTY() || !ios.IsStderrTTY() {
		return FlagErrorf("%s: add --yes to confirm", what)
	}
	Fprintf(ios.ErrOut, "%s.\nType yes to go on: ", capitalize(what))
	line, err := bufio.NewReader(ios.In).ReadString('\n')
	if err != nil && line == "" {
		return FlagErrorf("%s: not confirmed (no answer; add --yes to confirm)", what)
	}
	if strings.TrimSpace(line) != "yes" {
		return &FlagError{Err: errors.New(what + ": not confirmed")}
	}
	return nil
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
