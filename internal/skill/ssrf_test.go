package skill_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/helixhq/helix/internal/skill"
)

// TestSSRFNamespace: with services really listening on 169.254.169.254 (a
// cloud's metadata address) and 10.0.0.1 (a private network), a skill
// granted one loopback host cannot reach them by any spelling, through a
// redirect, or through a granted name that resolves to them. It runs in a
// network and mount namespace of its own (unshare -rnm), where the test
// adds those addresses to lo and binds its own /etc/hosts.
func TestSSRFNamespace(t *testing.T) {
	if os.Getenv("HELIX_TEST_IN_NETNS") != "1" {
		unshare, err := exec.LookPath("unshare")
		if err != nil {
			t.Skip("unshare (util-linux) is not installed")
		}
		if out, err := exec.Command(unshare, "-rnm", "true").CombinedOutput(); err != nil {
			t.Skipf("cannot create a user, network and mount namespace here (%v: %s)", err, strings.TrimSpace(string(out)))
		}
		cmd := exec.Command(unshare, "-rnm", os.Args[0], "-test.run=^TestSSRFNamespace$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "HELIX_TEST_IN_NETNS=1")
		out, err := cmd.CombinedOutput()
		t.Logf("in the namespace:\n%s", out)
		if err != nil || !strings.Contains(string(out), "--- PASS: TestSSRFNamespace") {
			t.Fatalf("the test in the namespace failed: %v", err)
		}
		return
	}
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"addr", "add", "10.0.0.1/32", "dev", "lo"},
		{"addr", "add", "169.254.169.254/32", "dev", "lo"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	hosts := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hosts, []byte("127.0.0.1 localhost\n169.254.169.254 metadata.test\n10.0.0.1 internal.test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(hosts, "/etc/hosts", "", syscall.MS_BIND, ""); err != nil {
		t.Fatalf("bind /etc/hosts: %v", err)
	}
	secret := func(addr string) {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "SECRET from "+addr)
		})}
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { _ = srv.Close() })
	}
	secret("169.254.169.254:80")
	secret("10.0.0.1:80")
	// proof that they answer in here: a plain client reaches both
	for _, u := range []string{"http://169.254.169.254/", "http://10.0.0.1/", "http://metadata.test/"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatalf("%s does not answer in the namespace: %v", u, err)
		}
		resp.Body.Close()
	}
	granted := weatherAPI(t)
	e := netExecutor(t, skill.NetLimits{}, nil)
	code := `async function main(input) {
		const out = {};
		for (const u of input.urls) {
			try { const r = await fetch(u); out[u] = "REACHED " + r.status + " " + (await r.text()); }
			catch (e) { out[u] = e.message; }
		}
		return out;
	}`
	spellings := []string{
		"http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/",
		"http://0xa9fea9fe/", "http://2852039166/", "http://0251.0376.0251.0376/", "http://169.254.169.254./",
		"http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]/", "http://169.254.169.254:80/", "http://0x0a000001/",
		"http://167772161/", "http://metadata.test/", "http://internal.test/", "https://169.254.169.254/",
		granted.URL + "/elsewhere?to=http://169.254.169.254/", granted.URL + "/elsewhere?to=http://10.0.0.1/",
		granted.URL + "/elsewhere?to=http://0xa9fea9fe/",
	}
	check := func(caps []string, allowPrivate bool, urls []string) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"urls": urls})
		res := run(t, e, jsSkill("ssrf", code, caps...), string(b), skill.StatusOK, skill.ExecOptions{AllowPrivate: allowPrivate})
		if strings.Contains(string(res.Output), "REACHED") || strings.Contains(string(res.Output), "SECRET") {
			t.Fatalf("caps %v reached an internal service:\n%s", caps, res.Output)
		}
		if res.Network == nil || res.Network.BytesReceived != 0 {
			t.Fatalf("caps %v: record %+v", caps, res.Network)
		}
		t.Logf("caps %v, allow-private %v:\n%s", caps, allowPrivate, res.Output)
	}
	check([]string{"net:http=" + hostPort(granted)}, true, spellings)
	// granted names that resolve to the metadata and private addresses: the
	// check is on the address dialled, so DNS cannot smuggle them in. The
	// metadata address stays closed even with the private-address opt-in.
	check([]string{"net:http=metadata.test", "net:https=metadata.test", "net:http=internal.test"}, true,
		[]string{"http://metadata.test/", "https://metadata.test/"})
	check([]string{"net:https=internal.test:80", "net:https=metadata.test:80"}, false,
		[]string{"https://internal.test:80/", "https://metadata.test:80/"})
	// the metadata address granted outright is still refused at dial time
	check([]string{"net:http=169.254.169.254", "net:http=[::ffff:169.254.169.254]"}, true,
		[]string{"http://169.254.169.254/", "http://[::ffff:169.254.169.254]/"})
	b, _ := json.Marshal(map[string]any{"urls": []string{"http://metadata.test/"}})
	res := run(t, e, jsSkill("ssrf", code, "net:http=metadata.test"), string(b), skill.StatusOK, skill.ExecOptions{AllowPrivate: true})
	if !strings.Contains(string(res.Output), "169.254.169.254: refusing a link-local, metadata") || !strings.Contains(res.Network.Calls[0].Refused, "never reachable") {
		t.Fatalf("metadata.test: %s, record %+v", res.Output, res.Network)
	}
}
