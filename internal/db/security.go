package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrNoHelixTables: the database has none of helix's tables (not migrated),
// so there is no row-level security of helix's to check.
var ErrNoHelixTables = errors.New("no helix tables: run helix migrate up")

// RLSProblems lists each helix table (recorded in helix_tables by migrations)
// that is exposed beyond what helix_secure_table grants: row-level security
// disabled, anything granted to anon, or a helix-internal table granted to
// authenticated. supabase reports whether the database has Supabase's API
// roles, where such a table is reachable with the project's public keys.
func RLSProblems(ctx context.Context, q Querier) (problems []string, supabase bool, err error) {
	var migrated bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon'), to_regclass('helix_tables') IS NOT NULL`).Scan(&supabase, &migrated); err != nil {
		return nil, supabase, err
	}
	if !migrated {
		return nil, supabase, ErrNoHelixTables
	}
	rows, err := q.Query(ctx, `
		SELECT h.name, c.relrowsecurity,
		       $1 AND has_table_privilege('anon', c.oid, 'SELECT, INSERT, UPDATE, DELETE'),
		       $1 AND h.owner_column IS NULL AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated')
		          AND has_table_privilege('authenticated', c.oid, 'SELECT, INSERT, UPDATE, DELETE')
		FROM helix_tables h JOIN pg_class c ON c.oid = to_regclass(quote_ident(h.name))
		ORDER BY h.name`, supabase)
	if err != nil {
		return nil, supabase, err
	}
	type row struct {
		name               string
		rls, anon, authAll bool
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.name, &x.rls, &x.anon, &x.authAll)
		return x, err
	})
	if err != nil {
		return nil, supabase, err
	}
	for _, x := range all {
		switch {
		case !x.rls:
			problems = append(problems, x.name+": row-level security disabled")
		case x.anon:
			problems = append(problems, x.name+": granted to anon")
		case x.authAll:
			problems = append(problems, x.name+": helix-internal but granted to authenticated")
		}
	}
	return problems, supabase, nil
}

// PlatformTables are the platform's tables helix reads or writes (the
// platform owns them: helix never changes their security on its own), with
// the column naming each row's user ("" when the rows are nobody's).
var PlatformTables = []struct{ Name, OwnerColumn string }{
	{"memories", "user_id"},
	{"memory_synthesis", "user_id"},
	{"memory_patterns", "user_id"},
	{"psychology_layers", "user_id"},
	{"voice_recordings", "user_id"},
	{"skills", ""},
}

// OpenTable is a platform table that Supabase's API roles can reach beyond
// their own rows: anyone with the project's public anon key reads it, or a
// signed-in user reads another's rows.
type OpenTable struct {
	Name  string   `json:"table"`
	Roles []string `json:"roles"` // of anon and authenticated, those that reach beyond their own rows
	// RLS: row-level security is on, and policies let the roles through.
	RLS bool `json:"row_level_security"`
	// Why says, per role, what lets it through: row-level security off with
	// a table or column grant, or a permissive policy that is not limited to
	// the user's own rows (as Supabase's database linter reads policies).
	Why []string `json:"why"`
	// Close are the statements that would close it: row-level security on,
	// a policy that gives each signed-in user their own rows, and, over
	// policies that let more through, a restrictive one that limits every
	// policy to the user's own rows.
	Close []string `json:"close"`
}

// OwnerPolicy and OwnerOnlyPolicy are the policies secure-platform creates;
// PolicyComment marks them as helix's, so that it never replaces a policy of
// the same name that someone else made.
const (
	OwnerPolicy     = "helix_owner"
	OwnerOnlyPolicy = "helix_owner_only"
	PolicyComment   = "helix migrate secure-platform: each signed-in user reaches only their own rows"
)

// policy is one row-level security policy of a table, as it applies to one role.
type policy struct {
	name       string
	permissive bool
	cmd        string // pg_policy.polcmd: r select, a insert, w update, d delete, * all
	expr       string // USING, or WITH CHECK when there is no USING
}

// scoped reports whether a policy expression limits rows to the signed-in
// user's own: it compares the owner column with the user's id from the
// request's JWT (auth.uid(), auth.jwt(), request.jwt.*), or is false. This
// is a reading of the expression, as Supabase's linter reads it: a policy
// that is true, or that checks only that someone is signed in, is not
// scoped.
func scoped(expr, ownerColumn string) bool {
	e := strings.ToLower(strings.Join(strings.Fields(expr), " "))
	if e == "false" {
		return true
	}
	mentions := false
	for _, f := range strings.FieldsFunc(e, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}) {
		if f == strings.ToLower(ownerColumn) {
			mentions = true
		}
	}
	return mentions && (strings.Contains(e, "auth.uid()") || strings.Contains(e, "auth.jwt()") || strings.Contains(e, "request.jwt"))
}

// reads reports whether a policy of command cmd decides which existing rows
// a role sees or changes (an INSERT policy only checks new rows).
func reads(cmd string) bool { return cmd != "a" }

// OpenPlatformTables lists the platform tables helix reads or writes that
// anon or authenticated can reach beyond their own rows: row-level security
// off while the role holds a table or column privilege, or on with a
// permissive policy for the role (or PUBLIC) that is not scoped to the
// user's own rows and no restrictive one that is. Tables helix created
// itself (helix_tables) are helix's and secured by its migrations. A table
// without an owner column (skills) is judged by row-level security alone:
// its policies are the platform's to write.
func OpenPlatformTables(ctx context.Context, q Querier) ([]OpenTable, error) {
	names := make([]string, len(PlatformTables))
	owners := make([]string, len(PlatformTables))
	for i, t := range PlatformTables {
		names[i], owners[i] = t.Name, t.OwnerColumn
	}
	rows, err := q.Query(ctx, `
		SELECT t.name, t.owner, c.relrowsecurity, r.rolname::text,
		       has_table_privilege(r.oid, c.oid, 'SELECT, INSERT, UPDATE, DELETE'),
		       has_any_column_privilege(r.oid, c.oid, 'SELECT, INSERT, UPDATE'),
		       coalesce((SELECT array_agg(p.polname::text ORDER BY p.polname) FROM pg_policy p
		                 WHERE p.polrelid = c.oid AND (0 = ANY (p.polroles) OR r.oid = ANY (p.polroles))), '{}'),
		       coalesce((SELECT array_agg(p.polpermissive ORDER BY p.polname) FROM pg_policy p
		                 WHERE p.polrelid = c.oid AND (0 = ANY (p.polroles) OR r.oid = ANY (p.polroles))), '{}'),
		       coalesce((SELECT array_agg(p.polcmd::text ORDER BY p.polname) FROM pg_policy p
		                 WHERE p.polrelid = c.oid AND (0 = ANY (p.polroles) OR r.oid = ANY (p.polroles))), '{}'),
		       coalesce((SELECT array_agg(coalesce(pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid), 'true') ORDER BY p.polname) FROM pg_policy p
		                 WHERE p.polrelid = c.oid AND (0 = ANY (p.polroles) OR r.oid = ANY (p.polroles))), '{}')
		FROM unnest($1::text[], $2::text[]) WITH ORDINALITY t(name, owner, i)
		JOIN pg_class c ON c.oid = to_regclass('public.' || quote_ident(t.name))
		CROSS JOIN pg_roles r
		WHERE r.rolname IN ('anon', 'authenticated')
		ORDER BY t.i, r.rolname`, names, owners)
	if err != nil {
		return nil, err
	}
	type row struct {
		table, owner, role string
		rls, tbl, col      bool
		pols               []policy
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		var pn, pc, pe []string
		var pp []bool
		err := r.Scan(&x.table, &x.owner, &x.rls, &x.role, &x.tbl, &x.col, &pn, &pp, &pc, &pe)
		for i := range pn {
			x.pols = append(x.pols, policy{name: pn[i], permissive: pp[i], cmd: pc[i], expr: pe[i]})
		}
		return x, err
	})
	if err != nil {
		return nil, err
	}
	owned, err := helixOwned(ctx, q)
	if err != nil {
		return nil, err
	}
	var open []OpenTable
	at := map[string]int{}
	for _, x := range all {
		if owned[x.table] || !x.tbl && !x.col {
			continue
		}
		var why []string
		var loose []string // permissive policies not scoped to the user's rows
		limited := false   // a restrictive policy scopes every read
		if x.owner != "" {
			for _, p := range x.pols {
				switch {
				case !reads(p.cmd):
				case p.permissive && !scoped(p.expr, x.owner):
					loose = append(loose, p.name)
					why = append(why, fmt.Sprintf("%s: policy %s USING %s", x.role, ident(p.name), p.expr))
				case !p.permissive && (p.cmd == "*" || p.cmd == "r") && scoped(p.expr, x.owner):
					limited = true
				}
			}
		}
		grant := "table grant"
		if !x.tbl {
			grant = "column grants"
		}
		switch {
		case !x.rls:
			why = append([]string{x.role + ": " + grant}, why...)
		case len(loose) == 0 || limited:
			continue
		}
		i, seen := at[x.table]
		if !seen {
			i = len(open)
			at[x.table] = i
			open = append(open, OpenTable{Name: x.table, RLS: x.rls})
		}
		o := &open[i]
		o.Roles = append(o.Roles, x.role)
		o.Why = append(o.Why, why...)
		if !seen || len(o.Close) == 0 {
			o.Close = CloseStatements(x.table, x.owner, x.rls, len(loose) > 0)
		} else if len(loose) > 0 && !slices.ContainsFunc(o.Close, func(s string) bool { return strings.Contains(s, OwnerOnlyPolicy) }) {
			o.Close = CloseStatements(x.table, x.owner, x.rls, true)
		}
	}
	return open, nil
}

// helixOwned are the tables helix created (recorded in helix_tables).
func helixOwned(ctx context.Context, q Querier) (map[string]bool, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('public.helix_tables') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return nil, err
	}
	rows, err := q.Query(ctx, `SELECT name FROM helix_tables`)
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	owned := map[string]bool{}
	for _, n := range names {
		owned[n] = true
	}
	return owned, err
}

// CloseStatements are the statements that close a platform table to the API
// roles: row-level security on (when off) and, where rows have an owner, a
// policy that lets a signed-in user reach only their own rows; over
// policies that let more through (loose), a restrictive policy that limits
// every policy to the user's own rows, leaving the platform's policies in
// place (roles that bypass row-level security, postgres and service_role,
// are unaffected). Each policy is marked as helix's with a comment. Without
// an owner column nobody but those roles reaches the rows; the platform adds
// a policy for what its apps must read.
func CloseStatements(table, ownerColumn string, rlsOn, loose bool) []string {
	t := "public." + ident(table)
	var out []string
	if !rlsOn {
		out = append(out, fmt.Sprintf("ALTER TABLE %s ENABLE ROW LEVEL SECURITY;", t))
	}
	if ownerColumn == "" {
		return out
	}
	c := ident(ownerColumn)
	comment := func(name string) string {
		return fmt.Sprintf("COMMENT ON POLICY %s ON %s IS '%s';", name, t, PolicyComment)
	}
	if !rlsOn {
		out = append(out,
			fmt.Sprintf("CREATE POLICY %s ON %s FOR ALL TO authenticated USING (%s = auth.uid()) WITH CHECK (%s = auth.uid());", OwnerPolicy, t, c, c),
			comment(OwnerPolicy))
	}
	if loose {
		out = append(out,
			fmt.Sprintf("CREATE POLICY %s ON %s AS RESTRICTIVE FOR ALL TO anon, authenticated USING (%s = auth.uid()) WITH CHECK (%s = auth.uid());", OwnerOnlyPolicy, t, c, c),
			comment(OwnerOnlyPolicy))
	}
	return out
}

// ErrForeignPolicy: a table already has a policy named as one of helix's
// that helix did not create (no helix comment); secure-platform leaves it
// and changes nothing.
type ErrForeignPolicy struct{ Table, Policy string }

func (e *ErrForeignPolicy) Error() string {
	return fmt.Sprintf("%s already has a policy named %s that helix did not create: secure-platform does not replace it; rename it (ALTER POLICY %s ON public.%s RENAME TO …) or close the table yourself; nothing was changed",
		e.Table, e.Policy, e.Policy, ident(e.Table))
}

// ErrTableLocked: a table secure-platform must change stayed locked by
// another session for longer than its lock timeout.
type ErrTableLocked struct {
	Table    string
	Timeout  time.Duration
	Blockers []string // who holds a lock on the table: pid, application, user, state, since
}

func (e *ErrTableLocked) Error() string {
	who := "another session"
	if len(e.Blockers) > 0 {
		who = strings.Join(e.Blockers, "; ")
	}
	return fmt.Sprintf("%s is locked by %s: waited the lock timeout (%s); nothing was changed: run again once it is free (or raise --lock-timeout)", e.Table, who, e.Timeout)
}

// DefaultSecureLockTimeout is how long secure-platform waits for a table
// lock: ALTER TABLE and CREATE POLICY take one that queues every reader of
// the table behind them while they wait.
const DefaultSecureLockTimeout = 5 * time.Second

// SecurePlatformTables runs the Close statements of tables in one
// transaction, waiting at most lockTimeout for each table's lock. A policy
// named as helix's that helix did not create is refused (*ErrForeignPolicy);
// one helix created before is replaced. Only `helix migrate secure-platform
// --yes` calls it: helix never changes a platform table's security on its own.
func SecurePlatformTables(ctx context.Context, q Querier, tables []OpenTable, lockTimeout time.Duration) error {
	if lockTimeout <= 0 {
		lockTimeout = DefaultSecureLockTimeout
	}
	var current string
	err := InTx(ctx, q, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, fmt.Sprint(lockTimeout.Milliseconds())); err != nil {
			return err
		}
		for _, t := range tables {
			current = t.Name
			for _, stmt := range t.Close {
				for _, name := range []string{OwnerPolicy, OwnerOnlyPolicy} {
					if !strings.HasPrefix(stmt, "CREATE POLICY "+name+" ") {
						continue
					}
					var comment *string
					err := tx.QueryRow(ctx, `SELECT obj_description(p.oid, 'pg_policy') FROM pg_policy p
						WHERE p.polrelid = to_regclass('public.' || quote_ident($1)) AND p.polname = $2`, t.Name, name).Scan(&comment)
					switch {
					case errors.Is(err, pgx.ErrNoRows):
					case err != nil:
						return err
					case comment == nil || *comment != PolicyComment:
						return &ErrForeignPolicy{Table: t.Name, Policy: name}
					default:
						if _, err := tx.Exec(ctx, fmt.Sprintf("DROP POLICY %s ON public.%s", name, ident(t.Name))); err != nil {
							return fmt.Errorf("%s: %w", t.Name, err)
						}
					}
				}
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("%s: %w", t.Name, err)
				}
			}
		}
		return nil
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "55P03" { // lock_not_available
		return &ErrTableLocked{Table: current, Timeout: lockTimeout, Blockers: lockHolders(context.WithoutCancel(ctx), q, current)}
	}
	return err
}

// lockHolders names the other sessions that hold a lock on table.
func lockHolders(ctx context.Context, q Querier, table string) []string {
	rows, err := q.Query(ctx, `SELECT format('pid %s (%s%s, %s since %s)', a.pid,
			coalesce(nullif(a.application_name, ''), 'no application_name'), coalesce(', user ' || a.usename, ''),
			a.state, to_char(coalesce(a.xact_start, a.backend_start) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.relation = to_regclass('public.' || quote_ident($1)) AND l.granted AND l.pid <> pg_backend_pid()
		GROUP BY a.pid, a.application_name, a.usename, a.state, a.xact_start, a.backend_start ORDER BY a.pid`, table)
	if err != nil {
		return nil
	}
	out, _ := pgx.CollectRows(rows, pgx.RowTo[string])
	return out
}

// How says how the roles reach an open table, for people.
func (o OpenTable) How() string {
	how := "without row-level security"
	if o.RLS {
		how = "through policies not limited to each user's own rows"
	}
	return fmt.Sprintf("%s %s (%s)", strings.Join(o.Roles, " and "), how, strings.Join(o.Why, "; "))
}

// ident quotes a name only where SQL needs it, so that the statements helix
// prints read as a person would write them.
func ident(name string) string {
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return pgx.Identifier{name}.Sanitize()
		}
	}
	return name
}

// HelixRows counts, per platform table, the rows helix wrote and that
// uninstalling (migrate down to 0) removes: its patterns in memory_synthesis
// and memory_patterns (generator = 'helix'). Tables or columns not there
// count nothing.
func HelixRows(ctx context.Context, q Querier) (map[string]int64, error) {
	out := map[string]int64{}
	for _, tbl := range []string{"memory_synthesis", "memory_patterns"} {
		var marked bool
		if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'generator')`, tbl).Scan(&marked); err != nil {
			return nil, err
		}
		if !marked {
			continue
		}
		var n int64
		if err := q.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s WHERE generator = 'helix'`, tbl)).Scan(&n); err != nil {
			return nil, err
		}
		out[tbl] = n
	}
	return out, nil
}
