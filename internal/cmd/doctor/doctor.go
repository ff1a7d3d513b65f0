// Package doctor implements `helix doctor`: one line per check of what helix needs.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/owner"
)

// Options are the inputs of `doctor`.
type Options struct {
	F    *cmdutil.Factory
	Root *cobra.Command // the command tree, whose flags are the settings a config file may set
}

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn, fail, skip
	Detail string `json:"detail"`
}

// NewCmdDoctor checks configuration, database, schema and provider keys.
func NewCmdDoctor(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check configuration, database, migrations and provider keys",
		// doctor reports bad settings itself, with file and line, instead of stopping at the first
		// and reports pending migrations itself
		Annotations: map[string]string{cmdutil.AnnotationReportsSettings: "true", cmdutil.AnnotationSchemaOptional: "true"},
		Long: `Check what helix needs, one line each: the config file (unknown keys,
per-invocation arguments a file cannot set, bad values: each with its line),
the database (reachable, server version), the schema (pending migrations),
row-level security of helix's tables (SKIP when there are none yet), the
platform's tables helix uses that anon or authenticated can reach without
row-level security (a warning, with the statements that close each), the
items each user owns (skills, composites, tools, schedules) and the shared
items users shadow with their own of the same name (a warning when a shared
item reaches none of the users who have their own of that kind), and the
provider keys. Warnings do not fail; a failed check exits non-zero (4 when the database
is unreachable, 1 otherwise).

EXAMPLES
  helix doctor
  helix doctor --output json

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Root = cmd.Root()
			if runF != nil {
				return runF(opts)
			}
			return doctorRun(cmd.Context(), opts)
		},
	}
}

func doctorRun(ctx context.Context, opts *Options) error {
	f := opts.F
	var checks []Check
	var failure error
	add := func(name, status, detail string) { checks = append(checks, Check{name, status, detail}) }

	cfg, err := f.Config()
	if err != nil {
		add("config", "fail", err.Error())
		failure = cmdutil.InputError(err)
	} else {
		file := cfg.File()
		if file == "" {
			file = "no config file (environment and defaults only)"
		}
		add("config", "ok", file)
		if old := deprecatedKeys(cfg, opts.Root); len(old) > 0 {
			add("config keys", "warn", strings.Join(old, "; "))
		}
		if problems := settingProblems(cfg, opts.Root); len(problems) > 0 {
			add("config keys", "fail", strings.Join(problems, "; "))
			failure = cmdutil.InputError(errors.New("bad settings in " + cfg.File()))
		}
		if url := cfg.String("database-url"); url == "" {
			add("database", "fail", db.ErrNoURL.Error())
			failure = cmdutil.InputError(db.ErrNoURL)
		} else if pool, err := f.DB(ctx); err != nil {
			add("database", "fail", err.Error())
			failure = err
		} else {
			var version string
			_ = pool.QueryRow(ctx, "SHOW server_version").Scan(&version)
			add("database", "ok", fmt.Sprintf("PostgreSQL %s at %s", version, config.Redact("database-url", url)))
			path := db.PathOf(pool)
			add("connection path", "ok", fmt.Sprintf("%s, %s; %s", path, db.HowFound(pool), path.Meaning()))
			if held, err := db.HeldLocks(ctx, pool); err == nil && len(held) > 0 {
				add("locks", "ok", strings.Join(held, "; "))
			}
			if m, err := db.NewMigrator(pool); err != nil {
				add("migrations", "fail", err.Error())
				failure = err
			} else {
				defer m.Close()
				st, err := m.Status(ctx)
				switch {
				case err != nil:
					add("migrations", "fail", err.Error())
					failure = err
				default:
					pending := 0
					for _, s := range st {
						if !s.Applied {
							pending++
						}
					}
					if pending > 0 {
						add("migrations", "fail", fmt.Sprintf("%d of %d pending: run helix migrate up", pending, len(st)))
						failure = errors.New("migrations pending")
					} else {
						add("migrations", "ok", fmt.Sprintf("%d applied, none pending", len(st)))
					}
				}
			}
			if problems, supabase, err := db.RLSProblems(ctx, pool); errors.Is(err, db.ErrNoHelixTables) {
				add("row-level security", "skip", err.Error())
			} else if err != nil {
				add("row-level security", "fail", err.Error())
				failure = err
			} else if len(problems) > 0 {
				where := ""
				if supabase {
					where = " (Supabase roles present: reachable with the project's API keys)"
				}
				add("row-level security", "fail", strings.Join(problems, "; ")+where+
					": run SELECT helix_secure_table('<table>', 'user_id' or NULL) as the owner")
				failure = errors.New("helix tables without row-level security")
			} else {
				add("row-level security", "ok", "every helix table has row-level security")
			}
			ownedItems(ctx, pool, add)
			// The platform's own tables: named, with the statements that close
			// them, but a warning: they are the platform's to change.
			if open, err := db.OpenPlatformTables(ctx, pool); err != nil {
				add("platform tables", "fail", err.Error())
				failure = err
			} else if len(open) == 0 {
				add("platform tables", "ok", "none that helix uses is open to anon or authenticated beyond each user's own rows (grants, row-level security and policies)")
			} else {
				for _, o := range open {
					add("platform table "+o.Name, "warn", openDetail(o))
				}
			}
		}
		for _, k := range config.Keys {
			if !k.Secret || k.Name == "database-url" {
				continue
			}
			if cfg.String(k.Name) == "" {
				add(k.Name, "warn", "not set ("+config.EnvName(k.Name)+"): "+k.Help)
			} else {
				add(k.Name, "ok", "set")
			}
		}
	}

	if f.Global.JSON() {
		if err := cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"healthy": failure == nil, "checks": checks}); err != nil {
			return err
		}
	} else {
		w := 0
		for _, c := range checks {
			w = max(w, len(c.Name))
		}
		for _, c := range checks {
			fmt.Fprintf(f.IOStreams.Out, "%-4s  %-*s  %s\n", strings.ToUpper(c.Status), w, c.Name, c.Detail)
		}
	}
	if failure != nil {
		var ee *cmdutil.ExitError
		if errors.As(failure, &ee) {
			return failure
		}
		if db.IsUnavailable(failure) {
			return cmdutil.UnavailableError(failure)
		}
		return fmt.Errorf("doctor: %w", failure)
	}
	return nil
}

// openDetail says who reaches an open platform table and how to close it.
func openDetail(o db.OpenTable) string {
	return fmt.Sprintf("reachable by %s, and helix reads or writes it: to close it, run as the owner: %s (or: helix migrate secure-platform --yes)",
		o.How(), strings.Join(o.Close, " "))
}

// settingProblems lists what the config file sets that helix would not take:
// unknown keys (a misspelling is otherwise silently ignored), per-invocation
// arguments, and values that do not parse, each with its file and line.
func settingProblems(cfg *config.Config, root *cobra.Command) []string {
	known := map[string]bool{}
	var maps []string
	for _, k := range config.Keys {
		known[k.Name] = true
		if k.Kind == "map" {
			maps = append(maps, k.Name+".")
		}
	}
	arguments := map[string]bool{}
	if root != nil {
		cmdutil.Walk(root, func(key string, _ *cobra.Command, _ *pflag.Flag) {
			if cmdutil.IsArgument(key) {
				arguments[key] = true
			} else {
				known[key] = true
			}
		})
	}
	deprecated := map[string]bool{}
	if root != nil {
		cmdutil.WalkAliases(root, func(old, _ string) { deprecated[old] = true })
	}
	at := func(key string) string { return fmt.Sprintf("%s:%d: %s", cfg.File(), cfg.Line(key), key) }
	var out []string
	for _, key := range cfg.FileKeys() {
		switch {
		case known[key], deprecated[key] && known[canonicalOf(root, key)]:
		case deprecated[key] && arguments[canonicalOf(root, key)]:
			out = append(out, at(key)+" is a per-invocation argument: give it on the command line")
		case arguments[key]:
			out = append(out, at(key)+" is a per-invocation argument: give it on the command line")
		case hasAnyPrefix(key, maps):
		default:
			out = append(out, at(key)+" is not a helix setting (helix config show lists them)")
		}
	}
	if err := cfg.Validate(); err != nil {
		out = append(out, err.Error())
	}
	return out
}

// deprecatedKeys lists the settings the config file sets under a flag's old
// name: still taken, but to be renamed.
func deprecatedKeys(cfg *config.Config, root *cobra.Command) []string {
	if root == nil {
		return nil
	}
	var out []string
	cmdutil.WalkAliases(root, func(old, canonical string) {
		if cfg.File() != "" && !cmdutil.IsArgument(canonical) && slices.Contains(cfg.FileKeys(), old) {
			out = append(out, fmt.Sprintf("%s:%d: %s is deprecated: rename it %s", cfg.File(), cfg.Line(old), old, canonical))
		}
	})
	return out
}

func canonicalOf(root *cobra.Command, old string) string {
	var c string
	cmdutil.WalkAliases(root, func(o, canonical string) {
		if o == old {
			c = canonical
		}
	})
	return c
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// ownedItems reports how many skills, composites, tools and schedules each
// owner has, and the shared items users shadow (issue 42). Before the owners
// migration there is nothing to report.
func ownedItems(ctx context.Context, pool db.Querier, add func(name, status, detail string)) {
	counts, shadows, err := owner.Report(ctx, pool)
	if err != nil {
		add("owned items", "skip", "not counted: "+err.Error())
		return
	}
	if len(counts) == 0 {
		add("owned items", "ok", "no skills, composites, tools or schedules yet")
	}
	for _, c := range counts {
		add("owned items", "ok", c.String())
	}
	for _, sh := range shadows {
		if sh.Nobody {
			add("shadowed items", "warn", fmt.Sprintf("shared %s %s reaches none of the %d users who have their own %s: each has their own %s", strings.TrimSuffix(sh.Kind, "s"), sh.Name, sh.By, sh.Kind, sh.Name))
		} else {
			add("shadowed items", "ok", fmt.Sprintf("shared %s %s: %d users have their own of that name", strings.TrimSuffix(sh.Kind, "s"), sh.Name, sh.By))
		}
	}
}
