package audit_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/cmd/factory"
	"github.com/helixhq/helix/internal/cmd/root"
	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill/skilltest"
)

// TestMain serves the JavaScript skills' child processes (this binary with
// "skill __run-js"), with no helix setting from the environment.
func TestMain(m *testing.M) {
	cmdtest.UnsetHelixEnv()
	skilltest.Main(m)
}

type result struct {
	Intact bool `json:"intact"`
	Tables []struct {
		Table   string `json:"table"`
		Rows    int64  `json:"rows"`
		Intact  bool   `json:"intact"`
		Problem *struct {
			Kind    string `json:"kind"`
			ID      *int64 `json:"id"`
			Message string `json:"message"`
		} `json:"problem"`
	} `json:"tables"`
}

// TestVerifyAfterRealRuns: skills run through helix skill exec (ok, error
// and invalid input) leave a chain audit verify accepts; an UPDATE of one
// execution as the database owner makes it exit 1 naming the table and the
// row, in text and in JSON; an anchor taken before the newest rows are
// deleted (and the head put back) still finds it.
func TestVerifyAfterRealRuns(t *testing.T) {
	t.Setenv("HELIX_SKILL_CACHE_DIR", skilltest.CacheDir())
	url := pgtest.URL(t)
	t.Setenv("HELIX_DATABASE_URL", url)
	pool := pgtest.Open(t, url)
	ctx := context.Background()
	config := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(config, nil, 0o600)
	// run is helix with argv, in-process as the binary runs it (the root
	// command, its settings): skill exec and audit verify through one tree.
	run := func(group string, json bool, argv ...string) (string, string, cmdutil.ExitCode) {
		t.Helper()
		f, cleanup := factory.New("test")
		defer cleanup()
		ios, _, out, errOut := iostreams.Test()
		f.IOStreams = ios
		cmd := root.NewCmdRoot(f)
		args := append([]string{group}, argv...)
		args = append(args, "--config", config)
		if json {
			args = append(args, "-o", "json")
		}
		cmd.SetArgs(args)
		cmd.SetOut(out)
		cmd.SetErr(errOut)
		err := cmd.ExecuteContext(ctx)
		code, _ := cmdutil.ExitCodeFor(ctx, err)
		if err != nil {
			errOut.WriteString("error: " + err.Error() + "\n")
		}
		return out.String(), errOut.String(), code
	}
	const skill, audit = "skill", "audit"

	dir := t.TempDir()
	ok, bad := filepath.Join(dir, "ok.js"), filepath.Join(dir, "bad.js")
	os.WriteFile(ok, []byte(`function main(x) { return {n: 1.5, s: "é"}; }`), 0o644)
	os.WriteFile(bad, []byte(`function main(x) { throw new Error("no"); }`), 0o644)
	for _, argv := range [][]string{{"exec", ok}, {"exec", bad}, {"exec", ok, "--user-id", "6f1c2d4e-8a9b-4c3d-9e8f-7a6b5c4d3e2f"}, {"exec", ok}} {
		run(skill, false, argv...)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM skill_executions WHERE chain_hash IS NOT NULL`).Scan(&n); err != nil || n != 4 {
		t.Fatalf("chained skill runs: %d %v, want 4", n, err)
	}

	out, errOut, code := run(audit, false, "verify")
	if code != 0 || !strings.Contains(out, "skill_executions\t4\t4\tintact") {
		t.Fatalf("verify after real runs: exit %d\n%s%s", code, out, errOut)
	}
	anchorOut, errOut, code := run(audit, true, "anchor")
	if code != 0 || strings.Count(anchorOut, "\n") != 1 {
		t.Fatalf("anchor: exit %d %q %s", code, anchorOut, errOut)
	}
	anchor := filepath.Join(dir, "anchors.jsonl")
	os.WriteFile(anchor, []byte("{\"not\":\"the newest\"}\n"+anchorOut), 0o600)

	var status, errText string
	if err := pool.QueryRow(ctx, `SELECT status, coalesce(error, '') FROM skill_executions WHERE id = 2`).Scan(&status, &errText); err != nil || status == "ok" {
		t.Fatalf("the failed run: %s %v", status, err)
	}
	if _, err := pool.Exec(ctx, `UPDATE skill_executions SET status = 'ok', error = NULL WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(audit, true, "verify")
	var r result
	if code != 1 || json.Unmarshal([]byte(out), &r) != nil || r.Intact {
		t.Fatalf("verify after an UPDATE: exit %d %q %s", code, out, errOut)
	}
	for _, tb := range r.Tables {
		if tb.Table == "skill_executions" && (tb.Intact || tb.Problem.Kind != "changed" || *tb.Problem.ID != 2) {
			t.Errorf("skill_executions: %+v %+v, want row 2 changed", tb, tb.Problem)
		}
	}
	if !strings.Contains(errOut, "audit chain broken: skill_executions: row id 2 (chain seq 2) changed") {
		t.Errorf("error line: %s", errOut)
	}

	// put it back, then delete the newest rows
	pool.Exec(ctx, `UPDATE skill_executions SET status = $1, error = $2 WHERE id = 2`, status, errText)
	if _, err := pool.Exec(ctx, `DELETE FROM skill_executions WHERE chain_seq >= 3`); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code = run(audit, false, "verify", "--table", "skill_executions"); code != 0 {
		t.Fatalf("restored row, newest rows deleted: exit %d, want 0 (only an anchor finds this)\n%s%s", code, out, errOut)
	}
	out, errOut, code = run(audit, false, "verify", "--anchor", anchor)
	if code != 1 || !strings.Contains(errOut, "skill_executions: the anchor of") || !strings.Contains(out, "truncated") {
		t.Errorf("verify --anchor after deleting the newest rows: exit %d\n%s%s", code, out, errOut)
	}

	for argv, want := range map[string]string{
		"verify --table memories":       "invalid --table",
		"verify --since yesterday":      "invalid --since",
		"verify --anchor " + ok:         "not an audit anchor",
		"verify --anchor /nonexistent/": "read anchor",
	} {
		if _, errOut, code := run(audit, false, strings.Fields(argv)...); code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d %s, want 2 and %q", argv, code, errOut, want)
		}
	}
}
