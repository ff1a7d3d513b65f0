package skill

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// FuzzDecodeFetchRequest feeds the host function's request decoding what a
// hostile skill could send: it never panics, and a request it accepts is
// well-formed and, for a skill granted one host, can reach only that host.
func FuzzDecodeFetchRequest(f *testing.F) {
	for _, s := range []string{
		`{"url": "https://api.example.com/v1/weather?city=Oslo"}`,
		`{"method": "post", "url": "https://api.example.com:443/x", "headers": {"Authorization": "Bearer k"}, "body": "{\"a\":1}"}`,
		`{"url": "https://api.example.com.:443@169.254.169.254/"}`,
		`{"url": "https://API.EXAMPLE.COM/", "body_base64": "AAEC"}`,
		`{"url": "http://[::ffff:169.254.169.254]/"}`,
		`{"url": "https://api.example.com/", "headers": {"Host": "169.254.169.254"}}`,
		`{"url": "https://api.example.com/", "headers": {"X-A": "a\r\nHost: evil"}}`,
		`{"url": "https://api.example.com\\@evil.com/"}`,
		`{"url": "https://evil.com#@api.example.com/"}`,
		`{"url": "//api.example.com/"}`, `{"url": "file:///etc/passwd"}`, `{"url": 1}`, `{}{}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	n := &netSession{grants: []NetGrant{{Scheme: "https", Host: "api.example.com", Port: "443"}}, lim: NetLimits{}.withDefaults(), deadline: time.Now().Add(time.Hour)}
	f.Fuzz(func(t *testing.T, b []byte) {
		req, u, body, err := DecodeFetchRequest(b, 1<<10)
		if err != nil {
			return
		}
		if int64(len(body)) > 1<<10 || u.User != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("accepted %q: %+v", b, u)
		}
		hr, err := http.NewRequest(req.Method, u.String(), nil)
		if err != nil {
			return // the client refuses it too: nothing is sent
		}
		for k, v := range req.Headers {
			if strings.ContainsAny(k+v, "\r\n\x00") || strings.EqualFold(k, "host") {
				t.Fatalf("accepted header %q: %q", k, v)
			}
			hr.Header.Set(k, v)
		}
		if _, why := n.allowed(hr.URL); why == "" {
			host, _ := canonicalHost(hr.URL.Hostname())
			if hr.URL.Scheme != "https" || host != "api.example.com" || (hr.URL.Port() != "" && hr.URL.Port() != "443") || hr.Host != "" && hr.Host != hr.URL.Host {
				t.Fatalf("%q reaches %s (host %q) under a grant of https://api.example.com:443", b, hr.URL, hr.Host)
			}
		}
	})
}
