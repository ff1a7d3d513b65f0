package composite

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/helixhq/helix/internal/cmd/shared"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/composite"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/testbin"
)

// exitCode is the exit status helix gives err: the one table.
func exitCode(err error) cmdutil.ExitCode { return cmdutil.Code(err) }

// TestValidateCommand runs `skill validate` on every broken definition of
// testdata/composite/bad against the real registry: exit 2 and the golden message.
func TestValidateCommand(t *testing.T) {
	pool := pgtest.New(t)
	addSkill(t, pool, "email-summary.js", "email-summary", "1.2.0")
	files, _ := filepath.Glob(filepath.Join(testdata, "bad", "*.yaml"))
	for _, file := range files {
		e := newEnv(t, pool, false, false)
		// The goldens name files as bad/NAME.yaml.
		wd, _ := os.Getwd()
		t.Chdir(filepath.Join(testdata))
		err := validateRun(context.Background(), &ValidateOptions{IO: e.f.IOStreams, F: e.f, File: filepath.Join("bad", filepath.Base(file))})
		t.Chdir(wd)
		want, rerr := os.ReadFile(strings.TrimSuffix(file, ".yaml") + ".err")
		if rerr != nil {
			t.Fatal(rerr)
		}
		if exitCode(err) != cmdutil.ExitUsage || err.Error()+"\n" != string(want) {
			t.Errorf("%s: exit %d\n got %v\nwant %s", file, exitCode(err), err, want)
		}
		if e.out.Out.Len() != 0 {
			t.Errorf("%s: stdout %q", file, e.out.Out)
		}
	}
	for _, tty := range []bool{true, false} {
		e := newEnv(t, pool, tty, false)
		file := filepath.Join(testdata, "morning-brief.yaml")
		if err := validateRun(context.Background(), &ValidateOptions{IO: e.f.IOStreams, F: e.f, File: file}); err != nil {
			t.Fatal(err)
		}
		if got, want := e.out.Out.String(), file+": morning-brief@1.0.0 is valid (2 steps)\n"; got != want {
			t.Errorf("tty=%v: %q, want %q", tty, got, want)
		}
	}
	e := newEnv(t, pool, false, true)
	err := validateRun(context.Background(), &ValidateOptions{IO: e.f.IOStreams, F: e.f, File: filepath.Join(testdata, "bad", "forward-ref.yaml")})
	var rep ValidateReport
	if jerr := json.Unmarshal(e.out.Out.Bytes(), &rep); jerr != nil || exitCode(err) != cmdutil.ExitUsage {
		t.Fatalf("%v %v %s", jerr, err, e.out.Out)
	}
	if rep.Valid || len(rep.Problems) != 1 || rep.Problems[0].Line != 6 || rep.Problems[0].Col != 20 || rep.Steps != 2 {
		t.Errorf("report %+v", rep)
	}
}

// TestValidateWithoutDatabase: a definition of skill files needs no registry.
func TestValidateWithoutDatabase(t *testing.T) {
	e := newEnv(t, nil, false, false)
	e.f.DB = nil // any use would panic
	if err := validateRun(context.Background(), &ValidateOptions{IO: e.f.IOStreams, F: e.f, File: filepath.Join(testdata, "chain10.yaml")}); err != nil {
		t.Fatal(err)
	}
}

func TestAddCompositeAndRunByName(t *testing.T) {
	pool := pgtest.New(t)
	addSkill(t, pool, "email-summary.js", "email-summary", "1.2.0")
	e := newEnv(t, pool, false, false)
	stored := filepath.Join(testdata, "morning-brief-stored.yaml")
	add := func() error {
		e.out.Out.Reset()
		return addCompositeRun(context.Background(), &AddCompositeOptions{IO: e.f.IOStreams, F: e.f, File: stored})
	}
	// rank@1.0.0 is not in the registry yet.
	if err := add(); exitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "steps[1] (rank).skill: unknown skill rank@1.0.0") {
		t.Fatalf("add before rank exists: %v", err)
	}
	addSkill(t, pool, "rank.js", "rank", "1.0.0")
	if err := add(); err != nil {
		t.Fatal(err)
	}
	if got := e.out.Out.String(); !strings.HasPrefix(got, "added composite skill morning-brief@1.0.0 (2 steps, sha256 ") {
		t.Errorf("stdout %q", got)
	}
	if err := add(); err != nil || e.out.Out.String() != "composite skill morning-brief@1.0.0 is already stored with this definition\n" {
		t.Errorf("second add: %v %q", err, e.out.Out)
	}
	// A skill file cannot be stored.
	err := addCompositeRun(context.Background(), &AddCompositeOptions{IO: e.f.IOStreams, F: e.f, File: filepath.Join(testdata, "morning-brief.yaml")})
	if exitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), `skill file "rank.js" cannot be stored`) {
		t.Errorf("file skill: %v", err)
	}

	for _, target := range []string{"morning-brief", "morning-brief@1.0.0"} {
		if _, err := e.run(t, target, `{"query": "report"}`); err != nil {
			t.Fatal(err)
		}
		if got := e.out.Out.String(); got != briefLine {
			t.Errorf("%s: %s", target, got)
		}
	}
	var cid *int64
	if err := pool.QueryRow(context.Background(), `SELECT composite_skill_id FROM composite_skill_executions ORDER BY id DESC LIMIT 1`).Scan(&cid); err != nil || cid == nil {
		t.Errorf("run by name not linked to its composite_skills row: %v", err)
	}
	if _, err := e.run(t, "morning-brief@9", `{}`); exitCode(err) != cmdutil.ExitUsage || !errors.Is(err, composite.ErrNotFound) {
		t.Errorf("unknown version: %v", err)
	}
	if _, err := e.run(t, "morning-brief", `{not json`); exitCode(err) != cmdutil.ExitUsage {
		t.Errorf("bad --input: %v", err)
	}
}

// TestRunHonoursOperatorCaps: the configuration's skill.timeout bounds the
// steps of a composite run as it bounds `skill exec`.
func TestRunHonoursOperatorCaps(t *testing.T) {
	t.Setenv("HELIX_SKILL_TIMEOUT", "300ms")
	t.Setenv("HELIX_SKILL_MEMORY", "64MiB")
	pool := pgtest.New(t)
	e := newEnv(t, pool, false, true)
	cfg, err := e.f.Config()
	if err != nil {
		t.Fatal(err)
	}
	o, err := shared.SkillExecutorOptions(cfg)
	if err != nil || o.Limits.Timeout != 300*time.Millisecond || o.Limits.MemoryBytes != 64<<20 {
		t.Fatalf("options %+v %v", o, err)
	}
	o.CacheDir, o.JSChild = "-", []string{testbin.Helix(t), "skill", skill.ChildCommand}
	def := writeDef(t, "name: capped\nversion: 1\nsteps:\n  - { id: spin, skill: \"{{spin.js}}\", input: { loops: -1 } }\n")
	e.out.Out.Reset()
	err = runRun(context.Background(), &RunOptions{IO: e.f.IOStreams, F: e.f, Target: def, Input: "{}",
		NewExecutor: func() (*skill.Executor, error) { return skill.NewExecutor(o) }})
	if err == nil || !strings.Contains(err.Error(), "step spin: timeout: ") {
		t.Fatalf("run: %v", err)
	}
	var rec composite.Record
	if err := json.Unmarshal(e.out.Out.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if d := rec.Steps[0].DurationMS; d > 5000 {
		t.Errorf("a 300ms cap took %vms", d)
	}
	t.Setenv("HELIX_SKILL_TIMEOUT", "soon")
	e = newEnv(t, pool, false, false)
	cfg, _ = e.f.Config()
	if _, err := shared.SkillExecutorOptions(cfg); exitCode(err) != cmdutil.ExitUsage {
		t.Errorf("bad skill.timeout: %v", err)
	}
}
