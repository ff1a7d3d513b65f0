package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// FlagKey is the configuration key of a flag: the path of the command that
// declares it (without "helix") and the flag name, e.g. "decay.run.at";
// flags of the root are plain ("output", "log-level").
func FlagKey(cmd *cobra.Command, fl *pflag.Flag) string {
	owner := cmd
	for c := cmd; c != nil; c = c.Parent() {
		if c.PersistentFlags().Lookup(fl.Name) == fl {
			owner = c
		}
	}
	path := strings.TrimPrefix(owner.CommandPath(), owner.Root().Name())
	path = strings.TrimSpace(path)
	if path == "" {
		return fl.Name
	}
	return strings.ReplaceAll(path, " ", ".") + "." + fl.Name
}

// SetFlag sets a flag from a configuration value (lists for slice flags).
func SetFlag(fl *pflag.Flag, v any) error {
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		switch list := v.(type) {
		case []any:
			s := make([]string, len(list))
			for i, x := range list {
				s[i] = fmt.Sprint(x)
			}
			return sv.Replace(s)
		case []string:
			return sv.Replace(list)
		case string:
			return sv.Replace(strings.Split(list, ","))
		}
	}
	return fl.Value.Set(fmt.Sprint(v))
}

// Walk calls fn for every flag of every command below root, with its key.
func Walk(root *cobra.Command, fn func(key string, c *cobra.Command, fl *pflag.Flag)) {
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		visit := func(fl *pflag.Flag) {
			if fl.Name == "help" || fl.Name == "config" || fl.Hidden {
				return
			}
			key := FlagKey(c, fl)
			if !seen[key] {
				seen[key] = true
				fn(key, c, fl)
			}
		}
		c.PersistentFlags().VisitAll(visit)
		c.LocalNonPersistentFlags().VisitAll(visit)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
