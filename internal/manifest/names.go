package manifest

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// NoNamespace is the namespace option (of an OpenAPI or MCP import) that
// keeps bare tool names.
const NoNamespace = "none"

// NamespaceOf makes an API title a tool-name prefix: "Swagger Petstore" →
// "swagger_petstore". An empty title gives no namespace.
func NamespaceOf(title string) string {
	n := strings.ToLower(strings.Trim(nonName().ReplaceAllString(strings.TrimSpace(title), "_"), "_.-"))
	n = strings.ReplaceAll(n, ".", "_") // the dot separates namespace and operation
	if n == "" {
		return ""
	}
	if !(n[0] >= 'a' && n[0] <= 'z') {
		n = "api_" + n
	}
	if len(n) > 64 {
		n = strings.TrimRight(n[:64], "_-")
	}
	return n
}

// ValidNamespace checks a --namespace.
func ValidNamespace(ns string) error {
	if ns == "" || ns == NoNamespace {
		return nil
	}
	if len(ns) > 64 || !(ns[0] >= 'a' && ns[0] <= 'z' || ns[0] >= 'A' && ns[0] <= 'Z') || nonName().MatchString(ns) || strings.Contains(ns, ".") {
		return fmt.Errorf("namespace %q: use up to 64 letters, digits, '_' or '-', starting with a letter", ns)
	}
	return nil
}

var (
	nonName  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_.-]+`) })
	noBraces = strings.NewReplacer("{", "", "}", "")
)
