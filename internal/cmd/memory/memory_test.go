package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/embed/embedtest"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/search"
)

const ana = "11111111-1111-4111-8111-111111111111"

func TestNewCmdSearchFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	newCmd := func(runF func(*SearchOptions) error) *cobra.Command { return NewCmdSearch(f, runF) }
	o, err := cmdtest.Parse(newCmd, "dentist --user-id "+ana)
	if err != nil || o.Query != "dentist" || o.Mode != "hybrid" || o.Limit != 10 {
		t.Fatalf("%v %+v", err, o)
	}
	o, err = cmdtest.Parse(newCmd, "dentist --user-id "+ana+" --mode vector --limit 3")
	if err != nil || o.Mode != "vector" || o.Limit != 3 {
		t.Fatalf("%v %+v", err, o)
	}
	for argv, want := range map[string]string{
		"dentist":             "user-id",
		"dentist --user-id x": `invalid --user-id "x": not a UUID`,
		"dentist --user-id " + ana + " --mode fuzzy": "invalid --mode",
		"dentist --user-id " + ana + " --limit 0":    "invalid --limit",
		"den\x00tist --user-id " + ana:               "NUL byte",
		"den\xfftist --user-id " + ana:               "not valid UTF-8",
	} {
		_, err := cmdtest.Parse(newCmd, argv)
		var fe *cmdutil.FlagError
		if err == nil || !strings.Contains(err.Error(), want) || (want != "user-id" && !errors.As(err, &fe)) {
			t.Errorf("%q: %v, want %q", argv, err, want)
		}
	}
}

func TestSearchCommandTextOnly(t *testing.T) {
	t.Setenv("HELIX_EMBED_BASE_URL", "")
	t.Setenv("HELIX_EMBED_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	pool := pgtest.New(t)
	user := uuid.MustParse(ana)
	ms := []memories.Memory{
		{ID: uuid.New(), UserID: user, Type: "episodic", Content: "Dentist appointment moved to Friday", CreatedAt: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)},
		{ID: uuid.New(), UserID: user, Type: "episodic", Content: "Bought new running shoes", CreatedAt: time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)},
	}
	if _, err := memories.Insert(context.Background(), pool, ms); err != nil {
		t.Fatal(err)
	}
	for _, asJSON := range []bool{false, true} {
		f, s := cmdtest.Factory(t, false)
		cmdtest.WithDB(f, pool)
		if asJSON {
			f.Global.Output = "json"
		}
		cmd := NewCmdSearch(f, nil)
		cmd.SetArgs([]string{"dentists", "--user-id", ana})
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !asJSON {
			want := "1\t0.0164\t#1 0.026\t-\t2026-05-01T09:00:00Z\t" + ms[0].ID.String() + "\tDentist appointment moved to Friday\n"
			if s.Out.String() != want || s.Err.String() != "1 results (text)\n" {
				t.Fatalf("stdout %q stderr %q", s.Out.String(), s.Err.String())
			}
			continue
		}
		var rep search.Report
		if err := json.Unmarshal(s.Out.Bytes(), &rep); err != nil || rep.Mode != "text" || len(rep.Results) != 1 ||
			rep.Results[0].Text.Rank != 1 || rep.Results[0].Vector != nil || rep.Language != "english" {
			t.Fatalf("%v %s", err, s.Out.String())
		}
	}
	// vector mode without a provider: exit 2 with the way out
	f, _ := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	cmd := NewCmdSearch(f, nil)
	cmd.SetArgs([]string{"dentist", "--user-id", ana, "--mode", "vector"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.Execute()
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--mode text") {
		t.Fatalf("vector without provider: %v", err)
	}
}

// TestSearchRemembersEmbedModel: with no --model and no embed.model, search
// compares with the model that made the user's embeddings (what `helix embed
// --model` used); --model another one leaves the vector side empty, and the
// report says text and why.
func TestSearchRemembersEmbedModel(t *testing.T) {
	srv := embedtest.Start(t, &embedtest.Server{Dim: 4})
	t.Setenv("HELIX_EMBED_BASE_URL", srv.URL)
	t.Setenv("HELIX_EMBED_MODEL", "")
	pool := pgtest.New(t)
	user := uuid.MustParse(ana)
	ms := []memories.Memory{
		{ID: uuid.New(), UserID: user, Type: "episodic", Content: "Dentist appointment moved to Friday", Embedding: []float32{1, 0, 0, 0.1}, CreatedAt: time.Now()},
		{ID: uuid.New(), UserID: user, Type: "episodic", Content: "Bought new running shoes", Embedding: []float32{0, 1, 0, 0}, CreatedAt: time.Now()},
	}
	if _, err := memories.Insert(context.Background(), pool, ms); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `UPDATE memories SET embedding_model = 'mini'`); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (search.Report, string) {
		f, s := cmdtest.Factory(t, false)
		cmdtest.WithDB(f, pool)
		f.Global.Output = "json"
		cmd := NewCmdSearch(f, nil)
		cmd.SetArgs(append([]string{"appointment", "--user-id", ana}, args...))
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		var rep search.Report
		if err := json.Unmarshal(s.Out.Bytes(), &rep); err != nil {
			t.Fatalf("%v: %s", err, s.Out)
		}
		return rep, s.Err.String()
	}
	rep, _ := run()
	if rep.Mode != "hybrid" || rep.Model != "mini" || len(rep.Results) == 0 || rep.Results[0].Vector == nil || strings.Join(srv.Models(), ",") != "mini" {
		t.Errorf("remembered model: mode %s model %s, results %+v, provider asked for %v", rep.Mode, rep.Model, rep.Results, srv.Models())
	}
	rep, errOut := run("--model", "nomic-embed-text")
	if rep.Mode != "text" || !strings.HasPrefix(rep.VectorEmpty, "no embeddings by nomic-embed-text: the user's 2 embeddings were made by another model") ||
		!strings.Contains(errOut, "level=WARN") || !strings.Contains(errOut, "vector search found nothing") {
		t.Errorf("--model another: mode %s, vector_empty %q, stderr %q", rep.Mode, rep.VectorEmpty, errOut)
	}
}
