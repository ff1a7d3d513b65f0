package pgtest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Pool modes of PgBouncer.
const (
	SessionMode     = "session"
	TransactionMode = "transaction"
)

// Bouncer starts Debian's PgBouncer (1.18 on bookworm; `make test` installs
// it) on a free loopback port in front of the test server, in pool mode
// (SessionMode or TransactionMode), configured as Supabase configures its
// own: no startup parameter accepted but the ones PgBouncer tracks
// (ignore_startup_parameters = extra_float_digits). It returns dbURL with
// its host and port replaced by PgBouncer's, and stops PgBouncer when t ends.
func Bouncer(t testing.TB, mode, dbURL string) string {
	t.Helper()
	return BouncerWith(t, mode, dbURL, "")
}

// BouncerWith is Bouncer with extra lines for pgbouncer.ini's [pgbouncer]
// section (default_pool_size = 1, query_wait_timeout = 1: a starved pooler).
func BouncerWith(t testing.TB, mode, dbURL, extra string) string {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		for _, p := range []string{"/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"} {
			if _, e := os.Stat(p); e == nil {
				bin, err = p, nil
				break
			}
		}
	}
	if err != nil {
		t.Fatalf("pgtest: pgbouncer not installed (make test installs it: apt-get install -y pgbouncer)")
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "5432"
	}
	role := u.User.Username()
	pass, _ := u.User.Password()
	// Not t.TempDir: its parent is private to this user, and PgBouncer may run as another.
	dir, err := os.MkdirTemp("", "helix-pgbouncer-")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	listen := freePort(t)
	server := fmt.Sprintf("host=%s port=%s", host, port)
	if pass != "" {
		server += " password=" + pass
	}
	ini := fmt.Sprintf(`[databases]
* = %s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = %s
ignore_startup_parameters = extra_float_digits
max_client_conn = 200
default_pool_size = 20
server_login_retry = 1
logfile = %s
pidfile = %s
%s
`, server, listen, filepath.Join(dir, "userlist.txt"), mode, filepath.Join(dir, "pgbouncer.log"), filepath.Join(dir, "pgbouncer.pid"), extra)
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
	}
	write("pgbouncer.ini", ini)
	write("userlist.txt", fmt.Sprintf("%q %q\n", role, pass))
	args := []string{filepath.Join(dir, "pgbouncer.ini")}
	if os.Geteuid() == 0 {
		// PgBouncer refuses to run as root; -u switches to the server's account.
		pg, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("pgtest: running as root, pgbouncer needs an account to switch to: %v", err)
		}
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		for _, p := range []string{dir, filepath.Join(dir, "pgbouncer.ini"), filepath.Join(dir, "userlist.txt")} {
			if err := os.Chown(p, uid, gid); err != nil {
				t.Fatalf("pgtest: %v", err)
			}
		}
		args = append([]string{"-u", "postgres"}, args...)
	}
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("pgtest: start pgbouncer: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		if t.Failed() { // what the pooler saw, for the failure's story
			log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
			if len(log) > 8000 {
				log = log[len(log)-8000:]
			}
			t.Logf("pgbouncer.log (end):\n%s", log)
		}
		_ = cmd.Process.Signal(syscall.SIGINT) // immediate shutdown
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(listen))
	bURL := u.String()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, bURL)
		if err == nil {
			err = c.Ping(ctx)
			_ = c.Close(ctx)
		}
		cancel()
		if err == nil {
			return bURL
		}
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
			t.Fatalf("pgtest: pgbouncer exited: %s\n%s", out.String(), log)
		default:
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
			t.Fatalf("pgtest: pgbouncer (%s mode) not answering: %v\n%s%s", mode, err, out.String(), log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freePort asks the kernel for a free loopback port.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
