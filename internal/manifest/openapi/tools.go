package openapi

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/helixhq/helix/internal/manifest"
)

// builder converts the operations of one OpenAPI 3 tree.
type builder struct {
	d    *manifest.Document
	root map[string]any
	o    Options
	ctx  context.Context

	left, budget int  // expansion budget: values the tools may still expand to
	warnedServer bool // the scheme-relative server warning is given once
	res          *Result

	// Expansions of references that cut nothing, shared by every tool of the
	// document (never modified once made): the operations of a large API use
	// the same components over and over, and each tool holding its own copy
	// was most of an import's memory.
	done  map[string]any
	sizes map[string]int   // values in each expansion in done
	sh    *manifest.Shared // the maps of done, with their encodings and hashes

	rawSizes map[string]int  // expandedSize of references, by reference and depth
	patterns map[string]bool // regular expressions met, and whether they compile
	opPtr    string          // the operation being built, for warnings
}

func (b *builder) tools(res *Result) ([]Tool, error) {
	paths, _ := b.root["paths"].(map[string]any)
	if len(paths) == 0 {
		what := "no paths"
		if wh, ok := b.root["webhooks"].(map[string]any); ok && len(wh) > 0 {
			what = fmt.Sprintf("only webhooks (%d), which the API calls rather than serves", len(wh))
		}
		res.Warnings = append(res.Warnings, manifest.Warning{Pointer: "/paths", Message: "the document has " + what + ": no tools to import"})
		return nil, nil
	}
	b.res = res
	if err := b.o.enter(b.ctx, b.d.Source, phaseBuild); err != nil {
		return nil, err
	}
	version := b.version(res)
	info, _ := b.root["info"].(map[string]any)
	ns := b.o.Namespace
	if ns == "" {
		ns = manifest.NamespaceOf(str(info["title"]))
	} else if ns == manifest.NoNamespace {
		ns = ""
	}
	author := ""
	if c, ok := info["contact"].(map[string]any); ok {
		author = strings.TrimSpace(str(c["name"]) + " " + angle(str(c["email"])))
	}
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	var out []Tool
	names := map[string]string{}
	for _, p := range keys {
		item, ok := b.deref(paths[p]).(map[string]any)
		if !ok {
			continue
		}
		for _, method := range methods {
			op, ok := item[method].(map[string]any)
			if !ok {
				continue
			}
			ptr := "/paths/" + manifest.Escape(p) + "/" + method
			tags := strs(op["tags"])
			opID := str(op["operationId"])
			if !b.selected(opID, tags) {
				res.Skipped = append(res.Skipped, strings.ToUpper(method)+" "+p)
				continue
			}
			if err := b.ctx.Err(); err != nil {
				return nil, deadlineError(b.d.Source, b.ctx)
			}
			name := toolName(opID, method, p)
			if ns != "" {
				name = ns + "." + name
				if len(name) > 128 {
					name = name[:128]
				}
			}
			if prev, dup := names[name]; dup {
				n := 2
				for names[name+"_"+strconv.Itoa(n)] != "" {
					n++
				}
				res.Warnings = append(res.Warnings, manifest.Warning{Pointer: ptr, Message: fmt.Sprintf("tool name %s is already used by %s: named %s_%d", name, prev, name, n)})
				name += "_" + strconv.Itoa(n)
			}
			names[name] = ptr
			b.opPtr = ptr
			m, err := b.operation(ptr, p, method, item, op)
			if err != nil {
				return nil, err
			}
			if b.left < 0 {
				return nil, &BudgetError{Source: b.d.Source, Budget: b.budget, Tools: len(out)}
			}
			m.Name, m.Namespace, m.Version, m.Author, m.Tags = name, ns, version, author, tags
			m.ShareSchemas(b.sh)
			m.Format = manifest.OpenAPIFormat
			out = append(out, Tool{Manifest: m, Pointer: ptr})
		}
	}
	source := b.d.Source
	if err := b.o.enter(b.ctx, source, phaseCompile); err != nil {
		return nil, err
	}
	// The tools are built: the document's tree (graph.json: ~100 MB) and the
	// index of expansions are no longer needed while they compile.
	b.d, b.root, b.done, b.sizes, b.rawSizes = nil, nil, nil, nil, nil
	out, err := compile(b.ctx, out, res, b.sh)
	if err != nil {
		return nil, deadlineError(source, b.ctx)
	}
	return out, nil
}

func (b *builder) version(res *Result) string {
	info, _ := b.root["info"].(map[string]any)
	raw := str(info["version"])
	if manifest.StrictVersion(raw) == nil {
		return raw
	}
	if v, ok := manifest.LooseVersion(raw); ok {
		res.Warnings = append(res.Warnings, manifest.Warning{Pointer: "/info/version", Message: fmt.Sprintf("version %q read as %s", raw, v)})
		return v
	}
	res.Warnings = append(res.Warnings, manifest.Warning{Pointer: "/info/version", Message: fmt.Sprintf("version %q is not semver: tools get 0.0.0", raw)})
	return "0.0.0"
}

func (b *builder) selected(opID string, tags []string) bool {
	match := func(list []string) bool {
		for _, x := range list {
			if x == opID {
				return true
			}
			for _, t := range tags {
				if x == t {
					return true
				}
			}
		}
		return false
	}
	if len(b.o.Include) > 0 && !match(b.o.Include) {
		return false
	}
	return !match(b.o.Exclude)
}

var (
	nonName  = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)
	noBraces = strings.NewReplacer("{", "", "}", "")
)

// toolName is the operationId, or method_path, made a valid tool name.
func toolName(opID, method, path string) string {
	n := opID
	if n == "" {
		n = method + "_" + noBraces.Replace(strings.TrimPrefix(path, "/"))
	}
	n = strings.Trim(nonName.ReplaceAllString(n, "_"), "_.-")
	if n == "" || !(n[0] >= 'a' && n[0] <= 'z' || n[0] >= 'A' && n[0] <= 'Z') {
		n = "op_" + n
	}
	if len(n) > 128 {
		n = n[:128]
	}
	return n
}

func (b *builder) operation(ptr, path, method string, item, op map[string]any) (*manifest.Manifest, error) {
	m := &manifest.Manifest{}
	m.Description = strings.TrimSpace(str(op["summary"]))
	if desc := strings.TrimSpace(str(op["description"])); desc != "" && desc != m.Description {
		if m.Description != "" {
			m.Description += "\n\n"
		}
		m.Description += desc
	}
	if m.Description == "" {
		m.Description = strings.ToUpper(method) + " " + path
	}
	in := &inliner{b: b}
	schema, ct, notes := b.parameters(item, op, in)
	b.left -= in.size
	m.Parameters = schema
	m.Notes = append(m.Notes, notes...)
	server := b.server(op, item)
	m.Entrypoint.HTTP = &manifest.HTTPCall{Method: strings.ToUpper(method), URL: strings.TrimSuffix(server, "/") + path, BodyContentType: ct}
	u, err := url.Parse(server)
	switch {
	case err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https"):
		m.Permissions.Network = manifest.Network{u.Host}
	case err == nil && u.Host == "" && u.Scheme == "" && (server == "" || strings.HasPrefix(server, "/")):
		m.Notes = append(m.Notes, fmt.Sprintf("server URL %q is not absolute: network is none until imported with --server", server))
	default:
		// Placeholders ("Your API URL"), a host without a scheme: the
		// operation is kept, waiting for a server like a relative one.
		m.Entrypoint.HTTP.URL = path
		m.Notes = append(m.Notes, fmt.Sprintf("server URL %q is not an http(s) URL and was left out: network is none until imported with --server", server))
	}
	// The response schema is only checked against, never shown to a model:
	// its references are expanded to a fixed depth, so that the expansions
	// are shared by every tool. Expanded like the parameters, the response
	// objects of a large API (stripe's expandable fields) were millions of
	// values that no two tools shared.
	resp, depth := b.returnsSchema(op)
	rin := &inliner{b: b, maxDepth: depth}
	if resp != nil {
		m.Returns = rin.schema(resp)
	}
	m.Notes = append(m.Notes, rin.notes...)
	if in.err != nil || rin.err != nil {
		return nil, deadlineError(b.d.Source, b.ctx)
	}
	m.Permissions.Timeout = b.o.Timeout
	m.Credentials = b.credentials(op)
	return m, nil
}

// parameters merges the path-item and operation parameters (path, query,
// header) and the request body ("body") into one object schema, with the
// schemas expanded by in. It returns the schema, the body's media type and notes.
func (b *builder) parameters(item, op map[string]any, in *inliner) (map[string]any, string, []string) {
	var notes []string
	// Operation parameters override path-item ones with the same name and location.
	params := map[string]map[string]any{}
	var order []string
	for _, list := range []any{item["parameters"], op["parameters"]} {
		for _, raw := range anys(list) {
			p, ok := b.deref(raw).(map[string]any)
			if !ok {
				continue
			}
			key := str(p["in"]) + ":" + str(p["name"])
			if _, seen := params[key]; !seen {
				order = append(order, key)
			}
			params[key] = p
		}
	}
	props := map[string]any{}
	var required []string
	for _, key := range order {
		p := params[key]
		where, name := str(p["in"]), str(p["name"])
		if where == "cookie" {
			notes = append(notes, "cookie parameter "+name+" is not supported and was left out")
			continue
		}
		var s any = map[string]any{}
		if sch, ok := p["schema"]; ok {
			s = in.schema(sch)
		} else if c, ok := p["content"].(map[string]any); ok {
			if _, mt := pickMedia(c); mt != nil {
				s = in.schema(mt["schema"])
			}
		}
		sm, ok := s.(map[string]any)
		if !ok {
			sm = map[string]any{"allOf": []any{s}}
		}
		sm = clone(sm)
		if d := str(p["description"]); d != "" && sm["description"] == nil {
			sm["description"] = d
		}
		sm["x-helix-in"] = where
		// Serialization, when the document says (the defaults need no record).
		if st := str(p["style"]); st != "" {
			sm["x-helix-style"] = st
		}
		if ex, ok := p["explode"].(bool); ok {
			sm["x-helix-explode"] = ex
		}
		if ae, _ := p["allowEmptyValue"].(bool); ae && where == "query" {
			sm["x-helix-allow-empty"] = true
		}
		prop := name
		if _, clash := props[prop]; clash || prop == "body" {
			prop = where + "." + name
		}
		props[prop] = sm
		if req, _ := p["required"].(bool); req || where == "path" {
			required = append(required, prop)
		}
	}
	ct := ""
	if rb, ok := b.deref(op["requestBody"]).(map[string]any); ok {
		if c, ok := rb["content"].(map[string]any); ok {
			var mt map[string]any
			if ct, mt = pickMedia(c); mt != nil {
				s := in.schema(mt["schema"])
				if s == nil {
					s = map[string]any{}
				}
				if sm, ok := s.(map[string]any); ok {
					sm = clone(sm)
					if d := str(rb["description"]); d != "" && sm["description"] == nil {
						sm["description"] = d
					}
					s = sm
				}
				props["body"] = s
				if req, _ := rb["required"].(bool); req {
					required = append(required, "body")
				}
			}
		}
	}
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		sort.Strings(required)
		out["required"] = toAny(required)
	}
	return out, ct, append(notes, in.notes...)
}

func (b *builder) server(op, item map[string]any) string {
	if b.o.Server != "" {
		return b.o.Server
	}
	var s map[string]any
	for _, list := range []any{op["servers"], item["servers"], b.root["servers"]} {
		if l := anys(list); len(l) > 0 {
			s, _ = l[0].(map[string]any)
			break
		}
	}
	u := str(s["url"])
	if vars, ok := s["variables"].(map[string]any); ok {
		for k, v := range vars {
			if vm, ok := v.(map[string]any); ok {
				u = strings.ReplaceAll(u, "{"+k+"}", str(vm["default"]))
			}
		}
	}
	schemeless := strings.HasPrefix(u, "//")
	if b.o.BaseURL != "" {
		if base, err := url.Parse(b.o.BaseURL); err == nil {
			if ref, err := url.Parse(u); err == nil {
				u = base.ResolveReference(ref).String()
			}
		}
	} else if schemeless {
		u = "https:" + u
	}
	if schemeless && !b.warnedServer && b.res != nil {
		// Left by Swagger 2.0 conversions that had a host but no schemes.
		b.warnedServer = true
		b.res.Warnings = append(b.res.Warnings, manifest.Warning{Pointer: "/servers", Message: fmt.Sprintf("scheme-relative server URL %q resolved to %s", str(s["url"]), u)})
	}
	return u
}

func (b *builder) credentials(op map[string]any) [][]manifest.Credential {
	sec, ok := op["security"]
	if !ok {
		sec = b.root["security"]
	}
	comps, _ := b.root["components"].(map[string]any)
	schemes, _ := comps["securitySchemes"].(map[string]any)
	var out [][]manifest.Credential
	for _, req := range anys(sec) {
		rm, _ := req.(map[string]any)
		if len(rm) == 0 {
			continue // {} means anonymous access is one of the options
		}
		names := make([]string, 0, len(rm))
		for n := range rm {
			names = append(names, n)
		}
		sort.Strings(names)
		var set []manifest.Credential
		for _, n := range names {
			c := manifest.Credential{Scheme: n, Scopes: strs(rm[n])}
			if s, ok := b.deref(schemes[n]).(map[string]any); ok {
				c.Type, c.In, c.Name, c.HTTPScheme = str(s["type"]), str(s["in"]), str(s["name"]), str(s["scheme"])
			}
			if c.Type == "" {
				c.Type = "unknown"
			}
			set = append(set, c)
		}
		out = append(out, set)
	}
	return out
}

// pickMedia prefers JSON, then the first media type by name.
func pickMedia(c map[string]any) (string, map[string]any) {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ji, jj := strings.Contains(keys[i], "json"), strings.Contains(keys[j], "json")
		if ji != jj {
			return ji
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		if mt, ok := c[k].(map[string]any); ok {
			return k, mt
		}
	}
	return "", nil
}
