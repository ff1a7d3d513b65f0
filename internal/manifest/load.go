package manifest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/netguard"
)

// LoadOptions steer Load.
type LoadOptions struct {
	OpenAPI  OpenAPIOptions
	Maxima   Maxima
	Client   *http.Client // for URLs: a netguard client
	MaxBytes int64        // largest document accepted
}

// Loaded is one input turned into candidate tools.
type Loaded struct {
	Source     string      `json:"source"`
	Kind       string      `json:"kind"`              // manifest or openapi
	OpenAPI    string      `json:"openapi,omitempty"` // document version
	Candidates []Candidate `json:"-"`
	Skipped    []string    `json:"skipped,omitempty"`
	Warnings   []Warning   `json:"warnings,omitempty"`
}

// heapPerByte is the soft heap limit per byte of document: twice the live
// heap of the largest documents' import (graph.json: 16 bytes per byte).
const heapPerByte = 32

// HeapLimit is the soft heap limit for importing a document of size bytes
// under a configured limit: the configured one, raised for a document whose
// import needs more, since a soft limit below the live heap makes the
// collector run without end rather than bound anything.
func HeapLimit(configured int64, size int) int64 {
	return max(configured, heapPerByte*int64(size))
}

// IsURL reports whether target is fetched rather than read from disk.
func IsURL(target string) bool {
	return strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://")
}

// Read fetches a URL or reads a file (or stdin for "-"), at most max bytes.
//
// Its error names target and carries its class: a URL that could not be
// fetched for now is unavailable (exit 4, retry later); a file, stdin, or a
// URL refused for good (netguard.Permanent: a private address, a 4xx, too
// large) is bad input.
func Read(ctx context.Context, target string, stdin io.Reader, client *http.Client, max int64) ([]byte, error) {
	b, err := read(ctx, target, stdin, client, max)
	if err == nil {
		return b, nil
	}
	err = fmt.Errorf("read %s: %w", target, err)
	if IsURL(target) && !netguard.Permanent(err) {
		return nil, exitcode.AsUnavailable(err)
	}
	return nil, exitcode.AsInput(err)
}

func read(ctx context.Context, target string, stdin io.Reader, client *http.Client, max int64) ([]byte, error) {
	if target == "-" {
		return netguard.ReadAll(stdin, max)
	}
	if !IsURL(target) {
		f, err := os.Open(target)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return netguard.ReadAll(f, max)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &netguard.StatusError{URL: target, Status: resp.StatusCode, Text: resp.Status}
	}
	return netguard.ReadAll(resp.Body, max)
}

// Parse turns one document into candidates: an OpenAPI document yields one
// tool per operation, anything else is read as a tool manifest. A document
// that cannot be (within ctx's deadline or o's budget) is bad input.
func Parse(ctx context.Context, source string, data []byte, o LoadOptions) (*Loaded, error) {
	l, err := parse(ctx, source, data, o)
	return l, exitcode.AsInput(err)
}

func parse(ctx context.Context, source string, data []byte, o LoadOptions) (*Loaded, error) {
	if err := o.OpenAPI.enter(ctx, source, phaseDecode); err != nil {
		return nil, err
	}
	d, err := interruptible(ctx, source, func() (*Document, error) { return Decode(source, data) })
	if err != nil {
		return nil, err
	}
	l := &Loaded{Source: source}
	if !IsOpenAPI(d.Tree) {
		l.Kind = "manifest"
		m, err := ParseManifest(d, o.Maxima)
		if err != nil {
			return nil, err
		}
		l.Candidates = []Candidate{{Manifest: m, Source: source}}
		return l, nil
	}
	l.Kind = "openapi"
	oo := o.OpenAPI
	if IsURL(source) && oo.BaseURL == "" {
		oo.BaseURL = source
	}
	res, err := FromOpenAPI(ctx, d, oo)
	if err != nil {
		return nil, err
	}
	l.OpenAPI, l.Skipped, l.Warnings = res.OpenAPI, res.Skipped, res.Warnings
	for _, m := range res.Tools {
		src := source + "#" + m.opPointer
		if _, err := m.Check(o.Maxima); err != nil {
			return nil, &Error{Source: source, Pointer: m.opPointer, Msg: fmt.Sprintf("tool %s: %v", m.Name, err)}
		}
		l.Candidates = append(l.Candidates, Candidate{Manifest: m, Source: src})
	}
	return l, nil
}
