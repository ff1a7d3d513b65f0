// Package pgtest gives each test a fresh PostgreSQL database cloned from a
// migrated template, on the server named by HELIX_TEST_DATABASE_URL.
// There is no skip: when the server is missing, the test fails and says how to start one.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/redact"
	"github.com/helixhq/helix/migrations"
)

// DefaultURL is helix's own throwaway cluster as scripts/pg-up.sh starts it
// by default, used when HELIX_TEST_DATABASE_URL is unset: a plain go test
// never uses a server nobody chose, such as a shared system one on 5432
// (issue 49). HELIX_PG_PORT moves it, as it moves the cluster.
const DefaultURL = "postgres://postgres@127.0.0.1:55432/postgres?sslmode=disable"

// ServerURL is the maintenance database URL of the test server.
func ServerURL() string {
	if u := os.Getenv("HELIX_TEST_DATABASE_URL"); u != "" {
		return u
	}
	if p := os.Getenv("HELIX_PG_PORT"); p != "" {
		return "postgres://postgres@127.0.0.1:" + p + "/postgres?sslmode=disable"
	}
	return DefaultURL
}

var (
	tplOnce sync.Once
	tplName string
	tplErr  error
)

// URL creates a fresh, migrated database for t, drops it when t ends, and
// returns its URL (for code that opens its own pool or runs helix as a subprocess).
func URL(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	tplOnce.Do(func() { tplName, tplErr = ensureTemplate(ctx) })
	if tplErr != nil {
		t.Fatalf("pgtest: %v\n(make test starts a server: scripts/pg-up.sh prints its URL; export HELIX_TEST_DATABASE_URL)", tplErr)
	}
	admin, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		t.Fatalf("pgtest: connect %s: %v", redacted(ServerURL()), err)
	}
	defer admin.Close(ctx)
	name := "helix_test_" + randomSuffix()
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, tplName)); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() { drop(t, name) })
	return withDatabase(ServerURL(), name)
}

// Empty creates a fresh database with nothing in it (not migrated), drops it
// when t ends, and returns its URL.
func Empty(t testing.TB) string {
	t.Helper()
	admin, err := pgx.Connect(context.Background(), ServerURL())
	if err != nil {
		t.Fatalf("pgtest: connect %s: %v\n(make test starts a server: scripts/pg-up.sh prints its URL; export HELIX_TEST_DATABASE_URL)", redacted(ServerURL()), err)
	}
	defer admin.Close(context.Background())
	name := "helix_test_" + randomSuffix()
	if _, err := admin.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() { drop(t, name) })
	return withDatabase(ServerURL(), name)
}

// PlatformFixtures name the two shapes of the platform's tables a test can
// ask for: "literal" (shared/platform/README.md to the letter: no defaults,
// no foreign keys, a primary key only where the document names one) and
// "defaults" (Supabase's usual: uuid defaults, foreign keys to auth.users,
// created_at DEFAULT now()). helix must work on both.
var PlatformFixtures = []string{"literal", "defaults"}

// Platform creates a fresh database shaped like the platform's Supabase
// project before helix is installed, with the literal tables: see PlatformAs.
func Platform(t testing.TB) string {
	t.Helper()
	return PlatformAs(t, "literal")
}

// MigratedPlatform is Platform with helix installed on it (migrate up), open:
// the platform's literal tables and rows as helix's jobs find them.
func MigratedPlatform(t testing.TB) *pgxpool.Pool {
	t.Helper()
	u := Platform(t)
	if err := migrate(context.Background(), u); err != nil {
		t.Fatalf("pgtest: migrate the platform database: %v", err)
	}
	return Open(t, u)
}

// PlatformAs creates a fresh database shaped like the platform's Supabase
// project before helix is installed, not migrated, and returns its URL:
// Supabase's roles, auth schema and default privileges
// (testdata/platform/supabase.sql), the platform's tables in the shape
// fixture names (testdata/platform/<fixture>.sql), and its rows (rows.sql).
func PlatformAs(t testing.TB, fixture string) string {
	t.Helper()
	u := Empty(t)
	_, file, _, _ := runtime.Caller(0)
	var sql []byte
	for _, name := range []string{"supabase.sql", fixture + ".sql", "rows.sql"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "testdata", "platform", name))
		if err != nil {
			t.Fatalf("pgtest: platform fixture %q: %v", fixture, err)
		}
		sql = append(append(sql, b...), '\n')
	}
	ctx := context.Background()
	// Roles are cluster-wide, advisory locks per database: the lock that
	// serialises fixtures of parallel test binaries is held in the server's
	// maintenance database, around the whole fixture.
	admin, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", db.LockKey("pgtest-platform-roles")); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer func() { _, _ = admin.Exec(ctx, "SELECT pg_advisory_unlock($1)", db.LockKey("pgtest-platform-roles")) }()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, string(sql)); err != nil {
		t.Fatalf("pgtest: platform fixture %q: %v", fixture, err)
	}
	return u
}

func drop(t testing.TB, name string) {
	c, err := pgx.Connect(context.Background(), ServerURL())
	if err != nil {
		t.Logf("pgtest: drop %s: %v", name, err)
		return
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
		t.Logf("pgtest: drop %s: %v", name, err)
	}
}

// New returns a pool on a fresh, migrated database, closed and dropped when t ends.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return Open(t, URL(t))
}

// Open returns a pool on the database at url (from URL, Platform…), closed
// when t ends. Registered after the database's cleanup, its Close runs
// first: the pool closes before the drop.
func Open(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// Tx returns a transaction on a fresh database that is rolled back when t ends:
// the cheapest isolation for tests that need not commit.
func Tx(t testing.TB) pgx.Tx {
	t.Helper()
	pool := New(t)
	tx, err := pool.Begin(context.Background())
	if err != nil {
		t.Fatalf("pgtest: begin: %v", err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	return tx
}

// ensureTemplate creates helix_tpl_<hash of the migrations> once per server.
// Test binaries run in parallel, so creation is serialised by an advisory lock.
func ensureTemplate(ctx context.Context) (string, error) {
	sum, err := migrationsHash()
	if err != nil {
		return "", err
	}
	name := "helix_tpl_" + sum
	admin, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		return "", fmt.Errorf("connect %s: %w", redacted(ServerURL()), err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", db.LockKey("pgtest-template")); err != nil {
		return "", err
	}
	defer func() { _, _ = admin.Exec(ctx, "SELECT pg_advisory_unlock($1)", db.LockKey("pgtest-template")) }()

	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	build := name + "_build"
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+build+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+build); err != nil {
		return "", err
	}
	if err := migrate(ctx, withDatabase(ServerURL(), build)); err != nil {
		return "", fmt.Errorf("migrate template: %w", err)
	}
	// Rename only once complete, so a crash never leaves a half-migrated template.
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+build+" RENAME TO "+name); err != nil {
		return "", err
	}
	return name, nil
}

func migrate(ctx context.Context, u string) error {
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		return err
	}
	defer pool.Close()
	m, err := db.NewMigrator(pool)
	if err != nil {
		return err
	}
	defer m.Close()
	_, err = m.Up(ctx)
	return err
}

func migrationsHash() (string, error) {
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	h := sha256.New()
	fmt.Fprintf(h, "river %s\x00", db.RiverVersion) // River's migrations are applied too
	for _, n := range names {
		b, err := fs.ReadFile(migrations.FS, n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func withDatabase(server, name string) string {
	u, err := url.Parse(server)
	if err != nil {
		return server
	}
	u.Path = "/" + name
	return u.String()
}

func redacted(s string) string { return redact.URL(s, nil) }

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return strings.ToLower(hex.EncodeToString(b[:])) + fmt.Sprint(time.Now().UnixNano()%1000)
}
