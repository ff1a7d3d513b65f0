package cmdutil

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// annotationAliasOf marks a hidden flag as the old name of another flag.
const annotationAliasOf = "helix:alias-of"

// Alias registers old as a hidden, deprecated name of the flag canonical in
// fs: both names set the same value, so scripts written for the old name keep
// working; the root resolves the alias (ApplyAliases) and warns. A setting's
// old HELIX_* variable and config key keep working too (AliasKeys).
func Alias(fs *pflag.FlagSet, canonical string, olds ...string) {
	fl := fs.Lookup(canonical)
	if fl == nil {
		panic("cmdutil.Alias: no flag --" + canonical)
	}
	for _, old := range olds {
		fs.AddFlag(&pflag.Flag{
			Name:        old,
			Usage:       "deprecated: use --" + canonical,
			Value:       fl.Value,
			DefValue:    fl.DefValue,
			NoOptDefVal: fl.NoOptDefVal,
			Hidden:      true,
			Annotations: map[string][]string{annotationAliasOf: {canonical}},
		})
	}
}

// AliasOf returns the canonical name of an alias flag, or "".
func AliasOf(fl *pflag.Flag) string {
	if a := fl.Annotations[annotationAliasOf]; len(a) == 1 {
		return a[0]
	}
	return ""
}

// ApplyAliases runs after parsing and before cobra checks flag groups and
// required flags: an old name given counts as the canonical flag given (so
// the environment and the config file cannot override it, and exclusive or
// required groups see it). Both names given at once is a usage error. It
// returns one deprecation notice per old name used.
func ApplyAliases(cmd *cobra.Command) ([]string, error) {
	var notices []string
	var err error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		canonical := AliasOf(fl)
		if err != nil || canonical == "" || !fl.Changed {
			return
		}
		c := cmd.Flags().Lookup(canonical)
		if c.Changed {
			err = FlagErrorf("--%s is the old name of --%s: give only --%s", fl.Name, canonical, canonical)
			return
		}
		c.Changed = true
		notices = append(notices, fmt.Sprintf("flag --%s is deprecated: use --%s", fl.Name, canonical))
	})
	return notices, err
}

// AliasKeys maps the configuration key of every old flag name of cmd to the
// key of its canonical flag, e.g. "catalog.fetch.timeout" →
// "catalog.fetch.fetch-timeout".
func AliasKeys(cmd *cobra.Command) map[string]string {
	out := map[string]string{}
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if canonical := AliasOf(fl); canonical != "" {
			out[FlagKey(cmd, fl)] = FlagKey(cmd, cmd.Flags().Lookup(canonical))
		}
	})
	return out
}

// WalkAliases calls fn for every old flag name below root with its key and
// its canonical flag's key, sorted by old key.
func WalkAliases(root *cobra.Command, fn func(oldKey, newKey string)) {
	all := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for k, v := range AliasKeys(c) {
			all[k] = v
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fn(k, all[k])
	}
}
