package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/helixhq/helix/internal/third_party/openapi2"
	"github.com/helixhq/helix/internal/third_party/openapi2conv"
	"github.com/helixhq/helix/internal/third_party/openapi3"

	"github.com/helixhq/helix/internal/manifest"
)

func convertV2(d *manifest.Document) (*manifest.Document, error) {
	b, err := json.Marshal(d.Tree)
	if err != nil {
		return nil, err
	}
	var v2 openapi2.T
	if err := json.Unmarshal(b, &v2); err != nil {
		return nil, d.Errorf("", "load Swagger 2.0: %v", err)
	}
	v3, err := openapi2conv.ToV3(&v2)
	if err != nil {
		return nil, d.Errorf("", "convert Swagger 2.0 to OpenAPI 3: %v", err)
	}
	if b, err = json.Marshal(v3); err != nil {
		return nil, err
	}
	return manifest.Decode(d.Source+" (converted from Swagger 2.0)", b)
}

var (
	reSchema = regexp.MustCompile(`^invalid components: (schema|parameter|requestBody|response|securityScheme|header) "([^"]+)": `)
	rePath   = regexp.MustCompile(`^invalid paths: invalid path ([^:]+): (?:invalid operation ([A-Z]+): )?`)
)

var componentDir = map[string]string{"schema": "schemas", "parameter": "parameters", "requestBody": "requestBodies",
	"response": "responses", "securityScheme": "securitySchemes", "header": "headers"}

// kinValidate loads the document with kin-openapi (external refs off) and
// turns its validation findings into warnings located by JSON pointer.
func kinValidate(ctx context.Context, root map[string]any) ([]manifest.Warning, error) {
	b, err := appendKinJSON(nil, pruneForKin(root))
	if err != nil {
		return nil, err
	}
	l := openapi3.NewLoader()
	l.IsExternalRefsAllowed = false
	l.Context = ctx
	doc, err := l.LoadFromData(b)
	if err != nil {
		// The document's syntax and references have been checked already;
		// what kin-openapi cannot load (a pointer through a $ref'd schema's
		// properties, a discriminator mapping into another file) it cannot
		// validate either, and the tools are built without it.
		return []manifest.Warning{{Message: "not validated by kin-openapi, which cannot load it: " + err.Error()}}, nil
	}
	verr := doc.Validate(ctx, openapi3.EnableMultiError(), openapi3.DisableExamplesValidation(), openapi3.DisableSchemaDefaultsValidation(),
		openapi3.SetRegexCompiler(kinRegexps()))
	if verr == nil {
		return nil, nil
	}
	var leaves []error
	var me openapi3.MultiError
	if errors.As(verr, &me) {
		leaves = me
	} else {
		leaves = []error{verr}
	}
	ws := make([]manifest.Warning, 0, len(leaves))
	for _, e := range leaves {
		msg := e.Error()
		w := manifest.Warning{Message: msg}
		if m := reSchema.FindStringSubmatch(msg); m != nil {
			w.Pointer = "/components/" + componentDir[m[1]] + "/" + manifest.Escape(m[2])
			w.Message = msg[len(m[0]):]
		} else if m := rePath.FindStringSubmatch(msg); m != nil {
			w.Pointer = "/paths/" + manifest.Escape(m[1])
			if m[2] != "" {
				w.Pointer += "/" + strings.ToLower(m[2])
			}
			w.Message = msg[len(m[0]):]
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// pruneForKin drops what tools are not built from (response bodies, and the
// component schemas only they use) and what kin-openapi never validates (the
// extensions of the document, path items and operations: it only checks
// their names start with x-) before kin-openapi loads the document: its
// loader is the slowest step on large documents.
//
// A response whose content another part of the document refers to
// (digitalocean's request bodies reuse response schemas by pointer,
// "#/paths/~1v2~1account~1keys/get/responses/200/content/application~1json/…")
// keeps its content.
func pruneForKin(root map[string]any) map[string]any {
	out := dropExtensions(clone(root))
	used := usedResponseContent(root)
	strip := func(at string, v any) any {
		r, ok := v.(map[string]any)
		if !ok || r["content"] == nil || used[at] {
			return v
		}
		r = clone(r)
		delete(r, "content")
		return r
	}
	if paths, ok := root["paths"].(map[string]any); ok {
		np := make(map[string]any, len(paths))
		for p, it := range paths {
			item, ok := it.(map[string]any)
			if !ok {
				np[p] = it
				continue
			}
			item = dropExtensions(clone(item))
			for _, m := range methods {
				op, ok := item[m].(map[string]any)
				if !ok {
					continue
				}
				op = dropExtensions(clone(op))
				if rs, ok := op["responses"].(map[string]any); ok {
					nr := make(map[string]any, len(rs))
					for c, r := range rs {
						nr[c] = strip("/paths/"+manifest.Escape(p)+"/"+m+"/responses/"+manifest.Escape(c), r)
					}
					op["responses"] = nr
				}
				item[m] = op
			}
			np[p] = item
		}
		out["paths"] = np
	}
	comps, ok := root["components"].(map[string]any)
	if !ok {
		return out
	}
	comps = clone(comps)
	out["components"] = comps
	if rs, ok := comps["responses"].(map[string]any); ok {
		nr := make(map[string]any, len(rs))
		for c, r := range rs {
			nr[c] = strip("/components/responses/"+manifest.Escape(c), r)
		}
		comps["responses"] = nr
	}
	schemas, ok := comps["schemas"].(map[string]any)
	if !ok {
		return out
	}
	delete(comps, "schemas")
	keep := map[string]any{}
	var queue []string
	visit := func(ref string) bool {
		if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok {
			if dec, err := url.PathUnescape(name); err == nil {
				name = dec // RFC 6901 §6, as manifest.Resolve does
			}
			name = manifest.Unescape(strings.SplitN(name, "/", 2)[0])
			if _, seen := keep[name]; !seen {
				if s, ok := schemas[name]; ok {
					keep[name] = s
					queue = append(queue, name)
				}
			}
		}
		return true
	}
	walkRefs(out, visit)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		walkRefs(keep[n], visit)
	}
	comps["schemas"] = keep
	return out
}

// usedResponseContent returns the pointers of the responses (in paths or
// components) whose content some $ref points into.
func usedResponseContent(root map[string]any) map[string]bool {
	used := map[string]bool{}
	walkRefs(root, func(ref string) bool {
		toks, ok := manifest.RefTokens(ref)
		if !ok {
			return true
		}
		switch {
		case len(toks) > 5 && toks[0] == "paths" && toks[3] == "responses" && toks[5] == "content":
			used["/paths/"+manifest.Escape(toks[1])+"/"+toks[2]+"/responses/"+manifest.Escape(toks[4])] = true
		case len(toks) > 3 && toks[0] == "components" && toks[1] == "responses" && toks[3] == "content":
			used["/components/responses/"+manifest.Escape(toks[2])] = true
		}
		return true
	})
	return used
}

// appendKinJSON appends v as JSON, as encoding/json would, but with every
// non-empty "description" string written as ".": kin-openapi never reads a
// description beyond telling an empty one from none, and decoding them was
// a fifth of its load.
func appendKinJSON(b []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendJSONString(b, k), ':')
			e := x[k]
			if k == "discriminator" {
				e = localMapping(e)
			}
			if s, ok := e.(string); ok && k == "description" && s != "" {
				b = append(b, `"."`...)
			} else if b, err = appendKinJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendKinJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case string:
		return appendJSONString(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case nil:
		return append(b, "null"...), nil
	}
	// Floats (and whatever else): encoding/json's spelling, and its error for NaN and ±Inf.
	js, err := json.Marshal(v)
	return append(b, js...), err
}

// localMapping drops from a discriminator the mapping entries that name
// another file ("models/types.yml#/a"), which kin-openapi would try to load:
// helix ignores the mapping, and the document's own references are local.
func localMapping(v any) any {
	d, ok := v.(map[string]any)
	if !ok {
		return v
	}
	mp, ok := d["mapping"].(map[string]any)
	if !ok {
		return v
	}
	local := make(map[string]any, len(mp))
	for k, e := range mp {
		if s, ok := e.(string); ok && !strings.HasPrefix(s, "#") && strings.ContainsAny(s, "/#") {
			continue
		}
		local[k] = e
	}
	if len(local) == len(mp) {
		return v
	}
	d = clone(d)
	d["mapping"] = local
	return d
}

// appendJSONString appends s quoted as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			js, _ := json.Marshal(s) // escapes, and invalid UTF-8, as encoding/json does
			return append(b, js...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// dropExtensions deletes the x-* fields of an OpenAPI object (a copy): the
// OpenAI description's x-oaiMeta alone is half of what kin-openapi loads.
func dropExtensions(obj map[string]any) map[string]any {
	for k := range obj {
		if strings.HasPrefix(k, "x-") {
			delete(obj, k)
		}
	}
	return obj
}
