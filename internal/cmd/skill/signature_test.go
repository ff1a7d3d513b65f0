package skill_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill/skilltest"
)

// TestSignedSkills (issue 46): a skill signed with ssh-keygen -Y sign -n
// helix-skill by a key of skill.trusted-signers is added with its signer
// recorded and shown; one changed byte is refused (exit 2); with
// skill.require-signature an unsigned skill is refused at add, and a stored
// skill whose signer is no longer trusted is refused when loaded to run.
func TestSignedSkills(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen not installed (Debian: openssh-client; make test installs it)")
	}
	t.Setenv("HELIX_SKILL_CACHE_DIR", skilltest.CacheDir())
	db := pgtest.New(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	pub, _ := os.ReadFile(key + ".pub")
	signers := filepath.Join(dir, "allowed_signers")
	os.WriteFile(signers, []byte("alice@example.com "+string(pub)), 0o644)
	t.Setenv("HELIX_SKILL_TRUSTED_SIGNERS", signers)

	code := filepath.Join(dir, "greet.js")
	os.WriteFile(code, []byte(`function main(x) { return {hi: x.name}; }`), 0o644)
	if out, err := exec.Command("ssh-keygen", "-Y", "sign", "-n", "helix-skill", "-f", key, code).CombinedOutput(); err != nil {
		t.Fatalf("sign: %v %s", err, out)
	}
	factory := func(s *cmdtest.Streams) *cmdutil.Factory {
		f, streams := cmdtest.Factory(t, false)
		*s = streams
		return cmdtest.WithDB(f, db)
	}

	out, errOut, code1 := run(t, false, factory, "add "+code+" --name greet --signature "+code+".sig", "")
	if code1 != 0 || !strings.Contains(out, "signed by alice@example.com SHA256:") {
		t.Fatalf("add signed: exit %d %q %s", code1, out, errOut)
	}
	jf := func(s *cmdtest.Streams) *cmdutil.Factory { f := factory(s); f.Global.Output = "json"; return f }
	out, errOut, code1 = run(t, false, jf, "show greet", "")
	var shown struct {
		SignedBy *struct{ Principal, Fingerprint string } `json:"signed_by"`
	}
	if code1 != 0 || json.Unmarshal([]byte(out), &shown) != nil || shown.SignedBy == nil || shown.SignedBy.Principal != "alice@example.com" {
		t.Fatalf("show: exit %d %q %s", code1, out, errOut)
	}
	if out, errOut, code1 := run(t, false, factory, "exec greet --input {\"name\":\"a\"}", ""); code1 != 0 || !strings.Contains(out, `"hi":"a"`) {
		t.Fatalf("exec signed: exit %d %q %s", code1, out, errOut)
	}

	// one byte changed after signing
	os.WriteFile(code, []byte(`function main(x) { return {hi: x.nome}; }`), 0o644)
	if _, errOut, code1 := run(t, false, factory, "add "+code+" --name greet2 --signature "+code+".sig", ""); code1 != 2 || !strings.Contains(errOut, "does not match the code") {
		t.Errorf("changed byte: exit %d %s", code1, errOut)
	}
	// unsigned, with signatures required
	t.Setenv("HELIX_SKILL_REQUIRE_SIGNATURE", "true")
	if _, errOut, code1 := run(t, false, factory, "add "+code+" --name greet3", ""); code1 != 2 || !strings.Contains(errOut, "unsigned and skill.require-signature is on") {
		t.Errorf("unsigned with require-signature: exit %d %s", code1, errOut)
	}
	var n int
	db.QueryRow(context.Background(), `SELECT count(*) FROM helix_skills WHERE name IN ('greet2', 'greet3')`).Scan(&n)
	if n != 0 {
		t.Errorf("%d refused skills stored", n)
	}
	// the signer is no longer trusted: the stored skill is refused when loaded to run
	os.WriteFile(signers, []byte("# nobody\n"), 0o644)
	if _, errOut, code1 := run(t, false, factory, "exec greet --input {}", ""); code1 != 2 || !strings.Contains(errOut, "greet@1 refused: signed by ssh-ed25519") {
		t.Errorf("exec after the signer was removed: exit %d %s", code1, errOut)
	}
}

// TestScrubbedRecords (issue 46): a skill that prints an API key leaves the
// scrubber's marker in skill_executions (output and log), never the key, with
// the replacements counted; the caller gets the output as the skill made it
// unless --scrub-output.
func TestScrubbedRecords(t *testing.T) {
	t.Setenv("HELIX_SKILL_CACHE_DIR", skilltest.CacheDir())
	db := pgtest.New(t)
	factory := func(s *cmdtest.Streams) *cmdutil.Factory {
		f, streams := cmdtest.Factory(t, false)
		*s = streams
		return cmdtest.WithDB(f, db)
	}
	const key = "sk-live-abcdefghijklmnopqrstuvwx"
	file := filepath.Join(t.TempDir(), "leak.js")
	os.WriteFile(file, []byte(`function main(x) { console.log("using `+key+`"); return {key: "`+key+`", n: 4111111111111111, mail: "ann@example.com"}; }`), 0o644)

	out, errOut, code := run(t, false, factory, "exec "+file, "")
	if code != 0 || !strings.Contains(out, key) {
		t.Fatalf("exec: exit %d %q %s, want the key on stdout (the caller's result is unchanged)", code, out, errOut)
	}
	var output, stderr string
	var keys, emails, cards int
	if err := db.QueryRow(context.Background(), `SELECT output, coalesce(stderr, ''), (scrubbed->>'keys')::int, (scrubbed->>'emails')::int, (scrubbed->>'cards')::int
		FROM skill_executions`).Scan(&output, &stderr, &keys, &emails, &cards); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(output+stderr, key) || !strings.Contains(output, `"key":"[KEY]"`) || !strings.Contains(output, `"mail":"[EMAIL]"`) ||
		!strings.Contains(output, "4111111111111111") || !strings.Contains(stderr, "using [KEY]") {
		t.Errorf("stored output %s, log %q", output, stderr)
	}
	if !json.Valid([]byte(output)) || keys != 2 || emails != 1 || cards != 0 {
		t.Errorf("stored output valid JSON: %v; scrubbed keys %d, emails %d, cards %d", json.Valid([]byte(output)), keys, emails, cards)
	}
	out, _, code = run(t, false, factory, "exec "+file+" --scrub-output", "")
	if code != 0 || strings.Contains(out, key) || !strings.Contains(out, "[KEY]") {
		t.Errorf("--scrub-output: exit %d %q", code, out)
	}
}
