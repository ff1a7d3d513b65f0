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
		"dentist --user-id x": `invalid argument "x" for "--user-id" flag: not a UUID`,
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
