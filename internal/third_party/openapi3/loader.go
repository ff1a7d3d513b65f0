package openapi3

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

func failedToResolveRefFragmentPart(value, what string) error {
	return fmt.Errorf("failed to resolve %q in fragment in URI: %q", what, value)
}

// Loader helps deserialize an OpenAPIv3 document
type Loader struct {
	// IsExternalRefsAllowed enables visiting other files. Enforced only when
	// ReadFromURIFunc is nil; a custom ReadFromURIFunc bypasses this flag and
	// owns the access policy itself — see ReadFromURIFunc.
	IsExternalRefsAllowed bool

	// IncludeOrigin enables recording the file/line/column of each OpenAPI element.
	IncludeOrigin bool

	// ReadFromURIFunc overrides how the loader reads a referenced file or URL.
	//
	// SECURITY: when a custom ReadFromURIFunc is set, IsExternalRefsAllowed is
	// NOT enforced — this function alone decides which locations may be read. A
	// func that reads whatever URI it is handed (e.g. by delegating to
	// DefaultReadFromURI) resolves external $refs even when IsExternalRefsAllowed
	// is false, which on untrusted documents enables local file reads
	// (`$ref: "/etc/passwd"`) and SSRF (`$ref: "http://169.254.169.254/..."`).
	// A custom func must apply its own scheme/host allowlist, or re-check
	// IsExternalRefsAllowed, before reading.
	ReadFromURIFunc ReadFromURIFunc

	// JoinFunc allows overriding how relative $ref paths are resolved against
	// a base path. When set, it is called instead of the default join logic
	// that uses path.Dir and path.Join. This is useful when loading specs from
	// non-filesystem sources (e.g. git objects, remote archives) where the base
	// path follows a different convention than filesystem paths.
	JoinFunc func(basePath *url.URL, relativePath *url.URL) *url.URL

	Context context.Context

	rootDir      string
	rootLocation string

	visitedPathItemRefs map[string]struct{}

	visitedDocuments map[string]*T

	// originTrees retains each loaded document's origin tree, keyed by the
	// document itself so insert and lookup cannot disagree, populated when
	// IncludeOrigin is set. resolveComponent uses it to re-attach origins to
	// components that lose them in the generic-map path, without re-reading
	// or re-parsing the file.
	originTrees map[*T]*originTree

	visitedRefs map[string]struct{}
	visitedPath []string
	backtrack   map[string][]func(value any)

	// rootDoc is the document whose refs are being resolved, as opposed to
	// the documents it refers to, and resolvingDepth how deep in these the
	// loader currently is.
	rootDoc        *T
	resolvingDepth int
}

// NewLoader returns an empty Loader
func NewLoader() *Loader {
	return &Loader{
		Context: context.Background(),
	}
}

func (loader *Loader) resetVisitedPathItemRefs() {
	loader.visitedPathItemRefs = make(map[string]struct{})
	loader.visitedRefs = make(map[string]struct{})
	loader.visitedPath = nil
	loader.backtrack = make(map[string][]func(value any))
}

// LoadFromURI loads a spec from a remote URL
func (loader *Loader) LoadFromURI(location *url.URL) (*T, error) {
	loader.resetVisitedPathItemRefs()
	return loader.loadFromURIInternal(location)
}

// LoadFromFile loads a spec from a local file path
func (loader *Loader) LoadFromFile(location string) (*T, error) {
	loader.rootDir = path.Dir(location)
	return loader.LoadFromURI(&url.URL{Path: filepath.ToSlash(location)})
}

func (loader *Loader) loadFromURIInternal(location *url.URL) (*T, error) {
	data, err := loader.readURL(location)
	if err != nil {
		return nil, err
	}
	return loader.loadFromDataWithPathInternal(data, location)
}

func (loader *Loader) allowsExternalRefs(ref string) (err error) {
	if !loader.IsExternalRefsAllowed {
		err = fmt.Errorf("encountered disallowed external reference: %q", ref)
	}
	return
}

func (loader *Loader) loadSingleElementFromURI(ref string, rootPath *url.URL, element any) (*url.URL, error) {
	// IsExternalRefsAllowed is enforced here only when no custom ReadFromURIFunc
	// is installed; otherwise the custom func owns the access policy (see the
	// SECURITY note on the ReadFromURIFunc field).
	if loader.ReadFromURIFunc == nil {
		if err := loader.allowsExternalRefs(ref); err != nil {
			return nil, err
		}
	}

	resolvedPath, err := loader.resolvePathWithRef(ref, rootPath)
	if err != nil {
		return nil, err
	}
	if frag := resolvedPath.Fragment; frag != "" {
		return nil, fmt.Errorf("unexpected ref fragment %q", frag)
	}

	data, err := loader.readURL(resolvedPath)
	if err != nil {
		return nil, err
	}
	if _, err := unmarshal(data, element, loader.IncludeOrigin, resolvedPath); err != nil {
		return nil, err
	}

	return resolvedPath, nil
}

// rememberOriginTree retains doc's origin tree for attachOriginToResolved.
// tree is nil when IncludeOrigin is off or the data took the json path.
//
// The tree is kept only for a document a $ref can reach into untyped, which is
// what attachOriginToResolved exists to re-origin. In practice that means a
// file of shared fragments, whose top level is the fragment name itself rather
// than the fields of an OpenAPI Object:
//
//	User:            # a $ref to "./schemas.yaml#/User" lands here, untyped
//	  type: object
//
// Anything OpenAPI defines a field for resolves through typed structures and
// keeps its origins on the way, so its tree could never be read. That includes
// a referenced document that is itself an OpenAPI Object: a $ref to
// "#/components/schemas/User" needs no tree. (A top-level x- extension is
// undefined by the same rule, so a document carrying one keeps its tree too,
// whether or not anything ever points at it.)
//
// Worth the condition: on a 22 MB spec the retained tree was a third of
// everything the loader held.
func (loader *Loader) rememberOriginTree(doc *T, tree *originTree) {
	if tree == nil || len(doc.Extensions) == 0 {
		return
	}
	if loader.originTrees == nil {
		loader.originTrees = make(map[*T]*originTree)
	}
	loader.originTrees[doc] = tree
}

func (loader *Loader) readURL(location *url.URL) ([]byte, error) {
	if f := loader.ReadFromURIFunc; f != nil {
		return f(loader, location)
	}
	return DefaultReadFromURI(loader, location)
}

// LoadFromStdin loads a spec from stdin
func (loader *Loader) LoadFromStdin() (*T, error) {
	return loader.LoadFromIoReader(os.Stdin)
}

// LoadFromStdin loads a spec from io.Reader
func (loader *Loader) LoadFromIoReader(reader io.Reader) (*T, error) {
	if reader == nil {
		return nil, fmt.Errorf("invalid reader: %v", reader)
	}

	data, err := io.ReadAll(reader)
	if err != nil {
		return nil, err
	}
	return loader.LoadFromData(data)
}

// LoadFromData loads a spec from a byte array
func (loader *Loader) LoadFromData(data []byte) (*T, error) {
	loader.resetVisitedPathItemRefs()
	doc := &T{}
	tree, err := unmarshal(data, doc, loader.IncludeOrigin, nil)
	if err != nil {
		return nil, err
	}
	loader.rememberOriginTree(doc, tree)
	if err := loader.ResolveRefsIn(doc, nil); err != nil {
		return nil, err
	}
	return doc, nil
}

// LoadFromDataWithPath takes the OpenAPI document data in bytes and a path where the resolver can find referred
// elements and returns a *T with all resolved data or an error if unable to load data or resolve refs.
func (loader *Loader) LoadFromDataWithPath(data []byte, location *url.URL) (*T, error) {
	loader.resetVisitedPathItemRefs()
	return loader.loadFromDataWithPathInternal(data, location)
}

func (loader *Loader) loadFromDataWithPathInternal(data []byte, location *url.URL) (*T, error) {
	if loader.visitedDocuments == nil {
		loader.visitedDocuments = make(map[string]*T)
		loader.rootLocation = location.Path
	}
	uri := location.String()
	if doc, ok := loader.visitedDocuments[uri]; ok {
		return doc, nil
	}

	doc := &T{}
	loader.visitedDocuments[uri] = doc

	tree, err := unmarshal(data, doc, loader.IncludeOrigin, location)
	if err != nil {
		return nil, err
	}
	loader.rememberOriginTree(doc, tree)

	doc.url = copyURI(location)

	if err := loader.ResolveRefsIn(doc, location); err != nil {
		return nil, err
	}

	return doc, nil
}

// ResolveRefsIn expands references if for instance spec was just unmarshaled
func (loader *Loader) ResolveRefsIn(doc *T, location *url.URL) (err error) {
	if loader.Context == nil {
		loader.Context = context.Background()
	}

	if loader.resolvingDepth == 0 {
		loader.rootDoc = doc
	}
	loader.resolvingDepth++
	defer func() { loader.resolvingDepth-- }()

	if loader.visitedPathItemRefs == nil {
		loader.resetVisitedPathItemRefs()
	}

	if components := doc.Components; components != nil {
		for _, name := range componentNames(components.Headers) {
			component := components.Headers[name]
			if err = loader.resolveHeaderRef(doc, component, location); err != nil {
				return
			}
		}
		for _, name := range componentNames(components.Parameters) {
			component := components.Parameters[name]
			if err = loader.resolveParameterRef(doc, component, location); err != nil {
				return
			}
		}
		for _, name := range componentNames(components.RequestBodies) {
			component := components.RequestBodies[name]
			if err = loader.resolveRequestBodyRef(doc, component, location); err != nil {
				return
			}
		}
		for _, name := range componentNames(components.Responses) {
			component := components.Responses[name]
			if err = loader.resolveResponseRef(doc, component, location); err != nil {
				return
			}
		}
		for _, name := range componentNames(components.Schemas) {
			component := components.Schemas[name]
			if err = loader.resolveSchemaRef(doc, component, location, []string{}); err != nil {
				return
			}
		}
		for _, name := range componentNames(components.SecuritySchemes) {
			component := components.SecuritySchemes[name]
			if err = loader.resolveSecuritySchemeRef(doc, component, location); err != nil {
				return
			}
		}
		for _, name := range componentNames(components.Examples) {
			component := components.Examples[name]
			if err = loader.resolveExampleRef(doc, component, location); err != nil {
				return
			}
		}
		for _, name := range componentNames(components.Links) {
			component := components.Links[name]
			if err = loader.resolveLinkRef(doc, component, location); err != nil {
				return
			}
		}
		for _, name := range componentNames(components.Callbacks) {
			component := components.Callbacks[name]
			if err = loader.resolveCallbackRef(doc, component, location); err != nil {
				return
			}
		}
	}

	// Visit all operations
	pathItems := doc.Paths.Map()
	for _, name := range componentNames(pathItems) {
		pathItem := pathItems[name]
		if pathItem == nil {
			continue
		}
		if err = loader.resolvePathItemRef(doc, pathItem, location); err != nil {
			return
		}
	}

	for _, name := range componentNames(doc.Webhooks) {
		if pathItem := doc.Webhooks[name]; pathItem != nil {
			if err = loader.resolvePathItemRef(doc, pathItem, location); err != nil {
				return
			}
		}
	}

	return
}

func defaultJoin(basePath *url.URL, relativePath *url.URL) *url.URL {
	if basePath == nil {
		return relativePath
	}
	newPath := *basePath
	newPath.Path = path.Join(path.Dir(newPath.Path), relativePath.Path)
	return &newPath
}

func (loader *Loader) resolvePath(basePath *url.URL, componentPath *url.URL) *url.URL {
	if is_file(componentPath) {
		// support absolute paths
		if filepath.IsAbs(componentPath.Path) {
			return componentPath
		}
		if loader.JoinFunc != nil {
			return loader.JoinFunc(basePath, componentPath)
		}
		return defaultJoin(basePath, componentPath)
	}
	return componentPath
}

func (loader *Loader) resolvePathWithRef(ref string, rootPath *url.URL) (*url.URL, error) {
	parsedURL, err := url.Parse(ref)
	if err != nil {
		return nil, fmt.Errorf("cannot parse reference: %q: %w", ref, err)
	}

	resolvedPath := loader.resolvePath(rootPath, parsedURL)
	resolvedPath.Fragment = parsedURL.Fragment
	return resolvedPath, nil
}

func (loader *Loader) resolveRefPath(ref string, path *url.URL) (*url.URL, error) {
	if ref != "" && ref[0] == '#' {
		path = copyURI(path)
		// Resolving internal refs of a doc loaded from memory
		// has no path, so just set the Fragment.
		if path == nil {
			path = new(url.URL)
		}

		path.Fragment = ref
		return path, nil
	}

	// IsExternalRefsAllowed is enforced here only when no custom ReadFromURIFunc
	// is installed; otherwise the custom func owns the access policy (see the
	// SECURITY note on the ReadFromURIFunc field).
	if loader.ReadFromURIFunc == nil {
		if err := loader.allowsExternalRefs(ref); err != nil {
			return nil, err
		}
	}

	resolvedPath, err := loader.resolvePathWithRef(ref, path)
	if err != nil {
		return nil, err
	}

	return resolvedPath, nil
}

func isSingleRefElement(ref string) bool {
	return !strings.Contains(ref, "#")
}

// visitedRefKey identifies a $ref being resolved as an object of the given
// kind. The same $ref can be written where different kinds of objects are
// expected, as in a path item and in one of its responses: resolving one must
// not hand its value over to the other.
func visitedRefKey(kind, ref string) string { return kind + " " + ref }

func (loader *Loader) visitRef(kind, ref string) {
	if loader.visitedRefs == nil {
		loader.visitedRefs = make(map[string]struct{})
		loader.backtrack = make(map[string][]func(value any))
	}
	key := visitedRefKey(kind, ref)
	loader.visitedPath = append(loader.visitedPath, key)
	loader.visitedRefs[key] = struct{}{}
}

func (loader *Loader) unvisitRef(kind, ref string, value any) {
	key := visitedRefKey(kind, ref)
	if value != nil {
		for _, fn := range loader.backtrack[key] {
			fn(value)
		}
	}
	delete(loader.visitedRefs, key)
	delete(loader.backtrack, key)
	loader.visitedPath = loader.visitedPath[:len(loader.visitedPath)-1]
}

func (loader *Loader) shouldVisitRef(kind, ref string, fn func(value any)) bool {
	key := visitedRefKey(kind, ref)
	if _, ok := loader.visitedRefs[key]; ok {
		loader.backtrack[key] = append(loader.backtrack[key], fn)
		return false
	}
	return true
}

func (loader *Loader) resolveComponent(doc *T, ref string, path *url.URL, resolved any) (
	componentDoc *T,
	componentPath *url.URL,
	err error,
) {
	if componentDoc, ref, componentPath, err = loader.resolveRefAndDocument(doc, ref, path); err != nil {
		return nil, nil, err
	}

	parsedURL, err := url.Parse(ref)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot parse reference: %q: %v", ref, parsedURL)
	}
	fragment := parsedURL.Fragment
	if fragment == "" {
		fragment = "/"
	}
	if fragment[0] != '/' {
		return nil, nil, fmt.Errorf("expected fragment prefix '#/' in URI %q", ref)
	}

	drill := func(cursor any) (any, error) {
		for pathPart := range strings.SplitSeq(fragment[1:], "/") {
			pathPart = unescapeRefString(pathPart)
			attempted := false

			switch c := cursor.(type) {
			// Special case of T
			// See issue856: a ref to doc => we assume that doc is a T => things live in T.Extensions
			case *T:
				if pathPart == "" {
					cursor = c.Extensions
					attempted = true
				}

			// Special case due to multijson
			case *SchemaRef:
				if pathPart == "additionalProperties" {
					if s := c.Value; s != nil {
						if ap := s.AdditionalProperties.Has; ap != nil {
							cursor = *ap
						} else {
							cursor = s.AdditionalProperties.Schema
						}
					}
					attempted = true
				}

			case *Responses:
				cursor = c.m // m map[string]*ResponseRef
			case *Callback:
				cursor = c.m // m map[string]*PathItem
			case *Paths:
				cursor = c.m // m map[string]*PathItem
			}

			if !attempted {
				if cursor, err = drillIntoField(cursor, pathPart); err != nil {
					e := failedToResolveRefFragmentPart(ref, pathPart)
					return nil, fmt.Errorf("%s: %w", e, err)
				}
			}

			if cursor == nil || isNonNilIfaceHoldingNilPtr(cursor) {
				return nil, failedToResolveRefFragmentPart(ref, pathPart)
			}
		}
		return cursor, nil
	}
	var cursor any
	if cursor, err = drill(componentDoc); err != nil {
		if path == nil {
			return nil, nil, err
		}
		var err2 error
		data, err2 := loader.readURL(path)
		if err2 != nil {
			return nil, nil, err
		}
		if _, err2 = unmarshal(data, &cursor, loader.IncludeOrigin, path); err2 != nil {
			return nil, nil, err
		}
		if cursor, err2 = drill(cursor); err2 != nil || cursor == nil {
			return nil, nil, err
		}
		err = nil
	}

	setPathRef := func(target any) {
		if i, ok := target.(interface {
			setRefPath(*url.URL)
		}); ok {
			pathRef := copyURI(componentPath)
			// Resolving internal refs of a doc loaded from memory
			// has no path, so just set the Fragment.
			if pathRef == nil {
				pathRef = new(url.URL)
			}
			pathRef.Fragment = fragment

			i.setRefPath(pathRef)
		}
	}

	switch {
	case reflect.TypeOf(cursor) == reflect.TypeOf(resolved):
		setPathRef(cursor)

		reflect.ValueOf(resolved).Elem().Set(reflect.ValueOf(cursor).Elem())
		return componentDoc, componentPath, nil

	case reflect.TypeOf(cursor) == reflect.TypeFor[map[string]any]():
		codec := func(got, expect any) error {
			enc, err := json.Marshal(got)
			if err != nil {
				return err
			}
			if err = unmarshalJSON(enc, expect); err != nil {
				return err
			}

			setPathRef(expect)
			return nil
		}
		if err := codec(cursor, resolved); err != nil {
			return nil, nil, fmt.Errorf("bad data in %q (expecting %s)", ref, readableType(resolved))
		}
		// The value came from a generic map in T.Extensions (a $ref to an
		// arbitrary top-level key), so the json round-trip above stripped its
		// origins. Re-attach them from the file, best-effort.
		loader.attachOriginToResolved(resolved, componentDoc, fragment)
		return componentDoc, componentPath, nil

	default:
		return nil, nil, fmt.Errorf("bad data in %q (expecting %s)", ref, readableType(resolved))
	}
}

// attachOriginToResolved re-attaches source origins to a component resolved
// through the generic-map path: a $ref to a schema under an arbitrary top-level
// key lands in T.Extensions, and the json round-trip in resolveComponent strips
// its origin. It walks the document's retained origin tree (see originTrees,
// populated when the document was first unmarshaled: no re-read, no re-parse)
// down to the ref fragment and applies that subtree, so the object carries the
// same origins a typed resolution would, with the original file's line numbers.
// Best-effort: a missing tree or fragment leaves the object without origins.
func (loader *Loader) attachOriginToResolved(resolved any, componentDoc *T, fragment string) {
	if !loader.IncludeOrigin {
		return
	}
	tree := loader.originTrees[componentDoc]
	if tree == nil {
		return
	}
	for part := range strings.SplitSeq(strings.Trim(fragment, "/"), "/") {
		if part == "" {
			continue
		}
		if tree = tree.Fields[unescapeRefString(part)]; tree == nil {
			return
		}
	}
	applyOrigins(resolved, tree)
}

func readableType(x any) string {
	switch x.(type) {
	case *Callback:
		return "callback object"
	case *CallbackRef:
		return "ref to callback object"
	case *ExampleRef:
		return "ref to example object"
	case *HeaderRef:
		return "ref to header object"
	case *LinkRef:
		return "ref to link object"
	case *ParameterRef:
		return "ref to parameter object"
	case *PathItem:
		return "pathItem object"
	case *RequestBodyRef:
		return "ref to requestBody object"
	case *ResponseRef:
		return "ref to response object"
	case *SchemaRef:
		return "ref to schema object"
	case *SecuritySchemeRef:
		return "ref to securityScheme object"
	default:
		panic(fmt.Sprintf("unreachable %T", x))
	}
}

func isNonNilIfaceHoldingNilPtr(cursor any) bool {
	value := reflect.ValueOf(cursor)
	return value.Kind() == reflect.Pointer && value.IsNil()
}

func drillIntoField(cursor any, fieldName string) (any, error) {
	switch val := reflect.Indirect(reflect.ValueOf(cursor)); val.Kind() {

	case reflect.Map:
		elementValue := val.MapIndex(reflect.ValueOf(fieldName))
		if !elementValue.IsValid() {
			return nil, fmt.Errorf("map key %q not found", fieldName)
		}
		return elementValue.Interface(), nil

	case reflect.Slice:
		if strings.HasPrefix(fieldName, "+") || strings.HasPrefix(fieldName, "-") {
			return nil, fmt.Errorf("invalid slice index %q", fieldName)
		}
		index, err := strconv.Atoi(fieldName)
		if err != nil {
			return nil, err
		}
		if index >= val.Len() {
			return nil, errors.New("slice index out of bounds")
		}
		return val.Index(index).Interface(), nil

	case reflect.Struct:
		hasFields := false
		for i := range val.NumField() {
			hasFields = true
			if yamlTag := val.Type().Field(i).Tag.Get("yaml"); yamlTag != "-" {
				if tagName, _, _ := strings.Cut(yamlTag, ","); tagName != "" {
					if fieldName == tagName {
						return val.Field(i).Interface(), nil
					}
				}
			}
		}

		// if cursor is a "ref wrapper" struct (e.g. RequestBodyRef),
		if _, ok := val.Type().FieldByName("Value"); ok {
			// try digging into its Value field
			return drillIntoField(val.FieldByName("Value").Interface(), fieldName)
		}
		if hasFields {
			if ff := val.Type().Field(0); ff.PkgPath == "" && ff.Name == "Extensions" {
				extensions := val.Field(0).Interface().(map[string]any)
				if enc, ok := extensions[fieldName]; ok {
					return enc, nil
				}
			}
		}
		return nil, fmt.Errorf("struct field %q not found", fieldName)

	default:
		return nil, errors.New("not a map, slice nor struct")
	}
}

func (loader *Loader) resolveRefAndDocument(doc *T, ref string, path *url.URL) (*T, string, *url.URL, error) {
	if ref != "" && ref[0] == '#' {
		return doc, ref, path, nil
	}

	fragment, resolvedPath, err := loader.resolveRef(ref, path)
	if err != nil {
		return nil, "", nil, err
	}

	if doc, err = loader.loadFromURIInternal(resolvedPath); err != nil {
		return nil, "", nil, fmt.Errorf("error resolving reference %q: %w", ref, err)
	}

	return doc, fragment, resolvedPath, nil
}

func (loader *Loader) resolveRef(ref string, path *url.URL) (string, *url.URL, error) {
	resolvedPathRef, err := loader.resolveRefPath(ref, path)
	if err != nil {
		return "", nil, err
	}

	fragment := "#" + resolvedPathRef.Fragment
	resolvedPathRef.Fragment = ""
	return fragment, resolvedPathRef, nil
}

var (
	errMUSTCallback       = errors.New("invalid callback: value MUST be an object")
	errMUSTExample        = errors.New("invalid example: value MUST be an object")
	errMUSTHeader         = errors.New("invalid header: value MUST be an object")
	errMUSTLink           = errors.New("invalid link: value MUST be an object")
	errMUSTParameter      = errors.New("invalid parameter: value MUST be an object")
	errMUSTPathItem       = errors.New("invalid path item: value MUST be an object")
	errMUSTRequestBody    = errors.New("invalid requestBody: value MUST be an object")
	errMUSTResponse       = errors.New("invalid response: value MUST be an object")
	errMUSTSchema         = errors.New("invalid schema: value MUST be an object")
	errMUSTSecurityScheme = errors.New("invalid securityScheme: value MUST be an object")
)

func applyHeaderRefMetadata(value *Header, component *HeaderRef, isOpenAPI31OrLater bool) {
	if !isOpenAPI31OrLater || value == nil || component.Description == nil {
		return
	}

	value.Description = *component.Description
}

func (loader *Loader) resolveHeaderRef(doc *T, component *HeaderRef, documentPath *url.URL) (err error) {
	isOpenAPI31OrLater := doc.IsOpenAPI31OrLater()

	if component.isEmpty() {
		return errMUSTHeader
	}

	if ref := component.Ref; ref != "" {
		if component.Value != nil {
			return nil
		}
		if !loader.shouldVisitRef("Header", ref, func(value any) {
			component.Value = value.(*Header)
			applyHeaderRefMetadata(component.Value, component, isOpenAPI31OrLater)
			refPath, _ := loader.resolveRefPath(ref, documentPath)
			component.setRefPath(refPath)
		}) {
			return nil
		}
		loader.visitRef("Header", ref)
		if isSingleRefElement(ref) {
			var header Header
			if documentPath, err = loader.loadSingleElementFromURI(ref, documentPath, &header); err != nil {
				return err
			}
			component.Value = &header
			component.setRefPath(documentPath)
		} else {
			var resolved HeaderRef
			doc, componentPath, err := loader.resolveComponent(doc, ref, documentPath, &resolved)
			if err != nil {
				return err
			}
			if err := loader.resolveHeaderRef(doc, &resolved, componentPath); err != nil {
				if err == errMUSTHeader {
					return nil
				}
				return err
			}
			component.Value = resolved.Value
			component.setRefPath(resolved.RefPath())
		}
		defer loader.unvisitRef("Header", ref, component.Value)
		applyHeaderRefMetadata(component.Value, component, isOpenAPI31OrLater)
	}
	value := component.Value
	if value == nil {
		return nil
	}

	if schema := value.Schema; schema != nil {
		if err := loader.resolveSchemaRef(doc, schema, documentPath, []string{}); err != nil {
			return err
		}
	}
	for _, k := range componentNames(value.Examples) {
		if err := loader.resolveExampleRef(doc, value.Examples[k], documentPath); err != nil {
			return err
		}
	}
	return nil
}

func applyParameterRefMetadata(value *Parameter, component *ParameterRef, isOpenAPI31OrLater bool) {
	if !isOpenAPI31OrLater || value == nil || component.Description == nil {
		return
	}

	value.Description = *component.Description
}

func (loader *Loader) resolveParameterRef(doc *T, component *ParameterRef, documentPath *url.URL) (err error) {
	isOpenAPI31OrLater := doc.IsOpenAPI31OrLater()

	if component.isEmpty() {
		return errMUSTParameter
	}

	if ref := component.Ref; ref != "" {
		if component.Value != nil {
			return nil
		}
		if !loader.shouldVisitRef("Parameter", ref, func(value any) {
			component.Value = value.(*Parameter)
			applyParameterRefMetadata(component.Value, component, isOpenAPI31OrLater)
			refPath, _ := loader.resolveRefPath(ref, documentPath)
			component.setRefPath(refPath)
		}) {
			return nil
		}
		loader.visitRef("Parameter", ref)
		if isSingleRefElement(ref) {
			var param Parameter
			if documentPath, err = loader.loadSingleElementFromURI(ref, documentPath, &param); err != nil {
				return err
			}
			component.Value = &param
			component.setRefPath(documentPath)
		} else {
			var resolved ParameterRef
			doc, componentPath, err := loader.resolveComponent(doc, ref, documentPath, &resolved)
			if err != nil {
				return err
			}
			if err := loader.resolveParameterRef(doc, &resolved, componentPath); err != nil {
				if err == errMUSTParameter {
					return nil
				}
				return err
			}
			component.Value = resolved.Value
			component.setRefPath(resolved.RefPath())
		}
		defer loader.unvisitRef("Parameter", ref, component.Value)
		applyParameterRefMetadata(component.Value, component, isOpenAPI31OrLater)
	}
	value := component.Value
	if value == nil {
		return nil
	}

	if value.Content != nil && value.Schema != nil {
		return errors.New("cannot contain both schema and content in a parameter")
	}
	for _, name := range componentNames(value.Content) {
		if err := loader.resolveMediaTypeRefs(doc, value.Content[name], documentPath); err != nil {
			return err
		}
	}
	if schema := value.Schema; schema != nil {
		if err := loader.resolveSchemaRef(doc, schema, documentPath, []string{}); err != nil {
			return err
		}
	}
	for _, k := range componentNames(value.Examples) {
		if err := loader.resolveExampleRef(doc, value.Examples[k], documentPath); err != nil {
			return err
		}
	}
	return nil
}

func applyRequestBodyRefMetadata(value *RequestBody, component *RequestBodyRef, isOpenAPI31OrLater bool) {
	if !isOpenAPI31OrLater || value == nil || component.Description == nil {
		return
	}

	value.Description = *component.Description
}

func (loader *Loader) resolveRequestBodyRef(doc *T, component *RequestBodyRef, documentPath *url.URL) (err error) {
	isOpenAPI31OrLater := doc.IsOpenAPI31OrLater()

	if component.isEmpty() {
		return errMUSTRequestBody
	}

	if ref := component.Ref; ref != "" {
		if component.Value != nil {
			return nil
		}
		if !loader.shouldVisitRef("RequestBody", ref, func(value any) {
			component.Value = value.(*RequestBody)
			applyRequestBodyRefMetadata(component.Value, component, isOpenAPI31OrLater)
			refPath, _ := loader.resolveRefPath(ref, documentPath)
			component.setRefPath(refPath)
		}) {
			return nil
		}
		loader.visitRef("RequestBody", ref)
		if isSingleRefElement(ref) {
			var requestBody RequestBody
			if documentPath, err = loader.loadSingleElementFromURI(ref, documentPath, &requestBody); err != nil {
				return err
			}
			component.Value = &requestBody
			component.setRefPath(documentPath)
		} else {
			var resolved RequestBodyRef
			doc, componentPath, err := loader.resolveComponent(doc, ref, documentPath, &resolved)
			if err != nil {
				return err
			}
			if err = loader.resolveRequestBodyRef(doc, &resolved, componentPath); err != nil {
				if err == errMUSTRequestBody {
					return nil
				}
				return err
			}
			component.Value = resolved.Value
			component.setRefPath(resolved.RefPath())
		}
		defer loader.unvisitRef("RequestBody", ref, component.Value)
		applyRequestBodyRefMetadata(component.Value, component, isOpenAPI31OrLater)
	}
	value := component.Value
	if value == nil {
		return nil
	}

	for _, name := range componentNames(value.Content) {
		if err := loader.resolveMediaTypeRefs(doc, value.Content[name], documentPath); err != nil {
			return err
		}
	}
	return nil
}

func applyResponseRefMetadata(value *Response, component *ResponseRef, isOpenAPI31OrLater bool) {
	if !isOpenAPI31OrLater || value == nil || component.Description == nil {
		return
	}

	value.Description = component.Description
}

func (loader *Loader) resolveResponseRef(doc *T, component *ResponseRef, documentPath *url.URL) (err error) {
	isOpenAPI31OrLater := doc.IsOpenAPI31OrLater()

	if component.isEmpty() {
		return errMUSTResponse
	}

	if ref := component.Ref; ref != "" {
		if component.Value != nil {
			return nil
		}
		if !loader.shouldVisitRef("Response", ref, func(value any) {
			component.Value = value.(*Response)
			applyResponseRefMetadata(component.Value, component, isOpenAPI31OrLater)
			refPath, _ := loader.resolveRefPath(ref, documentPath)
			component.setRefPath(refPath)
		}) {
			return nil
		}
		loader.visitRef("Response", ref)
		if isSingleRefElement(ref) {
			var resp Response
			if documentPath, err = loader.loadSingleElementFromURI(ref, documentPath, &resp); err != nil {
				return err
			}
			component.Value = &resp
			component.setRefPath(documentPath)
		} else {
			var resolved ResponseRef
			doc, componentPath, err := loader.resolveComponent(doc, ref, documentPath, &resolved)
			if err != nil {
				return err
			}
			if err := loader.resolveResponseRef(doc, &resolved, componentPath); err != nil {
				if err == errMUSTResponse {
					return nil
				}
				return err
			}
			component.Value = resolved.Value
			component.setRefPath(resolved.RefPath())
		}
		defer loader.unvisitRef("Response", ref, component.Value)
		applyResponseRefMetadata(component.Value, component, isOpenAPI31OrLater)
	}
	value := component.Value
	if value == nil {
		return nil
	}

	for _, name := range componentNames(value.Headers) {
		header := value.Headers[name]
		if err := loader.resolveHeaderRef(doc, header, documentPath); err != nil {
			return err
		}
	}
	for _, name := range componentNames(value.Content) {
		if err := loader.resolveMediaTypeRefs(doc, value.Content[name], documentPath); err != nil {
			return err
		}
	}
	for _, name := range componentNames(value.Links) {
		link := value.Links[name]
		if err := loader.resolveLinkRef(doc, link, documentPath); err != nil {
			return err
		}
	}
	return nil
}

func (loader *Loader) resolveMediaTypeRefs(doc *T, mediaType *MediaType, documentPath *url.URL) (err error) {
	if mediaType == nil {
		return
	}
	if schema := mediaType.Schema; schema != nil {
		if err = loader.resolveSchemaRef(doc, schema, documentPath, []string{}); err != nil {
			return
		}
	}
	if itemSchema := mediaType.ItemSchema; itemSchema != nil {
		if err = loader.resolveSchemaRef(doc, itemSchema, documentPath, []string{}); err != nil {
			return
		}
	}
	for _, name := range componentNames(mediaType.Examples) {
		example := mediaType.Examples[name]
		if err = loader.resolveExampleRef(doc, example, documentPath); err != nil {
			return
		}
		mediaType.Examples[name] = example
	}
	return
}

func (loader *Loader) resolveSchemaRef(doc *T, component *SchemaRef, documentPath *url.URL, visited []string) (err error) {
	if component.isEmpty() {
		return errMUSTSchema
	}

	if ref := component.Ref; ref != "" {
		if component.Value != nil {
			return nil
		}
		if loader.isOpenAPI31OrLater(doc) && component.siblingErr != nil {
			return fmt.Errorf("the fields next to $ref %q are not a schema: %w", ref, component.siblingErr)
		}
		if loader.isOpenAPI31OrLater(doc) && component.sibling != nil {
			// Resolve the $refs within the siblings themselves, such as those of
			// the properties they add, before applyRefSiblings shares them with
			// Value: it may run from the callback below, which resolves nothing.
			if err := loader.resolveSchemaRef(doc, &SchemaRef{Value: component.sibling}, documentPath, visited); err != nil {
				return err
			}
		}
		if !loader.shouldVisitRef("Schema", ref, func(value any) {
			component.Value = value.(*Schema)
			refPath, _ := loader.resolveRefPath(ref, documentPath)
			component.setRefPath(refPath)
			// A $ref reached again while its target is still being resolved is
			// filled in here when the cycle unwinds, which can overwrite a value
			// that already had its siblings applied, so apply them here as well.
			component.applyRefSiblings(loader.isOpenAPI31OrLater(doc))
		}) {
			return nil
		}
		loader.visitRef("Schema", ref)
		if isSingleRefElement(ref) {
			var schema Schema
			if documentPath, err = loader.loadSingleElementFromURI(ref, documentPath, &schema); err != nil {
				return err
			}
			component.Value = &schema
			component.setRefPath(documentPath)
		} else {
			var resolved SchemaRef
			doc, componentPath, err := loader.resolveComponent(doc, ref, documentPath, &resolved)
			if err != nil {
				return err
			}
			if err := loader.resolveSchemaRef(doc, &resolved, componentPath, visited); err != nil {
				if err == errMUSTSchema {
					return nil
				}
				return err
			}
			component.Value = resolved.Value
			component.setRefPath(resolved.RefPath())
		}
		defer loader.unvisitRef("Schema", ref, component.Value)

		// OAS 3.1 / JSON Schema 2020-12: apply sibling keywords from the original schema
		// object on top of the resolved $ref value. In 3.1, siblings are not ignored —
		// they augment the referenced schema (e.g. deprecated:true alongside $ref).
		// Only apply for OAS 3.1+ — in 3.0 $ref replaces its entire object and siblings
		// are (validly) ignored.
		component.applyRefSiblings(loader.isOpenAPI31OrLater(doc))
	}
	value := component.Value
	if value == nil {
		return nil
	}

	// ResolveRefs referred schemas
	if v := value.Items; v != nil {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	for _, name := range componentNames(value.Properties) {
		v := value.Properties[name]
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	if v := value.AdditionalProperties.Schema; v != nil {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	if v := value.Not; v != nil {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	for _, v := range value.AllOf {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	for _, v := range value.AnyOf {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	for _, v := range value.OneOf {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	// Discriminator mapping refs are a special case since they are not full
	// ref objects but are plain strings that reference schema objects.
	// Plain schema names like "Dog" are not references and are left alone.
	if value.Discriminator != nil {
		inExternalDoc := documentPath != nil && documentPath.Path != "" && documentPath.Path != loader.rootLocation
		for _, k := range componentNames(value.Discriminator.Mapping) {
			v := value.Discriminator.Mapping[k]
			if !strings.Contains(v.Ref, "/") {
				continue
			}
			// A document-local mapping needs resolving only when it lives in
			// another document, because InternalizeRefs then has to rewrite it
			// against that document. One in the root document is already
			// written against the document it will end up in.
			if strings.HasPrefix(v.Ref, "#") && !inExternalDoc {
				continue
			}
			if err := loader.resolveSchemaRef(doc, (*SchemaRef)(&v), documentPath, visited); err != nil {
				return err
			}
			value.Discriminator.Mapping[k] = v
		}
	}

	// OpenAPI 3.1 / JSON Schema 2020-12 fields
	for _, v := range value.PrefixItems {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	if v := value.Contains; v != nil {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	for _, name := range componentNames(value.PatternProperties) {
		v := value.PatternProperties[name]
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	for _, name := range componentNames(value.DependentSchemas) {
		v := value.DependentSchemas[name]
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	for _, name := range componentNames(value.Defs) {
		v := value.Defs[name]
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	if v := value.PropertyNames; v != nil {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	if v := value.UnevaluatedItems.Schema; v != nil {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	if v := value.UnevaluatedProperties.Schema; v != nil {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	if v := value.If; v != nil {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	if v := value.Then; v != nil {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	if v := value.Else; v != nil {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}
	if v := value.ContentSchema; v != nil {
		if err := loader.resolveSchemaRef(doc, v, documentPath, visited); err != nil {
			return err
		}
	}

	return nil
}

func applySecuritySchemeRefMetadata(value *SecurityScheme, component *SecuritySchemeRef, isOpenAPI31OrLater bool) {
	if !isOpenAPI31OrLater || value == nil || component.Description == nil {
		return
	}

	value.Description = *component.Description
}

func (loader *Loader) resolveSecuritySchemeRef(doc *T, component *SecuritySchemeRef, documentPath *url.URL) (err error) {
	isOpenAPI31OrLater := doc.IsOpenAPI31OrLater()

	if component.isEmpty() {
		return errMUSTSecurityScheme
	}

	if ref := component.Ref; ref != "" {
		if component.Value != nil {
			return nil
		}
		if !loader.shouldVisitRef("SecurityScheme", ref, func(value any) {
			component.Value = value.(*SecurityScheme)
			applySecuritySchemeRefMetadata(component.Value, component, isOpenAPI31OrLater)
			refPath, _ := loader.resolveRefPath(ref, documentPath)
			component.setRefPath(refPath)
		}) {
			return nil
		}
		loader.visitRef("SecurityScheme", ref)
		if isSingleRefElement(ref) {
			var scheme SecurityScheme
			if _, err = loader.loadSingleElementFromURI(ref, documentPath, &scheme); err != nil {
				return err
			}
			component.Value = &scheme
			component.setRefPath(documentPath)
		} else {
			var resolved SecuritySchemeRef
			doc, componentPath, err := loader.resolveComponent(doc, ref, documentPath, &resolved)
			if err != nil {
				return err
			}
			if err := loader.resolveSecuritySchemeRef(doc, &resolved, componentPath); err != nil {
				if err == errMUSTSecurityScheme {
					return nil
				}
				return err
			}
			component.Value = resolved.Value
			component.setRefPath(resolved.RefPath())
		}
		defer loader.unvisitRef("SecurityScheme", ref, component.Value)
		applySecuritySchemeRefMetadata(component.Value, component, isOpenAPI31OrLater)
	}
	return nil
}

func applyExampleRefMetadata(value *Example, component *ExampleRef, isOpenAPI31OrLater bool) {
	if !isOpenAPI31OrLater || value == nil || (component.Summary == nil && component.Description == nil) {
		return
	}

	if component.Summary != nil {
		value.Summary = *component.Summary
	}
	if component.Description != nil {
		value.Description = *component.Description
	}
}

func (loader *Loader) resolveExampleRef(doc *T, component *ExampleRef, documentPath *url.URL) (err error) {
	isOpenAPI31OrLater := doc.IsOpenAPI31OrLater()

	if component.isEmpty() {
		return errMUSTExample
	}

	if ref := component.Ref; ref != "" {
		if component.Value != nil {
			return nil
		}
		if !loader.shouldVisitRef("Example", ref, func(value any) {
			component.Value = value.(*Example)
			applyExampleRefMetadata(component.Value, component, isOpenAPI31OrLater)
			refPath, _ := loader.resolveRefPath(ref, documentPath)
			component.setRefPath(refPath)
		}) {
			return nil
		}
		loader.visitRef("Example", ref)
		if isSingleRefElement(ref) {
			var example Example
			if _, err = loader.loadSingleElementFromURI(ref, documentPath, &example); err != nil {
				return err
			}
			component.Value = &example
			component.setRefPath(documentPath)
		} else {
			var resolved ExampleRef
			doc, componentPath, err := loader.resolveComponent(doc, ref, documentPath, &resolved)
			if err != nil {
				return err
			}
			if err := loader.resolveExampleRef(doc, &resolved, componentPath); err != nil {
				if err == errMUSTExample {
					return nil
				}
				return err
			}
			component.Value = resolved.Value
			component.setRefPath(resolved.RefPath())
		}
		defer loader.unvisitRef("Example", ref, component.Value)
		applyExampleRefMetadata(component.Value, component, isOpenAPI31OrLater)
	}
	return nil
}

func (loader *Loader) resolveCallbackRef(doc *T, component *CallbackRef, documentPath *url.URL) (err error) {
	if component.isEmpty() {
		return errMUSTCallback
	}

	if ref := component.Ref; ref != "" {
		if component.Value != nil {
			return nil
		}
		if !loader.shouldVisitRef("Callback", ref, func(value any) {
			component.Value = value.(*Callback)
			refPath, _ := loader.resolveRefPath(ref, documentPath)
			component.setRefPath(refPath)
		}) {
			return nil
		}
		loader.visitRef("Callback", ref)
		if isSingleRefElement(ref) {
			var resolved Callback
			if documentPath, err = loader.loadSingleElementFromURI(ref, documentPath, &resolved); err != nil {
				return err
			}
			component.Value = &resolved
			component.setRefPath(documentPath)
		} else {
			var resolved CallbackRef
			doc, componentPath, err := loader.resolveComponent(doc, ref, documentPath, &resolved)
			if err != nil {
				return err
			}
			if err = loader.resolveCallbackRef(doc, &resolved, componentPath); err != nil {
				if err == errMUSTCallback {
					return nil
				}
				return err
			}
			component.Value = resolved.Value
			component.setRefPath(resolved.RefPath())
		}
		defer loader.unvisitRef("Callback", ref, component.Value)
	}
	value := component.Value
	if value == nil {
		return nil
	}

	pathItems := value.Map()
	for _, name := range componentNames(pathItems) {
		pathItem := pathItems[name]
		if err = loader.resolvePathItemRef(doc, pathItem, documentPath); err != nil {
			return err
		}
	}
	return nil
}

func applyLinkRefMetadata(value *Link, component *LinkRef, isOpenAPI31OrLater bool) {
	if !isOpenAPI31OrLater || value == nil || component.Description == nil {
		return
	}

	value.Description = *component.Description
}

func (loader *Loader) resolveLinkRef(doc *T, component *LinkRef, documentPath *url.URL) (err error) {
	isOpenAPI31OrLater := doc.IsOpenAPI31OrLater()

	if component.isEmpty() {
		return errMUSTLink
	}

	if ref := component.Ref; ref != "" {
		if component.Value != nil {
			return nil
		}
		if !loader.shouldVisitRef("Link", ref, func(value any) {
			component.Value = value.(*Link)
			applyLinkRefMetadata(component.Value, component, isOpenAPI31OrLater)
			refPath, _ := loader.resolveRefPath(ref, documentPath)
			component.setRefPath(refPath)
		}) {
			return nil
		}
		loader.visitRef("Link", ref)
		if isSingleRefElement(ref) {
			var link Link
			if _, err = loader.loadSingleElementFromURI(ref, documentPath, &link); err != nil {
				return err
			}
			component.Value = &link
			component.setRefPath(documentPath)
		} else {
			var resolved LinkRef
			doc, componentPath, err := loader.resolveComponent(doc, ref, documentPath, &resolved)
			if err != nil {
				return err
			}
			if err := loader.resolveLinkRef(doc, &resolved, componentPath); err != nil {
				if err == errMUSTLink {
					return nil
				}
				return err
			}
			component.Value = resolved.Value
			component.setRefPath(resolved.RefPath())
		}
		defer loader.unvisitRef("Link", ref, component.Value)
		applyLinkRefMetadata(component.Value, component, isOpenAPI31OrLater)
	}
	return nil
}

func (loader *Loader) resolvePathItemRef(doc *T, pathItem *PathItem, documentPath *url.URL) (err error) {
	if pathItem == nil {
		err = errMUSTPathItem
		return
	}

	if ref := pathItem.Ref; ref != "" {
		if pathItem.refResolved {
			return
		}
		// The fields written next to $ref used to stop it from being resolved.
		// They are merged with the item it points to instead; see mergeRefSiblings.
		var siblings *PathItem
		if !pathItem.isEmpty() || len(pathItem.Extensions) != 0 {
			local := *pathItem
			local.Ref = ""
			siblings = &local
		}
		resolvedTo := func(resolved PathItem) {
			*pathItem = resolved
			pathItem.Ref = ref
			pathItem.refResolved = true
			if siblings != nil {
				pathItem.mergeRefSiblings(siblings)
				pathItem.refSiblings = siblings
			}
		}
		if !loader.shouldVisitRef("PathItem", ref, func(value any) {
			resolvedTo(*value.(*PathItem))
		}) {
			return nil
		}
		loader.visitRef("PathItem", ref)
		if isSingleRefElement(ref) {
			var p PathItem
			if documentPath, err = loader.loadSingleElementFromURI(ref, documentPath, &p); err != nil {
				return
			}
			resolvedTo(p)
		} else {
			var resolved PathItem
			if doc, documentPath, err = loader.resolveComponent(doc, ref, documentPath, &resolved); err != nil {
				if err == errMUSTPathItem {
					return nil
				}
				return
			}
			resolvedTo(resolved)
		}
		defer loader.unvisitRef("PathItem", ref, pathItem)
	}

	for _, parameter := range pathItem.Parameters {
		if err = loader.resolveParameterRef(doc, parameter, documentPath); err != nil {
			return
		}
	}
	operations := pathItem.Operations()
	for _, name := range componentNames(operations) {
		operation := operations[name]
		for _, parameter := range operation.Parameters {
			if err = loader.resolveParameterRef(doc, parameter, documentPath); err != nil {
				return
			}
		}
		if requestBody := operation.RequestBody; requestBody != nil {
			if err = loader.resolveRequestBodyRef(doc, requestBody, documentPath); err != nil {
				return
			}
		}
		responses := operation.Responses.Map()
		for _, name := range componentNames(responses) {
			response := responses[name]
			if err = loader.resolveResponseRef(doc, response, documentPath); err != nil {
				return
			}
		}
		for _, name := range componentNames(operation.Callbacks) {
			callback := operation.Callbacks[name]
			if err = loader.resolveCallbackRef(doc, callback, documentPath); err != nil {
				return
			}
		}
	}
	return
}

// refSiblingAnnotations are the keywords that, written next to a $ref, replace
// the referenced schema's own. They describe the instance rather than constrain
// it, so the one closest to where it is used wins, as summary and description
// do on a Reference Object.
var refSiblingAnnotations = map[string]struct{}{
	"$comment":        {},
	"allowEmptyValue": {},
	"default":         {},
	"deprecated":      {},
	"description":     {},
	"discriminator":   {},
	"example":         {},
	"examples":        {},
	"externalDocs":    {},
	"nullable":        {},
	"readOnly":        {},
	"title":           {},
	"writeOnly":       {},
	"xml":             {},
}

// applyRefSiblings applies the sibling keywords of an OAS 3.1 $ref to its
// resolved value, and does nothing for OAS 3.0, where $ref replaces its object.
//
// In JSON Schema 2020-12 the keywords next to a $ref apply alongside it: an
// instance must satisfy both the referenced schema and its siblings. So the
// annotations above override the referenced schema's, while every other
// keyword is added as one more allOf entry rather than replacing the
// referenced schema's own: a sibling maxLength: 10 next to a $ref to a schema
// with maxLength: 3 still rejects "abcd". Value thus keeps the shape of the
// referenced schema, with its properties, type and so on.
//
// It works on a copy so a schema shared by other references is not mutated.
func (component *SchemaRef) applyRefSiblings(isOpenAPI31OrLater bool) {
	if !isOpenAPI31OrLater || component.sibling == nil || component.Value == nil {
		return
	}
	component.target = component.Value
	var annotations, assertions []string
	for _, field := range component.extra {
		if _, ok := refSiblingAnnotations[field]; ok {
			annotations = append(annotations, field)
		} else {
			assertions = append(assertions, field)
		}
	}
	schemaCopy := *component.Value
	applySiblingSchemaFields(&schemaCopy, component.sibling, annotations)
	if len(assertions) != 0 {
		// The siblings sit in the same object as the $ref, so they share its origin.
		conjunct := Schema{Origin: component.Origin}
		applySiblingSchemaFields(&conjunct, component.sibling, assertions)
		if !conjunct.IsEmpty() {
			allOf := make(SchemaRefs, 0, len(schemaCopy.AllOf)+1)
			allOf = append(allOf, schemaCopy.AllOf...)
			schemaCopy.AllOf = append(allOf, &SchemaRef{Value: &conjunct})
		}
	}
	component.Value = &schemaCopy
}

// isOpenAPI31OrLater tells whether doc follows OAS 3.1 or later. A document
// that does not say, such as a file of bare schemas a $ref points into, follows
// the version of the document that refers to it.
func (loader *Loader) isOpenAPI31OrLater(doc *T) bool {
	if doc.OpenAPI == "" && loader.rootDoc != nil {
		doc = loader.rootDoc
	}
	return doc.IsOpenAPI31OrLater()
}

func unescapeRefString(ref string) string {
	return strings.ReplaceAll(strings.ReplaceAll(ref, "~1", "/"), "~0", "~")
}

// applySiblingSchemaFields overlays the fields listed in presentFields from sibling onto dst.
// It is used to honour keyword siblings of $ref in OpenAPI 3.1 / JSON Schema 2020-12, where
// sibling keywords are applied in addition to (not instead of) the referenced schema.
// Only fields that were explicitly present in the original YAML/JSON are applied; the presentFields
// slice (derived from SchemaRef.extra) carries this information.
func applySiblingSchemaFields(dst, sibling *Schema, presentFields []string) {
	for _, field := range presentFields {
		switch field {
		case "oneOf":
			dst.OneOf = sibling.OneOf
		case "anyOf":
			dst.AnyOf = sibling.AnyOf
		case "allOf":
			dst.AllOf = sibling.AllOf
		case "not":
			dst.Not = sibling.Not
		case "type":
			dst.Type = sibling.Type
		case "title":
			dst.Title = sibling.Title
		case "format":
			dst.Format = sibling.Format
		case "description":
			dst.Description = sibling.Description
		case "enum":
			dst.Enum = sibling.Enum
		case "default":
			dst.Default = sibling.Default
		case "example":
			dst.Example = sibling.Example
		case "externalDocs":
			dst.ExternalDocs = sibling.ExternalDocs
		case "uniqueItems":
			dst.UniqueItems = sibling.UniqueItems
		case "exclusiveMinimum":
			dst.ExclusiveMin = sibling.ExclusiveMin
		case "exclusiveMaximum":
			dst.ExclusiveMax = sibling.ExclusiveMax
		case "nullable":
			dst.Nullable = sibling.Nullable
		case "readOnly":
			dst.ReadOnly = sibling.ReadOnly
		case "writeOnly":
			dst.WriteOnly = sibling.WriteOnly
		case "allowEmptyValue":
			dst.AllowEmptyValue = sibling.AllowEmptyValue
		case "deprecated":
			dst.Deprecated = sibling.Deprecated
		case "xml":
			dst.XML = sibling.XML
		case "minimum":
			dst.Min = sibling.Min
		case "maximum":
			dst.Max = sibling.Max
		case "multipleOf":
			dst.MultipleOf = sibling.MultipleOf
		case "minLength":
			dst.MinLength = sibling.MinLength
		case "maxLength":
			dst.MaxLength = sibling.MaxLength
		case "pattern":
			dst.Pattern = sibling.Pattern
		case "minItems":
			dst.MinItems = sibling.MinItems
		case "maxItems":
			dst.MaxItems = sibling.MaxItems
		case "items":
			dst.Items = sibling.Items
		case "required":
			dst.Required = sibling.Required
		case "properties":
			dst.Properties = sibling.Properties
		case "minProperties":
			dst.MinProps = sibling.MinProps
		case "maxProperties":
			dst.MaxProps = sibling.MaxProps
		case "additionalProperties":
			dst.AdditionalProperties = sibling.AdditionalProperties
		case "discriminator":
			dst.Discriminator = sibling.Discriminator
		case "const":
			dst.Const = sibling.Const
		case "examples":
			dst.Examples = sibling.Examples
		case "prefixItems":
			dst.PrefixItems = sibling.PrefixItems
		case "contains":
			dst.Contains = sibling.Contains
		case "minContains":
			dst.MinContains = sibling.MinContains
		case "maxContains":
			dst.MaxContains = sibling.MaxContains
		case "patternProperties":
			dst.PatternProperties = sibling.PatternProperties
		case "dependentSchemas":
			dst.DependentSchemas = sibling.DependentSchemas
		case "propertyNames":
			dst.PropertyNames = sibling.PropertyNames
		case "unevaluatedItems":
			dst.UnevaluatedItems = sibling.UnevaluatedItems
		case "unevaluatedProperties":
			dst.UnevaluatedProperties = sibling.UnevaluatedProperties
		case "if":
			dst.If = sibling.If
		case "then":
			dst.Then = sibling.Then
		case "else":
			dst.Else = sibling.Else
		case "dependentRequired":
			dst.DependentRequired = sibling.DependentRequired
		case "$defs":
			dst.Defs = sibling.Defs
		case "$schema":
			dst.SchemaDialect = sibling.SchemaDialect
		case "$comment":
			dst.Comment = sibling.Comment
		case "$id":
			dst.SchemaID = sibling.SchemaID
		case "$anchor":
			dst.Anchor = sibling.Anchor
		case "$dynamicRef":
			dst.DynamicRef = sibling.DynamicRef
		case "$dynamicAnchor":
			dst.DynamicAnchor = sibling.DynamicAnchor
		case "contentMediaType":
			dst.ContentMediaType = sibling.ContentMediaType
		case "contentEncoding":
			dst.ContentEncoding = sibling.ContentEncoding
		case "contentSchema":
			dst.ContentSchema = sibling.ContentSchema
		}
	}
}
