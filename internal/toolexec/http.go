package toolexec

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/third_party/jsonschema"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/redact"
)

var printer = message.NewPrinter(language.English)

// DefaultTimeout bounds an HTTP tool whose manifest sets no timeout.
const DefaultTimeout = 30 * time.Second

// HTTPRunner calls HTTP tools.
type HTTPRunner struct {
	// AllowPrivate lifts the SSRF guard (loopback, private addresses): tests
	// and operators who mean it.
	AllowPrivate bool
	// MaxResponse caps the response body in bytes.
	MaxResponse int64
	// MaxRequest caps a request body (a multipart upload's files) in bytes;
	// 0 is 10 MiB.
	MaxRequest int64
	// FilesDir is where multipart file fields given as "@PATH" are read
	// from; "" refuses them (the input may come from a model, and must not
	// send the host's files anywhere it names).
	FilesDir string
	// Secrets looks credentials up; nil finds none.
	Secrets *Secrets
}

// Secrets finds a tool's credentials: in the environment as
// HELIX_TOOL_<NAME>_<SCHEME> (the whole tool name, then its namespace), then
// in the config file's tool-credentials map (tool-credentials.<name or
// namespace>.<scheme>). Names are upper-cased with anything but letters and
// digits turned into '_', and matched without regard to case. The namespace
// is the one the manifest records, not a split of the name: an operation
// part may keep a dot of its own (ns.get_articlesearch.json).
type Secrets struct {
	Env  func(string) (string, bool) // os.LookupEnv when nil
	File map[string]any              // the config file's tool-credentials
}

// EnvNames lists the variables tried for a tool's scheme, in order.
func EnvNames(tool, namespace, scheme string) []string {
	out := []string{"HELIX_TOOL_" + envPart(tool) + "_" + envPart(scheme)}
	if namespace != "" && namespace != tool {
		out = append(out, "HELIX_TOOL_"+envPart(namespace)+"_"+envPart(scheme))
	}
	return out
}

// Namespace is the namespace of m's tools: the recorded one, else (a tool
// recorded before namespaces were) its name up to the first dot, which a
// namespace never contains.
func Namespace(m *manifest.Manifest) string {
	return manifest.EffectiveNamespace(m)
}

func envPart(s string) string {
	b := []byte(strings.ToUpper(s))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

func (s *Secrets) lookup(tool, namespace, scheme string) (string, bool) {
	if s == nil {
		return "", false
	}
	env := s.Env
	if env == nil {
		env = os.LookupEnv
	}
	for _, n := range EnvNames(tool, namespace, scheme) {
		if v, ok := env(n); ok && v != "" {
			return v, true
		}
	}
	names := []string{tool}
	if namespace != "" && namespace != tool {
		names = append(names, namespace)
	}
	for _, n := range names {
		for k, v := range s.File {
			if envPart(k) != envPart(n) {
				continue
			}
			if m, ok := v.(map[string]any); ok {
				for sk, sv := range m {
					if str, ok := sv.(string); ok && envPart(sk) == envPart(scheme) && str != "" {
						return str, true
					}
				}
			}
		}
	}
	return "", false
}

// relevantHeaders are the response headers a caller may act on.
var relevantHeaders = []string{"Content-Type", "Content-Length", "Location", "Retry-After", "ETag", "Last-Modified",
	"Link", "X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
	"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"}

// refusedError is a request a permission stopped. It unwraps to the cause,
// so a refused private address is netguard.ErrPrivate to the exit-code table.
type refusedError struct {
	msg string
	err error
}

func (e *refusedError) Error() string { return e.msg }
func (e *refusedError) Unwrap() error { return e.err }

// run builds the request from the input, sends it within the tool's
// permissions and fills res. Tool failures go into res; the error returned
// is for the caller's exit status.
func (h *HTTPRunner) run(ctx context.Context, t *manifest.Tool, input map[string]any, res *Result) error {
	c := &httpCall{h: h, t: t, m: t.Manifest, res: res}
	req, err := c.request(ctx, input)
	if err != nil {
		return err
	}
	res.BytesSent = c.sent
	resp, err := c.client().Do(req)
	if err != nil {
		return c.sendError(ctx, err)
	}
	defer resp.Body.Close()
	c.headers(resp)
	body, err := c.body(resp)
	if err != nil {
		return err
	}
	isJSON := strings.Contains(strings.ToLower(res.ContentType), "json")
	c.output(body, isJSON)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res.Status = StatusHTTPError
		res.Error = fmt.Sprintf("%s: %s", c.where, resp.Status)
		return errors.New(res.Error)
	}
	res.Status = StatusOK
	if c.m.Returns != nil && isJSON && len(body) > 0 {
		res.SchemaErrors = checkResponse(c.m.Returns, body)
	}
	return nil
}

// httpCall is one execution of an HTTP tool, step by step.
type httpCall struct {
	h       *HTTPRunner
	t       *manifest.Tool
	m       *manifest.Manifest
	res     *Result
	secrets []string      // credential values, masked in everything recorded
	sent    int64         // request body bytes
	timeout time.Duration // the tool's, else DefaultTimeout
	// where names the operation by its URL template, never by the URL the
	// input filled in: errors go into the audit row, which keeps nothing of
	// the input but its hash.
	where string
}

func (c *httpCall) mask(s string) string { return redact.String(s, c.secrets...) }

// fail records a tool failure in the result and returns its error.
func (c *httpCall) fail(status string, err error) error {
	c.res.Status, c.res.Error = status, c.mask(err.Error())
	if status == StatusRefused {
		return &refusedError{msg: c.res.Error, err: err}
	}
	return errors.New(c.res.Error)
}

// request builds the request from the input, with the tool's credentials,
// and refuses a host the tool may not reach.
func (c *httpCall) request(ctx context.Context, input map[string]any) (*http.Request, error) {
	call := c.m.Entrypoint.HTTP
	req, sent, err := buildRequest(ctx, call, c.m.Parameters, input, c.h.bodyFiles())
	if err != nil {
		c.res.Status, c.res.Error = StatusInvalidInput, err.Error()
		return nil, &InputError{Msg: fmt.Sprintf("input to %s@%s: %v", c.t.Name, c.t.Version, err)}
	}
	c.sent = sent
	set, err := c.h.credentials(c.t.Name, Namespace(c.m), c.m.Credentials)
	if err != nil {
		return nil, err
	}
	for _, cr := range set {
		c.secrets = append(c.secrets, cr.value)
		if cr.Type == "http" && strings.EqualFold(cr.HTTPScheme, "basic") {
			c.secrets = append(c.secrets, base64.StdEncoding.EncodeToString([]byte(cr.value)))
		}
		apply(req, cr)
	}
	if !hostAllowed(c.m.Permissions.Network, req.URL) {
		return nil, c.fail(StatusRefused, fmt.Errorf("host %s is not among the tool's allowed hosts (%s): nothing was sent", req.URL.Host, hostList(c.m.Permissions.Network)))
	}
	lim, _ := c.m.Permissions.Limits()
	c.timeout = DefaultTimeout
	if lim.TimeoutMS > 0 {
		c.timeout = time.Duration(lim.TimeoutMS) * time.Millisecond
	}
	c.where = req.Method + " " + call.URL
	return req, nil
}

// client is a netguard client within the tool's timeout that follows only
// redirects to the tool's allowed hosts.
func (c *httpCall) client() *http.Client {
	client := netguard.Client(c.h.AllowPrivate, c.timeout)
	network := c.m.Permissions.Network
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return &refusedError{msg: "stopped after 10 redirects"}
		}
		if r.URL.Scheme != "http" && r.URL.Scheme != "https" {
			return &refusedError{msg: "redirect to a " + r.URL.Scheme + " URL refused: only http and https"}
		}
		if !hostAllowed(network, r.URL) {
			return &refusedError{msg: fmt.Sprintf("redirect to %s refused: not among the tool's allowed hosts (%s)", r.URL.Host, hostList(network))}
		}
		return nil
	}
	return client
}

// sendError classifies a request that got no answer.
func (c *httpCall) sendError(ctx context.Context, err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = fmt.Errorf("%s: %w", c.where, ue.Err)
	}
	var re *refusedError
	switch {
	case errors.As(err, &re), errors.Is(err, netguard.ErrPrivate):
		return c.fail(StatusRefused, err)
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		// in helix's words, not Go's "Client.Timeout exceeded while awaiting headers"
		return c.fail(StatusTimeout, fmt.Errorf("%s: no answer within %s", c.where, c.timeout))
	case ctx.Err() != nil:
		return c.fail(StatusError, ctx.Err())
	}
	c.res.Status, c.res.Error = StatusUnavailable, c.mask(err.Error())
	return &UnavailableError{Msg: c.res.Error}
}

// headers records the status and the response headers a caller may act on.
func (c *httpCall) headers(resp *http.Response) {
	res := c.res
	res.HTTPStatus = resp.StatusCode
	res.Headers = map[string]string{}
	for _, k := range relevantHeaders {
		if v := resp.Header.Get(k); v != "" {
			res.Headers[k] = c.mask(v)
		}
	}
	for k, vs := range resp.Header {
		// Services put paging links and the like in their own X- headers (the petstore's X-Next).
		if strings.HasPrefix(k, "X-") && len(vs) > 0 && res.Headers[k] == "" {
			res.Headers[k] = c.mask(vs[0])
		}
	}
	res.ContentType = resp.Header.Get("Content-Type")
}

// body reads the response body, at most the runner's cap.
func (c *httpCall) body(resp *http.Response) ([]byte, error) {
	max := c.h.MaxResponse
	if max <= 0 {
		max = 10 << 20
	}
	body, err := netguard.ReadAll(resp.Body, max)
	c.res.BytesReceived = int64(len(body))
	if err != nil {
		if errors.Is(err, netguard.ErrTooLarge) {
			c.res.BytesReceived = max
			return nil, c.fail(StatusTooLarge, fmt.Errorf("response body over the %d-byte cap (--max-bytes)", max))
		}
		return nil, c.fail(StatusError, fmt.Errorf("read response: %w", err))
	}
	return body, nil
}

// output records the body as the result's output: JSON as it is, anything
// else as a JSON string, credentials masked either way.
func (c *httpCall) output(body []byte, isJSON bool) {
	switch {
	case len(body) == 0:
		c.res.Output = json.RawMessage("null")
	case isJSON && json.Valid(body):
		if r := c.mask(string(body)); r != string(body) && json.Valid([]byte(r)) {
			body = []byte(r) // a service echoing the credential back
		}
		c.res.Output = json.RawMessage(body)
	default:
		c.res.Output, _ = json.Marshal(c.mask(string(body)))
	}
}

// UnavailableError is a service that could not be reached: retry later.
type UnavailableError struct {
	exitcode.UnavailableClass
	Msg string
}

func (e *UnavailableError) Error() string { return e.Msg }

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// checkResponse validates a JSON body against the declared response schema.
func checkResponse(schema any, body []byte) []string {
	ps, err := json.Marshal(schema)
	if err != nil {
		return []string{err.Error()}
	}
	pv, err := manifest.DecodeInput(ps)
	if err != nil {
		return []string{err.Error()}
	}
	sch, err := manifest.Compile(pv)
	if err != nil {
		return []string{"response schema does not compile: " + err.Error()}
	}
	v, err := manifest.DecodeInput(body)
	if err != nil {
		return []string{"response is not JSON: " + err.Error()}
	}
	if err := sch.Validate(v); err != nil {
		return leafMessages(err)
	}
	return nil
}

// validationMessage is the first deepest finding, with its pointer.
func validationMessage(err error) string {
	ms := leafMessages(err)
	if len(ms) == 0 {
		return err.Error()
	}
	return ms[0]
}

func leafMessages(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			ptr := ""
			for _, t := range e.InstanceLocation {
				ptr += "/" + manifest.Escape(t)
			}
			if ptr == "" {
				ptr = "/"
			}
			out = append(out, "at "+ptr+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			if len(out) >= 20 {
				return
			}
			walk(c)
		}
	}
	walk(ve)
	return out
}

// credential is a scheme with its secret.
type credential struct {
	manifest.Credential
	value string
}

// credentials picks the first alternative whose every secret is configured.
func (h *HTTPRunner) credentials(tool, namespace string, alts [][]manifest.Credential) ([]credential, error) {
	if len(alts) == 0 {
		return nil, nil
	}
	var missing []string
	for _, set := range alts {
		var got []credential
		ok := true
		for _, c := range set {
			v, found := h.Secrets.lookup(tool, namespace, c.Scheme)
			if !found {
				ok = false
				missing = append(missing, EnvNames(tool, namespace, c.Scheme)...)
				break
			}
			got = append(got, credential{Credential: c, value: v})
		}
		if ok {
			return got, nil
		}
	}
	return nil, &RuntimeError{Msg: fmt.Sprintf("%s needs credentials: set one of %s (or tool-credentials in the config file); nothing was sent", tool, strings.Join(dedupe(missing), ", "))}
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// apply puts a credential where its scheme says.
func apply(req *http.Request, c credential) {
	switch strings.ToLower(c.Type) {
	case "apikey":
		switch c.In {
		case "query":
			q := req.URL.Query()
			q.Set(c.Name, c.value)
			req.URL.RawQuery = q.Encode()
		case "cookie":
			req.AddCookie(&http.Cookie{Name: c.Name, Value: c.value})
		default:
			req.Header.Set(c.Name, c.value)
		}
	case "http":
		if strings.EqualFold(c.HTTPScheme, "basic") {
			req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(c.value)))
		} else {
			scheme := c.HTTPScheme
			if scheme == "" || strings.EqualFold(scheme, "bearer") {
				scheme = "Bearer"
			}
			req.Header.Set("Authorization", scheme+" "+c.value)
		}
	default: // oauth2, openIdConnect: a token obtained elsewhere
		req.Header.Set("Authorization", "Bearer "+c.value)
	}
}

// hostAllowed checks a URL's host against the allowed list: host:port
// exactly, a host without port on the scheme's default port, *.domain for
// its subdomains.
func hostAllowed(allowed []string, u *url.URL) bool {
	host, port := u.Hostname(), u.Port()
	defPort := port == "" || (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80")
	for _, a := range allowed {
		ah, ap, err := net.SplitHostPort(a)
		if err != nil {
			ah, ap = a, ""
		}
		if ap != "" && ap != port || ap == "" && !defPort {
			continue
		}
		if strings.EqualFold(ah, host) {
			return true
		}
		if d, ok := strings.CutPrefix(ah, "*."); ok && strings.HasSuffix(strings.ToLower(host), "."+strings.ToLower(d)) {
			return true
		}
	}
	return false
}

func hostList(hs []string) string {
	if len(hs) == 0 {
		return "none"
	}
	return strings.Join(hs, ", ")
}

// param is one parameter of an HTTP tool.
type param struct {
	prop, name, in, style string
	explode               bool
	required, allowEmpty  bool
}

// params reads the x-helix-in/style/explode annotations of the parameters schema.
func params(schema any) []param {
	s, _ := schema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	for _, r := range anys(s["required"]) {
		if name, ok := r.(string); ok {
			required[name] = true
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []param
	for _, k := range keys {
		p, _ := props[k].(map[string]any)
		in, _ := p["x-helix-in"].(string)
		if in == "" {
			continue
		}
		name := k
		if n, ok := strings.CutPrefix(k, in+"."); ok { // renamed on a clash
			name = n
		}
		pp := param{prop: k, name: name, in: in}
		pp.style, _ = p["x-helix-style"].(string)
		if pp.style == "" {
			pp.style = map[string]string{"query": "form", "path": "simple", "header": "simple"}[in]
		}
		ex, ok := p["x-helix-explode"].(bool)
		if !ok {
			ex = pp.style == "form"
		}
		pp.explode = ex
		pp.required = required[k] || in == "path"
		pp.allowEmpty, _ = p["x-helix-allow-empty"].(bool)
		out = append(out, pp)
	}
	return out
}

// buildRequest turns the validated input into the request, returning the
// bytes of its body.
func buildRequest(ctx context.Context, call *manifest.HTTPCall, schema any, input map[string]any, files bodyFiles) (*http.Request, int64, error) {
	rawURL := call.URL
	var rawQuery []string // deepObject and delimited styles are written as they are
	header := http.Header{}
	for _, p := range params(schema) {
		v, ok := input[p.prop]
		if !ok || v == nil {
			if p.in == "path" {
				return nil, 0, fmt.Errorf("path parameter %s is missing", p.name)
			}
			continue
		}
		if p.required && !p.allowEmpty && empty(v) {
			// An empty path segment is another route (/members//tokens); an
			// empty query or header value, one the operation did not allow.
			return nil, 0, fmt.Errorf("%s parameter %s is empty: the operation requires a value", p.in, p.name)
		}
		switch p.in {
		case "path":
			pv := pathValue(p, v)
			if pv == "." || pv == ".." {
				// A bare dot-segment would move the request to another path
				// (GET /items/.. is GET /); percent-encoding it changes nothing
				// for servers that decode before they resolve.
				return nil, 0, fmt.Errorf("path parameter %s is a dot-segment (. or ..): refused, it would change the request's path", p.name)
			}
			rawURL = strings.ReplaceAll(rawURL, "{"+p.name+"}", pv)
		case "query":
			rawQuery = append(rawQuery, queryValue(p, v)...)
		case "header":
			hv := simple(v, p.explode, false)
			if i := strings.IndexFunc(hv, badHeaderRune); i >= 0 {
				return nil, 0, fmt.Errorf("header parameter %s holds a control character (%U): a header value cannot carry it", p.name, []rune(hv[i:])[0])
			}
			header.Set(p.name, hv)
		}
	}
	// Errors name the URL template (call.URL), not the URL the input filled.
	if strings.Contains(rawURL, "{") {
		return nil, 0, fmt.Errorf("url %s has unfilled parameters", call.URL)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, 0, fmt.Errorf("url %s: the input makes it no URL", call.URL)
	}
	if u.Host == "" {
		return nil, 0, fmt.Errorf("url %s has no server: import the tool with --server", call.URL)
	}
	if len(rawQuery) > 0 {
		if u.RawQuery != "" {
			rawQuery = append([]string{u.RawQuery}, rawQuery...)
		}
		u.RawQuery = strings.Join(rawQuery, "&")
	}
	var body io.Reader
	var n int64
	ct := call.BodyContentType
	if b, ok := input["body"]; ok && b != nil {
		var data []byte
		var err error
		if strings.HasPrefix(ct, "multipart/form-data") {
			data, ct, err = encodeMultipart(b, bodySchema(schema), files)
		} else {
			data, err = encodeBody(ct, b)
		}
		if err != nil {
			return nil, 0, err
		}
		body, n = bytes.NewReader(data), int64(len(data))
	}
	req, err := http.NewRequestWithContext(ctx, call.Method, u.String(), body)
	if err != nil {
		return nil, 0, fmt.Errorf("%s %s: the input makes no request", call.Method, call.URL)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if body != nil {
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	req.Header.Set("User-Agent", "helix-tool")
	return req, n, nil
}

// badHeaderRune is a byte no header value may hold (RFC 9110 5.5: CR, LF,
// NUL and the other controls but HTAB): sent, it would split the header.
func badHeaderRune(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }

// encodeBody writes the body in the operation's media type.
func encodeBody(ct string, b any) ([]byte, error) {
	switch {
	case ct == "" || strings.Contains(ct, "json"):
		return json.Marshal(b)
	case ct == "application/x-www-form-urlencoded":
		obj, ok := b.(map[string]any)
		if !ok {
			return nil, errors.New("a form body must be an object")
		}
		vals := url.Values{}
		for k, v := range obj {
			switch x := v.(type) {
			case []any:
				for _, e := range x {
					vals.Add(k, scalar(e))
				}
			default:
				vals.Set(k, scalar(v))
			}
		}
		return []byte(vals.Encode()), nil
	case strings.HasPrefix(ct, "text/"):
		s, ok := b.(string)
		if !ok {
			return nil, fmt.Errorf("a %s body must be a string", ct)
		}
		return []byte(s), nil
	}
	return nil, fmt.Errorf("request bodies of type %s are not supported yet", ct)
}

// empty reports a value that serializes to nothing: "", [] or {}.
func empty(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

func anys(v any) []any {
	l, _ := v.([]any)
	return l
}

// scalar renders a primitive as OpenAPI serializes it.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// sortedKeys of an object, for a stable serialization.
func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// simple is the simple style: a,b,c; objects k,v,k,v or, exploded, k=v,k=v.
// escape percent-encodes the parts (path segments).
func simple(v any, explode, escape bool) string {
	enc := func(s string) string {
		if escape {
			return url.PathEscape(s)
		}
		return s
	}
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = enc(scalar(e))
		}
		return strings.Join(parts, ",")
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(x) {
			if explode {
				parts = append(parts, enc(k)+"="+enc(scalar(x[k])))
			} else {
				parts = append(parts, enc(k), enc(scalar(x[k])))
			}
		}
		return strings.Join(parts, ",")
	}
	return enc(scalar(v))
}

// pathValue serializes a path parameter (simple, label or matrix style).
func pathValue(p param, v any) string {
	switch p.style {
	case "label":
		sep := ","
		if p.explode {
			sep = "."
		}
		return "." + strings.ReplaceAll(simple(v, p.explode, true), ",", sep)
	case "matrix":
		switch x := v.(type) {
		case []any:
			if p.explode {
				var b strings.Builder
				for _, e := range x {
					b.WriteString(";" + p.name + "=" + url.PathEscape(scalar(e)))
				}
				return b.String()
			}
		case map[string]any:
			if p.explode {
				var b strings.Builder
				for _, k := range sortedKeys(x) {
					b.WriteString(";" + url.PathEscape(k) + "=" + url.PathEscape(scalar(x[k])))
				}
				return b.String()
			}
		}
		return ";" + p.name + "=" + simple(v, false, true)
	}
	return simple(v, p.explode, true)
}

// queryValue serializes a query parameter as name=value pairs, already encoded.
func queryValue(p param, v any) []string {
	q := url.QueryEscape
	name := q(p.name)
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = q(scalar(e))
		}
		if p.explode && p.style == "form" {
			out := make([]string, len(parts))
			for i, s := range parts {
				out[i] = name + "=" + s
			}
			return out
		}
		sep := ","
		switch p.style {
		case "spaceDelimited":
			sep = "%20"
		case "pipeDelimited":
			sep = "|"
		}
		return []string{name + "=" + strings.Join(parts, sep)}
	case map[string]any:
		var out []string
		switch {
		case p.style == "deepObject":
			for _, k := range sortedKeys(x) {
				out = append(out, name+"%5B"+q(k)+"%5D="+q(scalar(x[k])))
			}
		case p.explode:
			for _, k := range sortedKeys(x) {
				out = append(out, q(k)+"="+q(scalar(x[k])))
			}
		default:
			var parts []string
			for _, k := range sortedKeys(x) {
				parts = append(parts, q(k), q(scalar(x[k])))
			}
			out = append(out, name+"="+strings.Join(parts, ","))
		}
		return out
	}
	return []string{name + "=" + q(scalar(v))}
}
