package skill_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/skill/skilltest"
	"github.com/helixhq/helix/internal/testbin"
)

// netExecutor is an executor with the given network limits and trusted roots.
func netExecutor(t *testing.T, nl skill.NetLimits, roots *x509.CertPool, jsChild ...string) *skill.Executor {
	t.Helper()
	if len(jsChild) == 0 {
		jsChild = []string{testbin.Helix(t), "skill", skill.ChildCommand}
	}
	e, err := skill.NewExecutor(skill.ExecutorOptions{CacheDir: skilltest.CacheDir(), JSChild: jsChild, Net: nl, NetRootCAs: roots})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// weatherAPI answers GET /weather with a JSON document (given the key "k-123"), as a JSON API does,
// and redirects /elsewhere to the URL in ?to=.
func weatherAPI(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(weatherHandler())
	t.Cleanup(srv.Close)
	return srv
}

func weatherHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/weather":
			if r.Header.Get("Authorization") != "Bearer k-123" {
				http.Error(w, `{"error":"bad key"}`, http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"city":%q,"temp_c":21.5}`, r.URL.Query().Get("city"))
		case "/elsewhere":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
}

const weatherJS = `async function main(input) {
	const r = await fetch(input.url, { headers: [["Authorization", "Bearer " + (env.API_KEY || "k-123")]] });
	const body = await r.json();
	return { status: r.status, temp_c: body.temp_c, type: r.headers.get("Content-Type") };
}`

func hostPort(srv *httptest.Server) string {
	return strings.TrimPrefix(strings.TrimPrefix(srv.URL, "http://"), "https://")
}

func TestJSFetchGranted(t *testing.T) {
	srv := weatherAPI(t)
	e := netExecutor(t, skill.NetLimits{}, nil)
	s := jsSkill("weather", weatherJS, "net:http="+hostPort(srv), "env:API_KEY")
	res := run(t, e, s, fmt.Sprintf(`{"url": %q}`, srv.URL+"/weather?city=Oslo&key=secret-in-query"), skill.StatusOK,
		skill.ExecOptions{AllowPrivate: true, Env: map[string]string{"API_KEY": "k-123"}})
	var out struct {
		Status int     `json:"status"`
		Temp   float64 `json:"temp_c"`
		Type   string  `json:"type"`
	}
	if err := json.Unmarshal(res.Output, &out); err != nil || out.Status != 200 || out.Temp != 21.5 || out.Type != "application/json" {
		t.Fatalf("output %s (%v)", res.Output, err)
	}
	n := res.Network
	if n == nil || n.Requests != 1 || n.Refused != 0 || len(n.Hosts) != 1 || n.Hosts[0] != "http://"+hostPort(srv) ||
		len(n.Calls) != 1 || n.Calls[0].Status != 200 || n.Calls[0].Method != "GET" || n.BytesReceived != int64(len(`{"city":"Oslo","temp_c":21.5}`)) {
		t.Fatalf("network record %+v", n)
	}
	b, _ := json.Marshal(n)
	if strings.Contains(string(b), "secret-in-query") || strings.Contains(string(b), "/weather") {
		t.Fatalf("the record keeps a path or query: %s", b)
	}
}

func TestJSFetchRefused(t *testing.T) {
	a, b := weatherAPI(t), weatherAPI(t)
	e := netExecutor(t, skill.NetLimits{}, nil)
	url := a.URL + "/weather"
	for _, tc := range []struct {
		name         string
		caps         []string
		allowPrivate bool
		url, want    string
	}{
		{"no capability", nil, true, url, "the skill has no network capability"},
		{"http without the opt-in", []string{"net:http=" + hostPort(a)}, false, url, "only with the private-address opt-in"},
		{"https grant, http request", []string{"net:https=" + hostPort(a)}, true, url, "is not among the skill's granted hosts"},
		{"host B", []string{"net:http=" + hostPort(a)}, true, b.URL + "/weather", "is not among the skill's granted hosts (http://" + hostPort(a) + ")"},
		{"redirect to B", []string{"net:http=" + hostPort(a)}, true, a.URL + "/elsewhere?to=" + b.URL + "/weather", "redirect to http://" + hostPort(b) + ": http://" + hostPort(b) + " is not among"},
		{"localhost is another host", []string{"net:http=" + hostPort(a)}, true, strings.Replace(url, "127.0.0.1", "localhost", 1), "not among the skill's granted hosts"},
		{"file URL", []string{"net:http=" + hostPort(a)}, true, "file:///etc/passwd", "use an absolute http or https URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := skill.StatusRefused
			if tc.name == "file URL" {
				want = skill.StatusError // a malformed request, not a refused one
			}
			res := run(t, e, jsSkill("weather", weatherJS, tc.caps...), fmt.Sprintf(`{"url": %q}`, tc.url), want, skill.ExecOptions{AllowPrivate: tc.allowPrivate})
			if !strings.Contains(res.Error, tc.want) || !strings.Contains(res.Error, "TypeError: fetch GET") {
				t.Fatalf("error %q, want it to say %q", res.Error, tc.want)
			}
			if want == skill.StatusRefused && (res.Network == nil || res.Network.Refused != 1 || !strings.Contains(res.Network.Calls[0].Refused, tc.want)) {
				t.Fatalf("record %+v", res.Network)
			}
		})
	}
}

// The skill may catch a refusal and go on: the run is ok, the record still says why.
func TestJSFetchRefusalCaught(t *testing.T) {
	e := netExecutor(t, skill.NetLimits{}, nil)
	code := `async function main(input) { try { await fetch("https://api.example.com/x"); return "sent"; } catch (e) { return e.name + ": " + e.message; } }`
	res := run(t, e, jsSkill("catch", code), `{}`, skill.StatusOK, skill.ExecOptions{})
	if !strings.Contains(string(res.Output), "TypeError: fetch GET https://api.example.com:443: refused: the skill has no network capability") {
		t.Fatalf("output %s", res.Output)
	}
	if res.Network == nil || res.Network.Refused != 1 || res.Network.Requests != 0 || res.Network.Calls[0].Origin != "https://api.example.com:443" {
		t.Fatalf("record %+v", res.Network)
	}
}

func TestFetchTLSVerified(t *testing.T) {
	srv := httptest.NewTLSServer(weatherHandler())
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	s := jsSkill("weather", weatherJS, "net:https="+hostPort(srv))
	in := fmt.Sprintf(`{"url": %q}`, srv.URL+"/weather")
	// trusted: the skill's grant is https, the address loopback (opt-in)
	res := run(t, netExecutor(t, skill.NetLimits{}, pool), s, in, skill.StatusOK, skill.ExecOptions{AllowPrivate: true})
	if !strings.Contains(string(res.Output), `"temp_c":21.5`) {
		t.Fatalf("output %s", res.Output)
	}
	// the same server with the system's roots: the certificate is refused
	res = run(t, netExecutor(t, skill.NetLimits{}, nil), s, in, skill.StatusError, skill.ExecOptions{AllowPrivate: true})
	if !strings.Contains(res.Error, "certificate") || res.Network == nil || !strings.Contains(res.Network.Calls[0].Error, "certificate") {
		t.Fatalf("error %q, record %+v", res.Error, res.Network)
	}
}

func TestWasmFetch(t *testing.T) {
	srv := weatherAPI(t)
	e := netExecutor(t, skill.NetLimits{}, nil)
	in := fmt.Sprintf(`{"url": %q, "field": "temp_c", "headers": {"Authorization": "Bearer k-123"}}`, srv.URL+"/weather?city=Bergen")
	res := run(t, e, wasmSkill(t, "fetch", "net:http="+hostPort(srv)), in, skill.StatusOK, skill.ExecOptions{AllowPrivate: true})
	if string(res.Output) != `{"status":200,"temp_c":21.5}` {
		t.Fatalf("output %s", res.Output)
	}
	if res.Network == nil || res.Network.Requests != 1 || res.Network.Calls[0].Status != 200 {
		t.Fatalf("record %+v", res.Network)
	}
	// without the grant, the host function answers with the refusal
	res = run(t, e, wasmSkill(t, "fetch"), in, skill.StatusRefused, skill.ExecOptions{AllowPrivate: true})
	if !strings.Contains(res.Error, "refused: the skill has no network capability") {
		t.Fatalf("error %q", res.Error)
	}
	// granted A, redirected to B
	b := weatherAPI(t)
	in = fmt.Sprintf(`{"url": %q, "field": "temp_c"}`, srv.URL+"/elsewhere?to="+b.URL+"/weather")
	res = run(t, e, wasmSkill(t, "fetch", "net:http="+hostPort(srv)), in, skill.StatusRefused, skill.ExecOptions{AllowPrivate: true})
	if !strings.Contains(res.Error, "refused: redirect to http://"+hostPort(b)+": http://"+hostPort(b)+" is not among") {
		t.Fatalf("error %q", res.Error)
	}
}

// TestFetchBounds: a response over the cap, a server that never answers,
// and 1,000 requests in a loop each end bounded, recorded, without a crash.
func TestFetchBounds(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			chunk := strings.Repeat("x", 64<<10)
			for i := 0; i < 64; i++ { // 4 MiB
				if _, err := w.Write([]byte(chunk)); err != nil {
					return
				}
			}
		case "/hang":
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		default:
			fmt.Fprint(w, `{}`)
		}
	}))
	defer srv.Close()
	defer close(hang)
	e := netExecutor(t, skill.NetLimits{MaxResponseBytes: 1 << 20, RequestTimeout: time.Second, MaxRequests: 50}, nil)
	caps := "net:http=" + hostPort(srv)
	one := `async function main(input) { try { const r = await fetch(input.url); return (await r.text()).length; } catch (e) { return e.message; } }`

	res := run(t, e, jsSkill("big", one, caps), fmt.Sprintf(`{"url": %q}`, srv.URL+"/big"), skill.StatusOK, skill.ExecOptions{AllowPrivate: true})
	if !strings.Contains(string(res.Output), "larger than the limit of 1 MiB (skill.net.max-response)") ||
		res.Network.BytesReceived != 1<<20 || res.Network.Calls[0].Status != 200 {
		t.Fatalf("big: output %s, record %+v", res.Output, res.Network)
	}

	res = run(t, e, jsSkill("hang", one, caps), fmt.Sprintf(`{"url": %q}`, srv.URL+"/hang"), skill.StatusOK, skill.ExecOptions{AllowPrivate: true})
	if !strings.Contains(string(res.Output), "no answer within 1s") || !strings.Contains(res.Network.Calls[0].Error, "no answer within 1s") {
		t.Fatalf("hang: output %s, record %+v", res.Output, res.Network)
	}
	// a server that never answers cannot hold a run past its own timeout
	res = run(t, netExecutor(t, skill.NetLimits{RequestTimeout: time.Minute}, nil), jsSkill("hang", one, caps),
		fmt.Sprintf(`{"url": %q}`, srv.URL+"/hang"), skill.StatusOK, skill.ExecOptions{AllowPrivate: true, Limits: skill.Limits{Timeout: 3 * time.Second}})
	if !strings.Contains(string(res.Output), "no answer within") {
		t.Fatalf("hang within the run's timeout: output %s", res.Output)
	}

	loop := `async function main(input) {
		let ok = 0, refused = 0;
		for (let i = 0; i < 1000; i++) {
			try { await fetch(input.url); ok++; } catch (e) { if (e.message.includes("the limit of 50 requests a run")) refused++; }
		}
		return { ok, refused };
	}`
	res = run(t, e, jsSkill("loop", loop, caps), fmt.Sprintf(`{"url": %q}`, srv.URL+"/"), skill.StatusOK, skill.ExecOptions{AllowPrivate: true})
	if string(res.Output) != `{"ok":50,"refused":950}` {
		t.Fatalf("loop: output %s", res.Output)
	}
	if n := res.Network; n.Requests != 50 || n.Refused != 950 || len(n.Calls) != 100 || n.CallsDropped != 900 {
		t.Fatalf("loop: record requests %d refused %d calls %d dropped %d", n.Requests, n.Refused, len(n.Calls), n.CallsDropped)
	}
}

func TestNetCapabilities(t *testing.T) {
	for in, want := range map[string]string{
		"net:https=API.Example.com.":     "net:https=api.example.com:443",
		"net:https=api.example.com:8443": "net:https=api.example.com:8443",
		"net:http=127.0.0.1:8080":        "net:http=127.0.0.1:8080",
		"net:http=[::1]:8080":            "net:http=[::1]:8080",
		"net:http=localhost":             "net:http=localhost:80",
	} {
		_, norm, err := skill.ParseCapabilities([]string{in})
		if err != nil || len(norm) != 1 || norm[0] != want {
			t.Errorf("%s: %v %v, want %s", in, norm, err, want)
		}
	}
	for _, bad := range []string{"net:https=", "net:https=*.example.com", "net:https=a.com/path", "net:https=user@a.com",
		"net:https=a.com:0", "net:https=a.com:99999", "net:https=a.com:08", "net:ftp=a.com", "net:https=a..com", "net:https=[fe80::1%eth0]:80"} {
		if _, _, err := skill.ParseCapabilities([]string{bad}); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestNetworkRecorded: skill_executions keeps what each run cost and did on
// the network (hosts, counts, bytes, statuses, refusals with why), never a
// path, a query or a body.
func TestNetworkRecorded(t *testing.T) {
	ctx := context.Background()
	tx := pgtest.Tx(t)
	srv := weatherAPI(t)
	e := netExecutor(t, skill.NetLimits{}, nil)
	code := `async function main(input) {
		const r = await fetch(input.url, { headers: { Authorization: "Bearer k-123" } });
		const j = await r.json();
		await fetch("https://api.example.com/x?token=abc");
		return j.temp_c;
	}`
	in := []byte(fmt.Sprintf(`{"url": %q}`, srv.URL+"/weather?city=secret-city"))
	res, err := e.Exec(ctx, tx, jsSkill("weather", code, "net:http="+hostPort(srv)), skill.ExecOptions{Input: in, AllowPrivate: true})
	if err != nil || res.Status != skill.StatusRefused {
		t.Fatalf("status %s (%s), %v", res.Status, res.Error, err)
	}
	var status string
	var cpu float64
	var peak int64
	var network string
	if err := tx.QueryRow(ctx, `SELECT status, cpu_ms, peak_rss_bytes, network::text FROM skill_executions WHERE id = $1`, res.ExecutionID).
		Scan(&status, &cpu, &peak, &network); err != nil {
		t.Fatal(err)
	}
	var rec skill.NetworkRecord
	if err := json.Unmarshal([]byte(network), &rec); err != nil {
		t.Fatal(err)
	}
	if status != "refused" || cpu <= 0 || peak <= 0 || rec.Requests != 1 || rec.Refused != 1 || len(rec.Calls) != 2 ||
		rec.Calls[0].Status != 200 || rec.Calls[1].Origin != "https://api.example.com:443" || !strings.Contains(rec.Calls[1].Refused, "is not among the skill's granted hosts") {
		t.Fatalf("row: %s cpu %v peak %v network %s", status, cpu, peak, network)
	}
	if strings.Contains(network, "secret-city") || strings.Contains(network, "token") || strings.Contains(network, "21.5") {
		t.Fatalf("the record keeps a query or a body: %s", network)
	}
}
