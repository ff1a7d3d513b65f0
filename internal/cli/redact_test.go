package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/pgtest"
)

// Issue 22, finding 3: a speech-to-text endpoint that echoes the
// Authorization header in its 401 body put the API key on stdout, stderr and
// in job_runs.error. Every secret helix knows is masked everywhere,
// whatever produced the text — here also the database password, which the
// provider's error echoes too.
func TestSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	const key = "dg-secret-4f9a1c77e2"
	dbURL := pgtest.URL(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	// The test server takes no password: one in the URL is ignored by trust
	// authentication but is still a secret helix must never print.
	const dbPassword = "pg-pass-8c1e5d"
	u.User = url.UserPassword(u.User.Username(), dbPassword)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"err_code":"INVALID_AUTH","err_msg":"Invalid credentials: %s (also seen: %s)","request_id":"r-1"}`,
			r.Header.Get("Authorization"), dbPassword)
	}))
	defer srv.Close()
	env := []string{"DATABASE_URL=" + u.String(), "DEEPGRAM_API_KEY=" + key, "HELIX_VOICE_DEEPGRAM_BASE_URL=" + srv.URL, "HELIX_VOICE_RETRIES=0"}
	file := filepath.Join("..", "..", "testdata", "voice", "speech-64k.mp3")
	for _, output := range []string{"text", "json"} {
		res := helix(t, env, "", "voice", "transcribe", file, "--user-id", "11111111-1111-4111-8111-111111111111", "--output", output, "--log-level", "debug")
		all := res.stdout + res.stderr
		if res.code == 0 || !strings.Contains(all, "Invalid credentials") {
			t.Fatalf("--output %s: exit %d, want a failure quoting the provider\nstdout: %s\nstderr: %s", output, res.code, res.stdout, res.stderr)
		}
		for _, secret := range []string{key, dbPassword} {
			if strings.Contains(all, secret) {
				t.Errorf("--output %s printed a secret:\nstdout: %s\nstderr: %s", output, res.stdout, res.stderr)
			}
		}
		if !strings.Contains(all, "Token [REDACTED]") {
			t.Errorf("--output %s: the masked key is not shown as [REDACTED]:\n%s", output, all)
		}
	}
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `SELECT coalesce(error, '') FROM job_runs WHERE job = 'voice transcribe'`)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(errs) != 2 {
		t.Fatalf("job_runs: %v %v", errs, err)
	}
	for _, e := range errs {
		if strings.Contains(e, key) || strings.Contains(e, dbPassword) || !strings.Contains(e, "[REDACTED]") {
			t.Errorf("job_runs.error %q", e)
		}
	}
}
