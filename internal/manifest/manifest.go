package manifest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/third_party/jsonschema"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/helixhq/helix/internal/size"
)

// SchemaJSON is the JSON Schema (2020-12) of a tool manifest.
//
//go:embed manifest.schema.json
var SchemaJSON []byte

// Manifest is one version of one tool.
type Manifest struct {
	Name        string         `json:"name"`
	Version     string         `json:"version"`
	Namespace   string         `json:"namespace,omitempty"` // the name's prefix shared by one API's tools
	Description string         `json:"description,omitempty"`
	Title       string         `json:"title,omitempty"` // a display name (an MCP tool's title)
	Entrypoint  Entrypoint     `json:"entrypoint"`
	Parameters  any            `json:"parameters"`
	Returns     any            `json:"returns,omitempty"`
	Permissions Permissions    `json:"permissions"`
	Credentials [][]Credential `json:"credentials,omitempty"`
	Author      string         `json:"author,omitempty"`
	Tags        []string       `json:"tags,omitempty"`
	Notes       []string       `json:"notes,omitempty"`
	// Format is the version of helix's conversion that built the manifest
	// from an OpenAPI document (OpenAPIFormat); 0 for a manifest written by
	// hand, and for one recorded before formats were (see Record).
	Format int `json:"format,omitempty"`

	sh *Shared // schema parts shared with the other tools of its document (ShareSchemas)
}

// Entrypoint says how the tool runs: exactly one field is set.
type Entrypoint struct {
	Skill     string         `json:"skill,omitempty"`
	HTTP      *HTTPCall      `json:"http,omitempty"`
	Container *ContainerCall `json:"container,omitempty"`
	MCP       *MCPCall       `json:"mcp,omitempty"`
}

// HTTPCall is an HTTP operation; {name} in URL is filled from the parameter of that name.
type HTTPCall struct {
	Method          string `json:"method"`
	URL             string `json:"url"`
	BodyContentType string `json:"body_content_type,omitempty"`
}

// ContainerCall runs a container image.
type ContainerCall struct {
	Image   string   `json:"image"`
	Command []string `json:"command,omitempty"`
}

// MCPCall is a tool of an MCP server: a stdio server started with Command
// (argv, no shell), or a Streamable HTTP server at URL.
type MCPCall struct {
	Command []string `json:"command,omitempty"`
	URL     string   `json:"url,omitempty"`
	Tool    string   `json:"tool"`
}

// Credential names a security scheme the tool needs; never its value.
type Credential struct {
	Scheme     string   `json:"scheme"`
	Type       string   `json:"type"`
	In         string   `json:"in,omitempty"`
	Name       string   `json:"name,omitempty"`
	HTTPScheme string   `json:"http_scheme,omitempty"`
	Scopes     []string `json:"scopes,omitempty"`
}

// Permissions are what the tool asks to be allowed. Quantities are kept as
// written; Limits parses them.
type Permissions struct {
	Network Network `json:"network"`
	Storage any     `json:"storage,omitempty"`
	CPU     any     `json:"cpu,omitempty"`
	Memory  any     `json:"memory,omitempty"`
	Timeout string  `json:"timeout,omitempty"`
}

// Network is the list of allowed hosts; empty means "none".
type Network []string

// MarshalJSON writes "none" for no network.
func (n Network) MarshalJSON() ([]byte, error) {
	if len(n) == 0 {
		return []byte(`"none"`), nil
	}
	return json.Marshal([]string(n))
}

// UnmarshalJSON reads "none" or a list of hosts.
func (n *Network) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte(`"none"`)) || bytes.Equal(b, []byte("null")) {
		*n = nil
		return nil
	}
	var hs []string
	if err := json.Unmarshal(b, &hs); err != nil {
		return err
	}
	*n = hs
	return nil
}

// Limits are a manifest's permissions in comparable units (0: not requested).
type Limits struct {
	Hosts        []string `json:"hosts"`
	StorageBytes int64    `json:"storage_bytes"`
	CPUMillis    int64    `json:"cpu_millis"`
	MemoryBytes  int64    `json:"memory_bytes"`
	TimeoutMS    int64    `json:"timeout_ms"`
}

// Maxima are the largest limits a manifest may request (0: no maximum).
type Maxima struct {
	StorageBytes int64
	CPUMillis    int64
	MemoryBytes  int64
	Timeout      time.Duration
}

// Limits parses the permissions.
func (p Permissions) Limits() (Limits, error) {
	var l Limits
	var err error
	l.Hosts = append([]string(nil), p.Network...)
	sort.Strings(l.Hosts)
	if l.StorageBytes, err = ParseBytes(p.Storage); err != nil {
		return l, fmt.Errorf("storage: %w", err)
	}
	if l.MemoryBytes, err = ParseBytes(p.Memory); err != nil {
		return l, fmt.Errorf("memory: %w", err)
	}
	if l.CPUMillis, err = ParseCPU(p.CPU); err != nil {
		return l, fmt.Errorf("cpu: %w", err)
	}
	if p.Timeout != "" {
		d, err := time.ParseDuration(p.Timeout)
		if err != nil || d <= 0 {
			return l, fmt.Errorf("timeout: %q is not a positive duration such as 30s or 5m", p.Timeout)
		}
		l.TimeoutMS = d.Milliseconds()
	}
	return l, nil
}

// Widening lists how next asks for more than prev: new hosts, more of a quantity.
func Widening(prev, next Limits) []string {
	var w []string
	old := map[string]bool{}
	for _, h := range prev.Hosts {
		old[h] = true
	}
	for _, h := range next.Hosts {
		if !old[h] {
			w = append(w, "new host "+h)
		}
	}
	more := func(what string, a, b int64, f func(int64) string) {
		if b > a {
			w = append(w, fmt.Sprintf("%s %s → %s", what, f(a), f(b)))
		}
	}
	more("storage", prev.StorageBytes, next.StorageBytes, size.Format)
	more("memory", prev.MemoryBytes, next.MemoryBytes, size.Format)
	more("cpu", prev.CPUMillis, next.CPUMillis, func(v int64) string { return strconv.FormatInt(v, 10) + "m" })
	more("timeout", prev.TimeoutMS, next.TimeoutMS, func(v int64) string { return (time.Duration(v) * time.Millisecond).String() })
	return w
}

// ParseBytes reads a manifest's size: a number from YAML/JSON, or a string
// for size.Parse ("512MiB", "1GB", "256Mi"); nil and "" are 0.
func ParseBytes(v any) (int64, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case int64:
		if x < 0 {
			return 0, fmt.Errorf("%d is negative", x)
		}
		return x, nil
	case float64:
		if x < 0 || x != float64(int64(x)) {
			return 0, fmt.Errorf("%v is not a whole number of bytes", x)
		}
		return int64(x), nil
	case string:
		if strings.TrimSpace(x) == "" {
			return 0, nil
		}
		return size.Parse(x)
	}
	return 0, fmt.Errorf("%v is not a size", v)
}

// ParseCPU reads cores (0.5, "2") or millicores ("500m") into millicores.
func ParseCPU(v any) (int64, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case int64:
		if x >= 0 {
			return x * 1000, nil
		}
	case float64:
		if x >= 0 {
			return int64(x * 1000), nil
		}
	case string:
		if x == "" {
			return 0, nil
		}
		if m, ok := strings.CutSuffix(x, "m"); ok {
			if n, err := strconv.ParseInt(m, 10, 64); err == nil && n >= 0 {
				return n, nil
			}
		} else if f, err := strconv.ParseFloat(x, 64); err == nil && f >= 0 {
			return int64(f * 1000), nil
		}
	}
	return 0, fmt.Errorf("%v is not a CPU limit such as 0.5 or 500m", v)
}

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

func manifestSchema() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("manifest.schema.json", doc); err != nil {
			schemaErr = err
			return
		}
		schema, schemaErr = c.Compile("manifest.schema.json")
	})
	return schema, schemaErr
}

// NewCompiler is a JSON Schema 2020-12 compiler whose "pattern" and
// "patternProperties" are ECMA-262 regular expressions, as JSON Schema says
// (lookahead, \p{…} classes, repeat counts over 1000), not Go's RE2 syntax.
func NewCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseRegexpEngine(ECMARegexp)
	return c
}

// ECMARegexp compiles an ECMA-262 pattern with regexp2, whose backtracking is
// bounded per match so that a pathological pattern cannot stall validation.
// The pattern is ECMA-262's with the u flag (ecmaTranslate), as JSON
// Schema 2020-12 validators read it.
func ECMARegexp(s string) (jsonschema.Regexp, error) {
	t, err := ecmaTranslate(s)
	if err != nil {
		return nil, err
	}
	re, err := regexp2.Compile(t, regexp2.ECMAScript|regexp2.Unicode)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = time.Second
	return ecmaRE{re, s}, nil
}

type ecmaRE struct {
	re  *regexp2.Regexp
	src string // the pattern as written, before ecmaTranslate
}

func (r ecmaRE) String() string { return r.src }

// MatchString reports a match; a match that times out counts as none.
func (r ecmaRE) MatchString(s string) bool {
	ok, err := r.re.MatchString(s)
	return ok && err == nil
}

// schemaURL names the schema being compiled; messages never show it.
const schemaURL = "urn:helix:schema"

// CompileSchema checks that s compiles as a JSON Schema 2020-12 document.
func CompileSchema(s any) error {
	_, err := Compile(s)
	return err
}

// Compile compiles s as a JSON Schema 2020-12 document. Its error names the
// offending keyword by JSON pointer, not a made-up file.
func Compile(s any) (*jsonschema.Schema, error) {
	c := NewCompiler()
	if err := c.AddResource(schemaURL, s); err != nil {
		return nil, err
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, schemaCompileError(err)
	}
	return sch, nil
}

// schemaCompileError rewrites the library's "<url> is not valid against
// metaschema" into the deepest finding with its pointer.
func schemaCompileError(err error) error {
	var sve *jsonschema.SchemaValidationError
	if !errors.As(err, &sve) {
		return errors.New(strings.ReplaceAll(err.Error(), schemaURL, "schema"))
	}
	var ve *jsonschema.ValidationError
	if !errors.As(sve.Err, &ve) {
		return sve.Err
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	ptr := ""
	for _, t := range leaf.InstanceLocation {
		ptr += "/" + Escape(t)
	}
	if ptr == "" {
		ptr = "/"
	}
	return fmt.Errorf("at %s: %s", ptr, leaf.ErrorKind.LocalizedString(printer()))
}

var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// ParseManifest decodes and validates one manifest document: against the
// JSON Schema first, then semantically (semver, hosts, limits, parameter schemas).
func ParseManifest(d *Document, max Maxima) (*Manifest, error) {
	sch, err := manifestSchema()
	if err != nil {
		return nil, fmt.Errorf("manifest schema: %w", err)
	}
	if err := sch.Validate(JSONValue(d.Tree)); err != nil {
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			return nil, schemaError(d, ve)
		}
		return nil, d.Errorf("", "%v", err)
	}
	b, err := json.Marshal(d.Tree)
	if err != nil {
		return nil, d.Errorf("", "%v", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, d.Errorf("", "%v", err)
	}
	if ptr, err := m.Check(max); err != nil {
		return nil, d.Errorf(ptr, "%v", err)
	}
	if ptr, err := m.CheckSchemas(); err != nil {
		return nil, d.Errorf(ptr, "%v", err)
	}
	return &m, nil
}

// JSONValue converts int64 to json.Number where jsonschema expects JSON numbers.
func JSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = JSONValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = JSONValue(e)
		}
		return out
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	}
	return v
}

// schemaError reports the deepest schema violation, located.
func schemaError(d *Document, ve *jsonschema.ValidationError) error {
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	ptr := ""
	for _, t := range leaf.InstanceLocation {
		ptr += "/" + Escape(t)
	}
	msg := leaf.ErrorKind.LocalizedString(printer())
	if strings.Contains(msg, "additional propert") {
		// Point at the unknown field itself, not at its parent.
		if m, ok := ValueAt(d.Tree, leaf.InstanceLocation).(map[string]any); ok {
			for _, k := range unknownKeys(msg, m) {
				l, c := d.Locate(ptr + "/" + Escape(k))
				return &Error{Source: d.Source, Pointer: ptr + "/" + Escape(k), Line: l, Column: c, Msg: "unknown field " + strconv.Quote(k)}
			}
		}
	}
	return d.Errorf(ptr, "%s", msg)
}

func unknownKeys(msg string, m map[string]any) []string {
	var ks []string
	for k := range m {
		if strings.Contains(msg, "'"+k+"'") {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

// ValueAt is the value at the reference tokens path inside tree, or nil.
func ValueAt(tree any, path []string) any {
	cur := tree
	for _, t := range path {
		switch x := cur.(type) {
		case map[string]any:
			cur = x[t]
		case []any:
			i, _ := strconv.Atoi(t)
			if i < 0 || i >= len(x) {
				return nil
			}
			cur = x[i]
		default:
			return nil
		}
	}
	return cur
}

// Check validates what the JSON Schema cannot: semver, host syntax, limits
// within max. It returns the pointer of the culprit.
func (m *Manifest) Check(max Maxima) (string, error) {
	if err := StrictVersion(m.Version); err != nil {
		return "/version", fmt.Errorf("version %q is not a semantic version such as 1.2.0 (%v)", m.Version, err)
	}
	for i, h := range m.Permissions.Network {
		if err := checkHost(h); err != nil {
			return fmt.Sprintf("/permissions/network/%d", i), err
		}
	}
	l, err := m.Permissions.Limits()
	if err != nil {
		return "/permissions/" + strings.SplitN(err.Error(), ":", 2)[0], err
	}
	over := func(field string, v, limit int64, f func(int64) string) error {
		if limit > 0 && v > limit {
			return fmt.Errorf("%s %s is over the configured maximum %s (manifest.max-%s)", field, f(v), f(limit), field)
		}
		return nil
	}
	if err := over("storage", l.StorageBytes, max.StorageBytes, size.Format); err != nil {
		return "/permissions/storage", err
	}
	if err := over("memory", l.MemoryBytes, max.MemoryBytes, size.Format); err != nil {
		return "/permissions/memory", err
	}
	if err := over("cpu", l.CPUMillis, max.CPUMillis, func(v int64) string { return strconv.FormatInt(v, 10) + "m" }); err != nil {
		return "/permissions/cpu", err
	}
	if err := over("timeout", l.TimeoutMS, max.Timeout.Milliseconds(), func(v int64) string { return (time.Duration(v) * time.Millisecond).String() }); err != nil {
		return "/permissions/timeout", err
	}
	if h := m.Entrypoint.HTTP; h != nil {
		// A relative URL (an OpenAPI document without servers) waits for a server at run time.
		u, err := url.Parse(noBraces.Replace(h.URL))
		if err != nil || !(u.Host != "" && (u.Scheme == "http" || u.Scheme == "https") || u.Host == "" && u.Scheme == "" && strings.HasPrefix(u.Path, "/")) {
			return "/entrypoint/http/url", fmt.Errorf("url %q is not an http(s) URL template", h.URL)
		}
	}
	return "", nil
}

// CheckSchemas checks that parameters and returns compile as JSON Schema 2020-12.
func (m *Manifest) CheckSchemas() (string, error) {
	if err := CompileSchema(JSONValue(m.Parameters)); err != nil {
		return "/parameters", fmt.Errorf("parameters is not a valid JSON Schema: %v", err)
	}
	if m.Returns != nil {
		if err := CompileSchema(JSONValue(m.Returns)); err != nil {
			return "/returns", fmt.Errorf("returns is not a valid JSON Schema: %v", err)
		}
	}
	return "", nil
}

// checkHost accepts host, host:port, IP literals and *.domain.
func checkHost(h string) error {
	host := h
	if hh, port, err := net.SplitHostPort(h); err == nil {
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("host %q has an invalid port", h)
		}
		host = hh
	}
	if net.ParseIP(host) != nil {
		return nil
	}
	host = strings.TrimPrefix(host, "*.")
	if len(host) == 0 || len(host) > 253 {
		return fmt.Errorf("host %q is not a host name", h)
	}
	for _, label := range strings.Split(host, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("host %q is not a host name (use host, host:port or *.domain)", h)
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return fmt.Errorf("host %q is not a host name (use host, host:port or *.domain)", h)
			}
		}
	}
	return nil
}

// ParseMaxima reads the configured maxima ("0" or "" for none); a value
// it cannot read is bad input.
func ParseMaxima(memory, cpu, storage, timeout string) (Maxima, error) {
	m, err := parseMaxima(memory, cpu, storage, timeout)
	return m, exitcode.AsInput(err)
}

func parseMaxima(memory, cpu, storage, timeout string) (Maxima, error) {
	var m Maxima
	var err error
	if m.MemoryBytes, err = ParseBytes(memory); err != nil {
		return m, fmt.Errorf("manifest.max-memory: %w", err)
	}
	if m.StorageBytes, err = ParseBytes(storage); err != nil {
		return m, fmt.Errorf("manifest.max-storage: %w", err)
	}
	if m.CPUMillis, err = ParseCPU(cpu); err != nil {
		return m, fmt.Errorf("manifest.max-cpu: %w", err)
	}
	if timeout != "" && timeout != "0" {
		if m.Timeout, err = time.ParseDuration(timeout); err != nil {
			return m, fmt.Errorf("manifest.max-timeout: %w", err)
		}
	}
	return m, nil
}

// DecodeInput decodes a JSON document as the schema validator expects it
// (numbers kept exact).
func DecodeInput(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}
