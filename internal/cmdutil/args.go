package cmdutil

import (
	"fmt"

	"github.com/spf13/cobra"
)

// WrapArgs makes every positional-argument check under c a usage error
// (exit 2) that says what is wrong in the user's words: one argument too
// many is `unexpected argument "months"` (as in --since 3 months, where the
// flag took "3"), not cobra's `unknown command "months" for "helix
// synthesize"`. The root applies it to the whole tree.
func WrapArgs(c *cobra.Command) {
	for _, sub := range c.Commands() {
		WrapArgs(sub)
	}
	check := c.Args
	if check == nil {
		return
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		if err == nil {
			return nil
		}
		// the longest leading run of arguments the check accepts: the
		// argument after it is the one too many
		for k := len(args) - 1; k >= 0; k-- {
			if check(cmd, args[:k]) == nil {
				return FlagErrorf("unexpected argument %q", args[k])
			}
		}
		more := append(append([]string{}, args...), "x")
		if check(cmd, more) == nil || check(cmd, append(more, "x")) == nil {
			return FlagErrorf("missing argument (usage: %s)", cmd.UseLine())
		}
		return &FlagError{Err: fmt.Errorf("%w (usage: %s)", err, cmd.UseLine())}
	}
}
