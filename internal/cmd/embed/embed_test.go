package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/embed/embedtest"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
)

const ana = "11111111-1111-4111-8111-111111111111"

func TestNewCmdEmbedFlags(t *testing.T) {
	tests := []struct {
		argv, wantErr string
		check         func(*Options) bool
	}{
		{argv: "--user-id " + ana, check: func(o *Options) bool {
			return o.user.String() == ana && o.BatchSize == 128 && o.Concurrency == 4 && o.MaxInputTokens == 8191 && !o.Reembed
		}},
		{argv: "--all-users --model nomic-embed-text --reembed --batch-size 16 --batch-tokens 4000 --concurrency 2", check: func(o *Options) bool {
			return o.AllUsers && o.Model == "nomic-embed-text" && o.Reembed && o.BatchSize == 16 && o.BatchTokens == 4000 && o.Concurrency == 2
		}},
		{argv: "", wantErr: "give --user-id UUID or --all-users"},
		{argv: "--user-id " + ana + " --all-users", wantErr: "cannot be used together"},
		{argv: "--user-id x", wantErr: `invalid --user-id "x": not a UUID`},
		{argv: "--all-users --batch-size 5000", wantErr: "invalid --batch-size"},
		{argv: "--all-users --concurrency 0", wantErr: "invalid --concurrency"},
	}
	for _, tt := range tests {
		t.Run(tt.argv, func(t *testing.T) {
			f, _ := cmdtest.Factory(t, false)
			got, err := cmdtest.Parse(func(runF func(*Options) error) *cobra.Command { return NewCmdEmbed(f, runF) }, tt.argv)
			if tt.wantErr != "" {
				var fe *cmdutil.FlagError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &fe) {
					t.Fatalf("error %v, want a flag error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(got) {
				t.Fatalf("err %v, options %+v", err, got)
			}
		})
	}
}

// provider speaks /v1/embeddings with 4-dimensional vectors of model mini.
func provider(t *testing.T) *embedtest.Server {
	return embedtest.Start(t, &embedtest.Server{Model: "mini", Dim: 4})
}

func run(t *testing.T, pool *pgxpool.Pool, asJSON bool, argv string) (string, string, error) {
	return runTTY(t, pool, false, asJSON, argv)
}

func runTTY(t *testing.T, pool *pgxpool.Pool, tty, asJSON bool, argv string) (string, string, error) {
	t.Helper()
	f, s := cmdtest.Factory(t, tty)
	cmdtest.WithDB(f, pool)
	if asJSON {
		f.Global.Output = "json"
	}
	cmd := NewCmdEmbed(f, nil)
	cmd.SetArgs(strings.Fields(argv))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.ExecuteContext(context.Background())
	return s.Out.String(), s.Err.String(), err
}

func TestEmbedCommand(t *testing.T) {
	p := provider(t)
	t.Setenv("HELIX_EMBED_BASE_URL", p.URL)
	t.Setenv("HELIX_EMBED_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	pool := pgtest.New(t)
	user := uuid.MustParse(ana)
	var ms []memories.Memory
	for i := range 40 {
		ms = append(ms, memories.Memory{ID: uuid.New(), UserID: user, Type: "semantic", Content: fmt.Sprintf("fact %d", i), CreatedAt: time.Now()})
	}
	if _, err := memories.Insert(context.Background(), pool, ms); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := run(t, pool, true, "--all-users --batch-size 16 --model mini")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Model != "mini" || rep.Counts["embedded"] != 40 || rep.Counts["requests"] != 3 || len(rep.Users) != 1 || rep.Users[0].Dimension != 4 {
		t.Fatalf("report %s", out)
	}
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if !json.Valid([]byte(l)) {
			t.Fatalf("stderr line not JSON: %q", l)
		}
	}
	// a terminal gets a bar and an aligned table
	if _, err := pool.Exec(context.Background(), `UPDATE memories SET embedding = NULL, embedding_model = NULL WHERE content IN ('fact 1', 'fact 2')`); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = runTTY(t, pool, true, false, "--user-id "+ana+" --model mini")
	if err != nil || !strings.Contains(errOut, "\rembed [==============================] 2/2") ||
		!strings.HasPrefix(out, "USER ") || !strings.Contains(out, ana+"  2 ") || !strings.Contains(errOut, "embedded 2 memories of 1 user with mini in 1 request") {
		t.Fatalf("tty: %v\nstdout %q\nstderr %q", err, out, errOut)
	}
	before := p.Requests.Load()
	out, errOut, err = run(t, pool, false, "--user-id "+ana+" --model mini")
	if err != nil || p.Requests.Load() != before || out != "" || !strings.Contains(errOut, "embedded 0 memories") {
		t.Fatalf("re-run: %v, %d requests, out %q err %q", err, p.Requests.Load()-before, out, errOut)
	}
}

func TestEmbedWithoutProvider(t *testing.T) {
	t.Setenv("HELIX_EMBED_BASE_URL", "")
	t.Setenv("HELIX_EMBED_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	f, _ := cmdtest.Factory(t, false)
	cmd := NewCmdEmbed(f, nil)
	cmd.SetArgs([]string{"--user-id", ana})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.Execute()
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage || !strings.Contains(err.Error(), "no embeddings provider") {
		t.Fatalf("err %v: want exit 2, no provider", err)
	}
}

// TestEmbedDryRun: --dry-run counts the rows and tokens a --reembed would
// send and prices them from the catalog (the embedded one: none is pinned);
// the provider gets no request and no row changes.
func TestEmbedDryRun(t *testing.T) {
	p := provider(t)
	t.Setenv("HELIX_EMBED_BASE_URL", p.URL)
	pool := pgtest.New(t)
	user := uuid.MustParse(ana)
	var ms []memories.Memory
	for i := range 30 {
		// 30 bytes each: 10 estimated tokens
		ms = append(ms, memories.Memory{ID: uuid.New(), UserID: user, Type: "semantic", Content: fmt.Sprintf("the tram to Belem, fact %05d", i), CreatedAt: time.Now()})
	}
	if _, err := memories.Insert(context.Background(), pool, ms); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := run(t, pool, true, "--all-users --reembed --dry-run --model text-embedding-3-small")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var rep DryRunReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || strings.Count(out, "\n") != 1 {
		t.Fatalf("%v: %q", err, out)
	}
	if !rep.DryRun || rep.Users != 1 || rep.Rows != 30 || rep.Tokens != 300 || rep.Cost == nil || *rep.Cost != 300*0.02/1e6 || rep.Priced != "openai/text-embedding-3-small" {
		t.Errorf("dry run report %s", out)
	}
	out, _, err = run(t, pool, false, "--user-id "+ana+" --dry-run --model local-model")
	if err != nil || out != "dry run: would embed 30 memories of 1 user with local-model, about 300 tokens; no price for local-model in the pinned catalog\n" {
		t.Errorf("unpriced model: %v %q", err, out)
	}
	var embedded int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM memories WHERE embedding IS NOT NULL`).Scan(&embedded); err != nil || embedded != 0 || p.Requests.Load() != 0 {
		t.Errorf("dry run embedded %d rows, sent %d requests (%v)", embedded, p.Requests.Load(), err)
	}
}
