package cmdutil

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
)

// CompletionFunc completes a flag value or an argument.
type CompletionFunc = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective)

// completeTimeout bounds a completion's database query: a shell waits for it.
const completeTimeout = 2 * time.Second

// CompleteWords completes from a fixed list.
func CompleteWords(words ...string) CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return words, cobra.ShellCompDirectiveNoFileComp
	}
}

// CompleteColumn completes with the distinct values of column in table that
// start with what was typed, from the database when it is reachable; when it
// is not (no URL, down, slow) it quietly offers nothing. With files, the
// shell also completes file names (commands that take NAME or FILE).
func CompleteColumn(f *Factory, table, column string, files bool) CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		dir := cobra.ShellCompDirectiveNoFileComp
		if files {
			dir = cobra.ShellCompDirectiveDefault
		}
		ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
		defer cancel()
		return queryNames(ctx, f, table, column, toComplete), dir
	}
}

// CompleteFirstArg completes only a command's first argument with fn.
func CompleteFirstArg(fn CompletionFunc) CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return fn(cmd, args, toComplete)
	}
}

func queryNames(ctx context.Context, f *Factory, table, column, prefix string) []string {
	if f == nil || f.DB == nil {
		return nil
	}
	pool, err := f.DB(ctx)
	if err != nil {
		return nil
	}
	// table and column come from helix's code, never from the user
	q := "SELECT DISTINCT " + pgx.Identifier{column}.Sanitize() + " FROM " + pgx.Identifier{table}.Sanitize() +
		" WHERE starts_with(" + pgx.Identifier{column}.Sanitize() + ", $1) ORDER BY 1 LIMIT 500"
	rows, err := pool.Query(ctx, q, prefix)
	if err != nil {
		return nil
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil
	}
	return names
}

// CompleteTimezone completes IANA time zone names from the system's zoneinfo
// (ZONEINFO, else /usr/share/zoneinfo); without one it offers UTC and Local.
func CompleteTimezone(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	dir := os.Getenv("ZONEINFO")
	if st, err := os.Stat(dir); dir == "" || err != nil || !st.IsDir() {
		dir = "/usr/share/zoneinfo"
	}
	var out, zones []string
	for _, z := range []string{"UTC", "Local"} {
		if strings.HasPrefix(z, toComplete) {
			out = append(out, z)
		}
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			// posix/ and right/ duplicate the zones; lowercase dirs are not zones
			if path != dir && (name == "posix" || name == "right" || name[0] < 'A' || name[0] > 'Z') {
				return filepath.SkipDir
			}
			return nil
		}
		if name == "UTC" || !strings.HasPrefix(name, toComplete) || name[0] < 'A' || name[0] > 'Z' || strings.ContainsAny(name, ".") {
			return nil
		}
		if _, err := time.LoadLocation(name); err == nil {
			zones = append(zones, name)
		}
		return nil
	})
	sort.Strings(zones)
	return append(out, zones...), cobra.ShellCompDirectiveNoFileComp
}
