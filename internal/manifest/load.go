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
