// Package migrate implements `helix migrate up|down|status`.
package migrate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/tableprinter"
)

// NewCmdMigrate is the `migrate` group.
func NewCmdMigrate(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate <command>",
		Short: "Apply, roll back and inspect the database schema",
		Long: `Apply, roll back and inspect helix's embedded SQL migrations.
Migrations run under helix's migration lock (a lease in helix_locks, safe
through any connection pooler), so concurrent helix processes never migrate
at once: the second waits up to --lock-wait, then exits 5 naming the holder.`,
		// migrate works on a database at any schema, none included
		Annotations: map[string]string{cmdutil.AnnotationSchemaOptional: "true"},
	}
	cmd.AddCommand(newCmdUp(f), newCmdDown(f), NewCmdStatus(f, nil), newCmdSecurePlatform(f))
	return cmd
}

type migrateFunc func(ctx context.Context, m *db.Migrator) ([]int64, error)

func withMigrator(f *cmdutil.Factory, ctx context.Context, fn func(m *db.Migrator) error) error {
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	m, err := db.NewMigrator(pool)
	if err != nil {
		return err
	}
	defer m.Close()
	return fn(m)
}

func runApply(f *cmdutil.Factory, cmd *cobra.Command, verb string, wait time.Duration, apply migrateFunc) error {
	return withMigrator(f, cmd.Context(), func(m *db.Migrator) error {
		m.LockWait = wait
		applied, err := apply(cmd.Context(), m)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", verb, err)
		}
		if f.Global.JSON() {
			if applied == nil {
				applied = []int64{}
			}
			return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{verb: applied})
		}
		if len(applied) == 0 {
			cmdutil.Fprintf(f.IOStreams.ErrOut, "nothing to do: the schema is %s\n", map[string]string{"up": "up to date", "down": "empty"}[verb])
			return nil
		}
		for _, v := range applied {
			fmt.Fprintf(f.IOStreams.Out, "%s %s\n", verb, versionLabel(v))
		}
		return nil
	})
}

func newCmdUp(f *cmdutil.Factory) *cobra.Command {
	var dryRun bool
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Apply every pending migration",
		Long: `Apply every pending migration. On the platform's existing database helix
adopts the platform's tables: it creates a table only where it is missing,
adds its own nullable columns and side tables, and never drops, renames or
retypes a platform column. With --dry-run, print the SQL each pending
migration would run and change nothing.

Then it names, on stderr, every platform table helix reads or writes that
Supabase's anon or authenticated role can reach without row-level security,
with the statements that would close it. It never runs them: the platform's
tables are the platform's (helix migrate secure-platform --yes runs them).

EXAMPLES
  helix migrate up --dry-run
  helix migrate up

` + cmdutil.ExitStatusLocked,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dryRun {
				return withMigrator(f, cmd.Context(), func(m *db.Migrator) error { return printPlan(f, cmd.Context(), m) })
			}
			if err := runApply(f, cmd, "up", wait, func(ctx context.Context, m *db.Migrator) ([]int64, error) { return m.Up(ctx) }); err != nil {
				return err
			}
			return warnOpenTables(f, cmd.Context())
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the SQL of every pending migration instead of running it")
	lockWaitFlag(cmd, &wait)
	return cmd
}

// warnOpenTables names the platform tables helix uses that the API roles can
// reach without row-level security, and how to close each.
func warnOpenTables(f *cmdutil.Factory, ctx context.Context) error {
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	open, err := db.OpenPlatformTables(ctx, pool)
	if err != nil {
		return fmt.Errorf("check the platform's tables: %w", err)
	}
	for _, o := range open {
		if f.Global.JSON() {
			f.Logger().Warn("platform table open to the API roles", "table", o.Name, "roles", o.Roles, "row_level_security", o.RLS, "why", o.Why, "close", o.Close)
			continue
		}
		cmdutil.Fprintf(f.IOStreams.ErrOut, "warning: platform table %s is reachable by %s, and helix reads or writes it.\nTo close it, run as the owner (or: helix migrate secure-platform --yes):\n  %s\n",
			o.Name, o.How(), strings.Join(o.Close, "\n  "))
	}
	return nil
}

func newCmdSecurePlatform(f *cmdutil.Factory) *cobra.Command {
	var yes bool
	var lockTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "secure-platform --yes",
		Short: "Turn on row-level security on the platform tables helix uses that are open",
		Long: `Close the platform's tables that helix reads or writes (memories,
memory_synthesis, memory_patterns, psychology_layers, voice_recordings,
skills) that Supabase's anon or authenticated role can reach beyond each
user's own rows, judged as Supabase's database linter judges them: a table
or column grant to the role with row-level security off, or a permissive
policy for the role (or PUBLIC) whose USING is not limited to the user's
rows (USING (true), or only "signed in"), with row-level security on or off.

It enables row-level security and gives each signed-in user their own rows
(policy helix_owner, user_id = auth.uid()); over policies that let more
through it adds a restrictive policy, helix_owner_only, that limits every
policy to the user's own rows and leaves the platform's policies in place.
Both carry a COMMENT marking them as helix's: a policy of either name that
helix did not create is never replaced (the command stops, nothing changed).
postgres and service_role bypass row-level security and are unaffected; so
is anything the platform's apps do as them. A table without an owner column
(skills) gets row-level security and no policy: add one for what the apps
must read.

ALTER TABLE and CREATE POLICY wait for a lock on the table that queues the
apps' readers behind them: --lock-timeout (5s) bounds the wait; when it
passes, nothing is changed and the error names the sessions holding the
table (an app's open transaction, say).

These are the platform's tables: helix changes their security only here,
when asked, with --yes (at a terminal it asks you to type yes). helix doctor
and helix migrate up name the open tables and print the same statements.
Tables already closed are left alone; nothing open is not an error.

EXAMPLES
  helix migrate secure-platform --yes
  helix migrate secure-platform --yes --output json

` + cmdutil.ExitStatusLocked,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if lockTimeout <= 0 {
				return cmdutil.FlagErrorf("invalid --lock-timeout %s: want more than 0", lockTimeout)
			}
			ctx := cmd.Context()
			pool, err := f.DB(ctx)
			if err != nil {
				return err
			}
			open, err := db.OpenPlatformTables(ctx, pool)
			if err != nil {
				return fmt.Errorf("check the platform's tables: %w", err)
			}
			if len(open) > 0 {
				names := make([]string, len(open))
				for i, o := range open {
					names[i] = o.Name
					if !f.Global.JSON() {
						cmdutil.Fprintf(f.IOStreams.ErrOut, "%s is reachable by %s\n", o.Name, o.How())
					}
				}
				if err := cmdutil.Confirm(f.IOStreams, f.Global.JSON(), yes, "migrate secure-platform changes the security of the platform's "+strings.Join(names, ", ")); err != nil {
					return err
				}
				if err := db.SecurePlatformTables(ctx, pool, open, lockTimeout); err != nil {
					return fmt.Errorf("migrate secure-platform: %w", err)
				}
			}
			if f.Global.JSON() {
				if open == nil {
					open = []db.OpenTable{}
				}
				return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"secured": open})
			}
			if len(open) == 0 {
				cmdutil.Fprintf(f.IOStreams.ErrOut, "nothing to do: no platform table helix uses is open to anon or authenticated\n")
			}
			for _, o := range open {
				fmt.Fprintf(f.IOStreams.Out, "secured %s\n", o.Name)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm changing the security of the platform's tables")
	cmd.Flags().DurationVar(&lockTimeout, "lock-timeout", db.DefaultSecureLockTimeout, "wait at most this long for each table's lock (the apps' readers queue behind the wait), then change nothing and name who holds it")
	return cmd
}

func printPlan(f *cmdutil.Factory, ctx context.Context, m *db.Migrator) error {
	plan, err := m.Plan(ctx)
	if err != nil {
		return fmt.Errorf("migrate up --dry-run: %w", err)
	}
	if f.Global.JSON() {
		if plan == nil {
			plan = []db.PlannedMigration{}
		}
		return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"plan": plan})
	}
	if len(plan) == 0 {
		cmdutil.Fprintf(f.IOStreams.ErrOut, "nothing to do: the schema is up to date\n")
	}
	for _, p := range plan {
		fmt.Fprintf(f.IOStreams.Out, "-- %s\n%s\n", p.Name, p.SQL)
	}
	return nil
}

func newCmdDown(f *cmdutil.Factory) *cobra.Command {
	var to int64
	var all, yes bool
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "down --yes",
		Short: "Roll back the latest migration (or down to --to VERSION, or --all-migrations)",
		Long: `Roll back the most recent migration, or every migration above --to, or all of
them. Rolling back drops helix's tables and columns and the data in them, so it
needs --yes on the command line (never from the environment or a config file);
at a terminal without --yes it asks you to type yes.
Tables helix did not create (the platform's own) are never dropped.

Uninstalling (--all-migrations, or a --to below the migration that added it)
also removes the patterns helix wrote into the platform's memory_synthesis and
memory_patterns (generator = 'helix'), and says how many first; the
platform's own rows stay. A reinstall then writes each pattern once.
Transcripts helix voice transcribe wrote into voice_recordings stay: they are
the users' recordings (helix's columns on them go).

EXAMPLES
  helix migrate down --yes
  helix migrate down --to 1 --yes
  helix migrate down --all-migrations --yes

` + cmdutil.ExitStatusLocked,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if all {
				to = 0
			}
			if err := sayRowsRemoved(f, cmd.Context(), to); err != nil {
				return err
			}
			if err := cmdutil.Confirm(f.IOStreams, f.Global.JSON(), yes, "migrate down drops helix's tables and the data in them"); err != nil {
				return err
			}
			return runApply(f, cmd, "down", wait, func(ctx context.Context, m *db.Migrator) ([]int64, error) { return m.Down(ctx, to) })
		},
	}
	cmd.Flags().Int64Var(&to, "to", -1, "roll back every migration above this version")
	cmd.Flags().BoolVar(&all, "all-migrations", false, "roll back every migration")
	cmdutil.Alias(cmd.Flags(), "all-migrations", "all")
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm dropping helix's tables and their data")
	cmd.MarkFlagsMutuallyExclusive("to", "all-migrations")
	lockWaitFlag(cmd, &wait)
	return cmd
}

// patternMigrations: the migration below which each table's helix rows are removed.
var patternMigrations = []struct {
	table   string
	version int64
}{{"memory_synthesis", 1}, {"memory_patterns", 12}}

// sayRowsRemoved tells, before anything is confirmed or done, how many rows
// helix wrote into platform tables a down to version to removes.
func sayRowsRemoved(f *cmdutil.Factory, ctx context.Context, to int64) error {
	if to < 0 {
		return nil
	}
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	rows, err := db.HelixRows(ctx, pool)
	if err != nil {
		return fmt.Errorf("migrate down: count helix's rows: %w", err)
	}
	var parts []string
	for _, p := range patternMigrations {
		if n, ok := rows[p.table]; ok && to < p.version {
			parts = append(parts, fmt.Sprintf("%d rows helix wrote into %s", n, p.table))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	msg := "migrate down removes " + strings.Join(parts, " and ") + " (the platform's own rows stay)"
	if f.Global.JSON() {
		f.Logger().Info(msg)
	} else {
		cmdutil.Fprintf(f.IOStreams.ErrOut, "%s\n", msg)
	}
	return nil
}

func lockWaitFlag(cmd *cobra.Command, wait *time.Duration) {
	cmd.Flags().DurationVar(wait, "lock-wait", db.MigrateLockWait, "wait this long for another helix migrating this database, then exit 5")
}

// StatusOptions are the inputs of `migrate status`.
type StatusOptions struct {
	F     *cmdutil.Factory
	Check bool
}

// NewCmdStatus lists migrations and whether each is applied.
func NewCmdStatus(f *cmdutil.Factory, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{F: f}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "List migrations and whether each is applied",
		Long: `List every migration this binary carries and whether it is applied.
With --check, exit 1 when any migration is pending (for deploy scripts).

EXAMPLES
  helix migrate status
  helix migrate status --check --output json

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return statusRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Check, "check", false, "exit 1 if any migration is pending")
	return cmd
}

func statusRun(ctx context.Context, opts *StatusOptions) error {
	f := opts.F
	return withMigrator(f, ctx, func(m *db.Migrator) error {
		st, err := m.Status(ctx)
		if err != nil {
			return err
		}
		pending := 0
		for _, s := range st {
			if !s.Applied {
				pending++
			}
		}
		if f.Global.JSON() {
			if err := cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"migrations": st, "pending": pending}); err != nil {
				return err
			}
		} else {
			tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
			tp.Header("VERSION", "NAME", "STATE", "APPLIED AT")
			for _, s := range st {
				state := "pending"
				if s.Applied {
					state = "applied"
				}
				tp.Row(versionLabel(s.Version), s.Name, state, s.AppliedAt)
			}
			if err := tp.Render(); err != nil {
				return err
			}
		}
		if opts.Check && pending > 0 {
			return cmdutil.DriftError(fmt.Errorf("%d migration(s) pending: run helix migrate up", pending))
		}
		return nil
	})
}

// versionLabel prints helix's versions as 00012 and River's as river/006.
func versionLabel(v int64) string {
	if rv, ok := db.IsRiver(v); ok {
		return fmt.Sprintf("river/%03d", rv)
	}
	return fmt.Sprintf("%05d", v)
}
