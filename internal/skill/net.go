package skill

import (
	"bufio"
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/size"
)

// NetGrant is one net:https=HOST[:PORT] or net:http=HOST[:PORT] capability:
// the skill may send requests to that scheme, host and port, nothing else.
type NetGrant struct {
	Scheme string // "https" or "http"
	Host   string // lower case; an IP address in its canonical form
	Port   string // the scheme's default when the grant names none
}

// Origin is scheme://host:port, as records and messages name a grant.
func (g NetGrant) Origin() string {
	return g.Scheme + "://" + net.JoinHostPort(g.Host, g.Port)
}

// Capability strings of the network.
const (
	CapNetHTTPS = "net:https=" // net:https=api.example.com[:PORT]
	CapNetHTTP  = "net:http="  // net:http=127.0.0.1:8080, only with the private-address opt-in
)

func defaultPort(scheme string) string {
	if scheme == "http" {
		return "80"
	}
	return "443"
}

// parseNetGrant reads HOST[:PORT] (an IPv6 address in brackets).
func parseNetGrant(scheme, v string) (NetGrant, error) {
	host, port := v, ""
	if h, p, err := net.SplitHostPort(v); err == nil {
		host, port = h, p
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 || p != strconv.Itoa(n) {
			return NetGrant{}, fmt.Errorf("port %q: use a number from 1 to 65535", p)
		}
	} else if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		host = v[1 : len(v)-1]
	}
	h, err := canonicalHost(host)
	if err != nil {
		return NetGrant{}, err
	}
	if port == "" {
		port = defaultPort(scheme)
	}
	return NetGrant{Scheme: scheme, Host: h, Port: port}, nil
}

// canonicalHost is how a host is compared: an IP address in Go's canonical
// form (so ::1 and 0:0::1 are one), a DNS name in lower case without a final
// dot. Anything else (a path, user info, a wildcard) is refused.
func canonicalHost(h string) (string, error) {
	if h == "" {
		return "", errors.New("name a host, e.g. net:https=api.example.com")
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		if ip.Zone() != "" {
			return "", fmt.Errorf("host %q: an address with a zone cannot be granted", h)
		}
		return ip.String(), nil
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if len(h) > 253 {
		return "", fmt.Errorf("host %q: longer than a DNS name can be", h)
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return "", fmt.Errorf("host %q: not a DNS name or IP address", h)
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return "", fmt.Errorf("host %q: not a DNS name or IP address (letters, digits, '-' and '.')", h)
			}
		}
	}
	return h, nil
}

// NetLimits bound a run's requests; zero fields take the defaults.
type NetLimits struct {
	MaxRequests      int           // per run (skill.net.max-requests)
	RequestTimeout   time.Duration // per request, within the run's own timeout (skill.net.timeout)
	MaxRequestBytes  int64         // a request's body (skill.net.max-request)
	MaxResponseBytes int64         // a response's body (skill.net.max-response)
}

// Network defaults.
const (
	DefaultNetMaxRequests   = 50
	DefaultNetTimeout       = 10 * time.Second
	DefaultNetMaxRequest    = 1 << 20
	DefaultNetMaxResponse   = 4 << 20
	maxNetHeaders           = 64
	maxNetHeaderBytes       = 16 << 10
	maxNetRedirects         = 5
	maxRecordedCalls        = 100
	netRequestEnvelopeBytes = 64 << 10 // a request document beyond its body
)

func (l NetLimits) withDefaults() NetLimits {
	if l.MaxRequests <= 0 {
		l.MaxRequests = DefaultNetMaxRequests
	}
	if l.RequestTimeout <= 0 {
		l.RequestTimeout = DefaultNetTimeout
	}
	if l.MaxRequestBytes <= 0 {
		l.MaxRequestBytes = DefaultNetMaxRequest
	}
	if l.MaxResponseBytes <= 0 {
		l.MaxResponseBytes = DefaultNetMaxResponse
	}
	return l
}

// maxRequestDoc caps a request document as the skill sends it: the body
// JSON-escaped (at most 6 bytes a byte) and the rest.
func (l NetLimits) maxRequestDoc() int64 { return 6*l.MaxRequestBytes + netRequestEnvelopeBytes }

// FetchRequest is the document a skill sends to make a request: the
// argument of the wasm import helix.http_request and what the JavaScript
// fetch sends to helix.
type FetchRequest struct {
	Method  string            `json:"method,omitempty"` // GET when empty
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	// BodyBase64 is a binary body (instead of Body).
	BodyBase64 string `json:"body_base64,omitempty"`
}

// FetchResponse is the document a skill gets back. Error is set when no
// answer came (Refused when a capability or limit stopped the request);
// an HTTP error status is an answer, not an Error.
type FetchResponse struct {
	Status     int               `json:"status,omitempty"`
	StatusText string            `json:"status_text,omitempty"`
	URL        string            `json:"url,omitempty"` // after redirects
	Headers    map[string]string `json:"headers,omitempty"`
	Body       string            `json:"body,omitempty"` // as UTF-8 (invalid bytes replaced)
	// BodyBase64 holds the exact bytes when the body is not valid UTF-8.
	BodyBase64 string `json:"body_base64,omitempty"`
	Error      string `json:"error,omitempty"`
	Refused    bool   `json:"refused,omitempty"`
	// Origin names the request (scheme://host:port) in messages: never
	// the path or query, which may hold a secret.
	Origin string `json:"origin,omitempty"`
}

var fetchMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// forbiddenHeaders are set by helix's HTTP client, never by a skill.
var forbiddenHeaders = []string{"host", "content-length", "transfer-encoding", "connection", "keep-alive",
	"upgrade", "te", "trailer", "proxy-authorization", "proxy-connection", "expect"}

// DecodeFetchRequest reads and checks a skill's request document: outside
// bytes (the skill's code made them). maxBody caps the body.
func DecodeFetchRequest(b []byte, maxBody int64) (*FetchRequest, *url.URL, []byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r FetchRequest
	if err := dec.Decode(&r); err != nil {
		return nil, nil, nil, fmt.Errorf("the request is not a request document: %v", err)
	}
	if dec.More() {
		return nil, nil, nil, errors.New("the request is not a request document: more after the JSON object")
	}
	if r.Method == "" {
		r.Method = "GET"
	}
	r.Method = strings.ToUpper(r.Method)
	if !slices.Contains(fetchMethods, r.Method) {
		return nil, nil, nil, fmt.Errorf("method %q: use one of %s", capText(r.Method), strings.Join(fetchMethods, ", "))
	}
	u, err := url.Parse(r.URL)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("url: %v", err)
	}
	if u.Scheme != "https" && u.Scheme != "http" || u.Host == "" || u.Opaque != "" {
		return nil, nil, nil, errors.New("url: use an absolute http or https URL")
	}
	if u.User != nil {
		return nil, nil, nil, errors.New("url: user info in a URL is refused: send credentials in a header")
	}
	if len(r.Headers) > maxNetHeaders {
		return nil, nil, nil, fmt.Errorf("%d headers: at most %d", len(r.Headers), maxNetHeaders)
	}
	hbytes := 0
	for k, v := range r.Headers {
		hbytes += len(k) + len(v)
		if !validHeaderName(k) || !validHeaderValue(v) {
			return nil, nil, nil, fmt.Errorf("header %q: not a valid HTTP header", capText(k))
		}
		if l := strings.ToLower(k); slices.Contains(forbiddenHeaders, l) || strings.HasPrefix(l, "proxy-") {
			return nil, nil, nil, fmt.Errorf("header %s: set by helix, not by a skill", k)
		}
	}
	if hbytes > maxNetHeaderBytes {
		return nil, nil, nil, fmt.Errorf("headers of %d bytes: at most %d", hbytes, maxNetHeaderBytes)
	}
	body := []byte(r.Body)
	if r.BodyBase64 != "" {
		if r.Body != "" {
			return nil, nil, nil, errors.New("give body or body_base64, not both")
		}
		if body, err = base64.StdEncoding.DecodeString(r.BodyBase64); err != nil {
			return nil, nil, nil, fmt.Errorf("body_base64: %v", err)
		}
	}
	if int64(len(body)) > maxBody {
		return nil, nil, nil, fmt.Errorf("a body of %s is larger than the request limit of %s (skill.net.max-request)", size.Format(int64(len(body))), size.Format(maxBody))
	}
	return &r, u, body, nil
}

// NetworkRecord is what a run did on the network, kept in
// skill_executions.network: hosts, counts, bytes and statuses, never a
// body, a path or a query (they may carry the skill's credentials).
type NetworkRecord struct {
	Requests      int       `json:"requests"` // sent to a host (refused ones are not)
	Refused       int       `json:"refused"`
	BytesSent     int64     `json:"bytes_sent"`
	BytesReceived int64     `json:"bytes_received"`
	Hosts         []string  `json:"hosts"`
	Calls         []NetCall `json:"calls"`
	// CallsDropped counts calls past the first 100, which are not listed.
	CallsDropped int `json:"calls_dropped,omitempty"`
}

// NetCall is one request of a run.
type NetCall struct {
	Method        string  `json:"method,omitempty"`
	Origin        string  `json:"origin,omitempty"` // scheme://host:port
	Status        int     `json:"status,omitempty"`
	BytesSent     int64   `json:"bytes_sent"`
	BytesReceived int64   `json:"bytes_received"`
	DurationMS    float64 `json:"duration_ms"`
	Refused       string  `json:"refused,omitempty"` // why a capability or limit stopped it
	Error         string  `json:"error,omitempty"`   // why it got no (whole) answer
}

// netSession is one run's access to the network: its grants, its limits,
// one client (connections are reused within the run) and its record.
type netSession struct {
	grants       []NetGrant
	allowPrivate bool
	lim          NetLimits
	deadline     time.Time
	client       *http.Client

	mu   sync.Mutex
	sent int
	rec  NetworkRecord
}

func (e *Executor) newNetSession(caps Capabilities, allowPrivate bool, deadline time.Time) *netSession {
	n := &netSession{grants: caps.Net, allowPrivate: allowPrivate, lim: e.net.withDefaults(), deadline: deadline}
	n.client = netguard.New(netguard.Options{AllowPrivate: allowPrivate, RootCAs: e.netRoots})
	n.client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) > maxNetRedirects {
			return &netRefusal{fmt.Sprintf("stopped after %d redirects", maxNetRedirects)}
		}
		if _, why := n.allowed(r.URL); why != "" {
			return &netRefusal{"redirect to " + origin(r.URL) + ": " + why}
		}
		return nil
	}
	return n
}

// netRefusal is a request a capability or a limit stopped.
type netRefusal struct{ why string }

func (r *netRefusal) Error() string { return r.why }

func origin(u *url.URL) string {
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	p := u.Port()
	if p == "" {
		p = defaultPort(u.Scheme)
	}
	return u.Scheme + "://" + net.JoinHostPort(h, p)
}

// allowed returns the grant that lets the skill reach u, or why none does.
func (n *netSession) allowed(u *url.URL) (NetGrant, string) {
	if u.Scheme != "https" && u.Scheme != "http" {
		return NetGrant{}, "only http and https"
	}
	host, err := canonicalHost(u.Hostname())
	if err != nil {
		return NetGrant{}, err.Error()
	}
	port := u.Port()
	if port == "" {
		port = defaultPort(u.Scheme)
	}
	for _, g := range n.grants {
		if g.Scheme == u.Scheme && g.Host == host && g.Port == port {
			if g.Scheme == "http" && !n.allowPrivate {
				return g, "net:http= is honoured only with the private-address opt-in (--allow-private): plain HTTP is for tests and local services"
			}
			return g, ""
		}
	}
	if len(n.grants) == 0 {
		return NetGrant{}, "the skill has no network capability (grant one with net:https=HOST[:PORT])"
	}
	have := make([]string, len(n.grants))
	for i, g := range n.grants {
		have[i] = g.Origin()
	}
	return NetGrant{}, fmt.Sprintf("%s is not among the skill's granted hosts (%s)", origin(u), strings.Join(have, ", "))
}

// do runs one request document and returns the response document.
func (n *netSession) do(ctx context.Context, doc []byte) []byte {
	b, _ := json.Marshal(n.fetch(ctx, doc))
	return b
}

func (n *netSession) fetch(ctx context.Context, doc []byte) FetchResponse {
	start := time.Now()
	call := NetCall{}
	fail := func(refused bool, msg string) FetchResponse {
		call.DurationMS = msSince(start)
		if refused {
			call.Refused = msg
			n.note(call)
			return FetchResponse{Error: "refused: " + msg, Refused: true, Origin: call.Origin}
		}
		call.Error = msg
		n.note(call)
		return FetchResponse{Error: msg, Origin: call.Origin}
	}
	req, u, body, err := DecodeFetchRequest(doc, n.lim.MaxRequestBytes)
	if err != nil {
		return fail(false, err.Error())
	}
	call.Method, call.Origin = req.Method, origin(u)
	if _, why := n.allowed(u); why != "" {
		return fail(true, why)
	}
	n.mu.Lock()
	over := n.sent >= n.lim.MaxRequests
	if !over {
		n.sent++
	}
	n.mu.Unlock()
	if over {
		return fail(true, fmt.Sprintf("the limit of %d requests a run is reached (skill.net.max-requests)", n.lim.MaxRequests))
	}
	timeout := n.lim.RequestTimeout
	if left := time.Until(n.deadline); left < timeout {
		timeout = max(left, time.Millisecond)
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(rctx, req.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return fail(false, err.Error())
	}
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	if hr.Header.Get("User-Agent") == "" {
		hr.Header.Set("User-Agent", "helix-skill")
	}
	call.BytesSent = int64(len(body))
	resp, err := n.client.Do(hr)
	if err != nil {
		var ref *netRefusal
		switch {
		case errors.As(err, &ref):
			return fail(true, ref.why)
		case errors.Is(err, netguard.ErrPrivate):
			return fail(true, strings.TrimSuffix(unwrapURLError(err), " (pass --allow-private to allow it)")+" (loopback and private addresses need --allow-private)")
		case errors.Is(err, netguard.ErrReserved):
			return fail(true, unwrapURLError(err))
		case rctx.Err() != nil && ctx.Err() == nil:
			return fail(false, fmt.Sprintf("no answer within %s (skill.net.timeout, or what was left of the run's timeout)", timeout.Round(time.Millisecond)))
		}
		return fail(false, unwrapURLError(err))
	}
	defer resp.Body.Close()
	call.Status = resp.StatusCode
	data, err := netguard.ReadAll(resp.Body, n.lim.MaxResponseBytes)
	call.BytesReceived = int64(len(data))
	if err != nil {
		if errors.Is(err, netguard.ErrTooLarge) {
			call.BytesReceived = n.lim.MaxResponseBytes
			return fail(false, fmt.Sprintf("the response body is larger than the limit of %s (skill.net.max-response)", size.Format(n.lim.MaxResponseBytes)))
		}
		if rctx.Err() != nil && ctx.Err() == nil {
			return fail(false, fmt.Sprintf("the response did not end within %s (skill.net.timeout)", timeout.Round(time.Millisecond)))
		}
		return fail(false, "read the response: "+unwrapURLError(err))
	}
	call.DurationMS = msSince(start)
	n.note(call)
	out := FetchResponse{Origin: call.Origin, Status: resp.StatusCode, StatusText: http.StatusText(resp.StatusCode), URL: resp.Request.URL.String(), Headers: map[string]string{}}
	for k, vs := range resp.Header {
		if len(out.Headers) < maxNetHeaders {
			out.Headers[strings.ToLower(k)] = strings.Join(vs, ", ")
		}
	}
	out.Body = strings.ToValidUTF8(string(data), "\uFFFD")
	if !utf8.Valid(data) {
		out.BodyBase64 = base64.StdEncoding.EncodeToString(data)
	}
	return out
}

// unwrapURLError drops the "Get "URL": " prefix: the URL may carry a secret.
func unwrapURLError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Op + ": " + oe.Err.Error()
	}
	var ce *x509.CertificateInvalidError
	var ue2 x509.UnknownAuthorityError
	var he x509.HostnameError
	if errors.As(err, &ce) || errors.As(err, &ue2) || errors.As(err, &he) {
		return "TLS certificate not trusted: " + err.Error()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "the connection closed before the answer ended"
	}
	return err.Error()
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

// note adds a call to the record.
func (n *netSession) note(c NetCall) {
	n.mu.Lock()
	defer n.mu.Unlock()
	r := &n.rec
	if c.Refused != "" {
		r.Refused++
	} else if c.Origin != "" {
		r.Requests++
		r.BytesSent += c.BytesSent
		r.BytesReceived += c.BytesReceived
		if !slices.Contains(r.Hosts, c.Origin) {
			r.Hosts = append(r.Hosts, c.Origin)
		}
	}
	if len(r.Calls) < maxRecordedCalls {
		r.Calls = append(r.Calls, c)
	} else {
		r.CallsDropped++
	}
}

// record is the run's network record, nil when the skill made no request.
func (n *netSession) record() *NetworkRecord {
	n.client.CloseIdleConnections()
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.rec.Calls) == 0 {
		return nil
	}
	r := n.rec
	if r.Hosts == nil {
		r.Hosts = []string{}
	}
	return &r
}

// lastRefused reports whether the run's last request was refused.
func (n *netSession) lastRefused() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.rec.CallsDropped == 0 && len(n.rec.Calls) > 0 && n.rec.Calls[len(n.rec.Calls)-1].Refused != "" ||
		n.rec.CallsDropped > 0 && n.rec.Refused > 0
}

// validHeaderName: an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// validHeaderValue: no control characters but tab (no CR or LF to split a header).
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// serve answers a JavaScript child's request documents, one a line, until
// the child closes its end or ctx ends. A line longer than a request may be
// is answered with an error and skipped.
func (n *netSession) serve(ctx context.Context, r io.Reader, w io.Writer) {
	br := bufio.NewReaderSize(r, 64<<10)
	max := n.lim.maxRequestDoc()
	for {
		var line []byte
		tooLong := false
		for {
			chunk, err := br.ReadSlice('\n')
			if !tooLong {
				line = append(line, chunk...)
				if int64(len(line)) > max {
					tooLong, line = true, nil
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return
			}
			break
		}
		var resp []byte
		if tooLong {
			resp = n.tooLarge(max + 1)
		} else {
			resp = n.do(ctx, line)
		}
		if _, err := w.Write(append(resp, '\n')); err != nil {
			return
		}
	}
}

// tooLarge answers a request document longer than a request may be.
func (n *netSession) tooLarge(size_ int64) []byte {
	msg := fmt.Sprintf("a request document of %s is larger than the limit of %s (skill.net.max-request)", size.Format(size_), size.Format(n.lim.maxRequestDoc()))
	n.note(NetCall{Error: msg})
	b, _ := json.Marshal(FetchResponse{Error: msg})
	return b
}
