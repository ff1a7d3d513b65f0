package skill_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/skill"
)

// sshKey makes a key pair with ssh-keygen and returns the private key's path
// and the public key line.
func sshKey(t testing.TB, dir, name, typ string) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen not installed (Debian: openssh-client; make test installs it)")
	}
	key := filepath.Join(dir, name)
	args := []string{"-q", "-t", typ, "-N", "", "-C", name, "-f", key}
	if out, err := exec.Command("ssh-keygen", args...).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return key, strings.TrimSpace(string(pub))
}

// sign signs file with ssh-keygen -Y sign for namespace and returns the signature.
func sign(t testing.TB, key, file, namespace string) []byte {
	t.Helper()
	os.Remove(file + ".sig")
	if out, err := exec.Command("ssh-keygen", "-Y", "sign", "-n", namespace, "-f", key, file).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -Y sign: %v\n%s", err, out)
	}
	b, err := os.ReadFile(file + ".sig")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSignaturesAsSSHKeygenMakesThem: signatures made by ssh-keygen -Y sign
// with ed25519 and ECDSA keys verify against an allowed-signers file that
// ssh-keygen -Y verify accepts too; a changed byte, another namespace, an
// untrusted key, a key outside its validity or namespaces are refused.
func TestSignaturesAsSSHKeygenMakesThem(t *testing.T) {
	dir := t.TempDir()
	edKey, edPub := sshKey(t, dir, "ed", "ed25519")
	ecKey, ecPub := sshKey(t, dir, "ec", "ecdsa")
	_, otherPub := sshKey(t, dir, "other", "ed25519")
	strangerKey, _ := sshKey(t, dir, "stranger", "ed25519")
	code := []byte("function main(x) { return x }\n")
	file := filepath.Join(dir, "skill.js")
	os.WriteFile(file, code, 0o644)
	allowed := "# operators\nalice@example.com " + edPub + "\n" +
		`bob@example.com,ci namespaces="helix-skill,git" ` + ecPub + "\n" +
		`old@example.com valid-before="20200101" ` + otherPub + "\n"
	allowedFile := filepath.Join(dir, "allowed_signers")
	os.WriteFile(allowedFile, []byte(allowed), 0o644)
	signers, err := skill.ParseAllowedSigners([]byte(allowed))
	if err != nil || signers.Len() != 3 {
		t.Fatalf("parse: %d %v", signers.Len(), err)
	}
	now := time.Now()

	for _, c := range []struct{ key, principal string }{{edKey, "alice@example.com"}, {ecKey, "bob@example.com"}} {
		sig := sign(t, c.key, file, "helix-skill")
		// ssh-keygen itself agrees, with the same allowed-signers file
		v := exec.Command("ssh-keygen", "-Y", "verify", "-f", allowedFile, "-I", c.principal, "-n", "helix-skill", "-s", file+".sig")
		v.Stdin = bytes.NewReader(code)
		if out, err := v.CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen -Y verify disagrees: %v %s", err, out)
		}
		got, err := signers.Verify(code, sig, now)
		if err != nil || got.Principal != c.principal || !strings.HasPrefix(got.Fingerprint, "SHA256:") {
			t.Errorf("%s: %+v %v", c.principal, got, err)
		}
		changed := append([]byte{}, code...)
		changed[10] ^= 1
		if _, err := signers.Verify(changed, sig, now); err == nil || !strings.Contains(err.Error(), "does not match the code") {
			t.Errorf("%s, one byte changed: %v", c.principal, err)
		}
	}
	for name, c := range map[string]struct {
		sig  []byte
		want string
	}{
		"other namespace": {sign(t, edKey, file, "git"), `namespace "git"`},
		"untrusted key":   {sign(t, strangerKey, file, "helix-skill"), "does not trust"},
		"not a signature": {[]byte("-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n"), "not an SSH signature"},
		"empty":           {nil, "not an SSH signature"},
	} {
		if _, err := signers.Verify(code, c.sig, now); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	// a key trusted only before 2020, and a key trusted for git only
	expired, _ := skill.ParseAllowedSigners([]byte(`old valid-before="20200101" ` + edPub))
	gitOnly, _ := skill.ParseAllowedSigners([]byte(`g namespaces="git" ` + edPub))
	sig := sign(t, edKey, file, "helix-skill")
	for name, s := range map[string]*skill.Signers{"expired": expired, "git only": gitOnly} {
		if _, err := s.Verify(code, sig, now); err == nil || !strings.Contains(err.Error(), "does not trust") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestParseAllowedSigners(t *testing.T) {
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHWo1D2n0fO6Tr3bV3TRg5ZoH1xJ0b0Y4t0u8i3zQ0g5 c"
	for in, want := range map[string]string{
		"a " + key:                            "",
		`a,b namespaces="helix-skill" ` + key: "",
		`a cert-authority ` + key:             "", // ignored, not an error
		`a valid-after="20260101Z" ` + key:    "",
		"a":                                   "missing field",
		"a ssh-ed25519 AAAA":                  "public key",
		`a unknown-opt ` + key:                "unknown option",
		`a valid-after="2026" ` + key:         "want YYYYMMDD",
		`a namespaces="x ` + key:              "unterminated quote",
		`, ` + key:                            "no principal",
	} {
		_, err := skill.ParseAllowedSigners([]byte(in))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func FuzzParseAllowedSigners(f *testing.F) {
	f.Add([]byte("alice ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHWo1D2n0fO6Tr3bV3TRg5ZoH1xJ0b0Y4t0u8i3zQ0g5\n"))
	f.Add([]byte(`a,b namespaces="helix-skill,git",valid-before="20300101" ecdsa-sha2-nistp256 AAAA`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := skill.ParseAllowedSigners(b)
		if err != nil {
			return
		}
		_, _ = s.Verify([]byte("code"), b, time.Now()) // never panics
	})
}

func FuzzVerifySignature(f *testing.F) {
	f.Add([]byte("-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ==\n-----END SSH SIGNATURE-----\n"))
	f.Add([]byte("not armored"))
	signers, err := skill.ParseAllowedSigners([]byte("a ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHWo1D2n0fO6Tr3bV3TRg5ZoH1xJ0b0Y4t0u8i3zQ0g5\n"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, sig []byte) {
		if _, err := signers.Verify([]byte("code"), sig, time.Now()); err == nil {
			t.Fatal("a fuzzed signature verified")
		}
	})
}
