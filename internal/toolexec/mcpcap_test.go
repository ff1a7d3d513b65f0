package toolexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/pgtest"
)

// HugeMCPServer is a Streamable HTTP MCP server (the Go SDK's) whose answer
// to one method is replaced by a body of about size bytes, streamed as the
// wire format has it (a JSON body, or one server-sent event). It counts the
// bytes it got to write before the client hung up.
func hugeMCPServer(t *testing.T, method string, size int, sse bool) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "huge", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "a big answer"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "small"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	var written atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		if msg.Method != method {
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(w, r)
			return
		}
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"content":[{"type":"text","text":"`, msg.ID)
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			head = "event: message\ndata: " + head
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(http.StatusOK)
		chunk := []byte(strings.Repeat("a", 64<<10))
		n, _ := io.WriteString(w, head)
		written.Add(int64(n))
		for written.Load() < int64(size) {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
		io.WriteString(w, `"}]}}`)
		if sse {
			io.WriteString(w, "\n\n")
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &written
}

// An approved MCP tool over HTTP whose server answers 64 MiB: the answer is
// read up to the 16 MiB cap of one MCP message (as over stdio), not into
// memory whole, and the result says which cap was hit.
func TestMCPHTTPAnswerCapped(t *testing.T) {
	pool := pgtest.New(t)
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprintf("sse=%v", sse), func(t *testing.T) {
			srv, written := hugeMCPServer(t, "tools/call", 64<<20, sse)
			u, _ := url.Parse(srv.URL)
			name := fmt.Sprintf("huge.big%v", sse)
			m := &manifest.Manifest{Name: name, Version: "1.0.0", Parameters: map[string]any{"type": "object"},
				Entrypoint:  manifest.Entrypoint{MCP: &manifest.MCPCall{URL: srv.URL, Tool: "big"}},
				Permissions: manifest.Permissions{Network: manifest.Network{u.Host}, Timeout: "2m"}}
			approveAll(t, pool, []manifest.Candidate{{Manifest: m, Source: "test"}})
			r := &Runner{MCP: &MCPRunner{AllowPrivate: true, MaxResponse: 1 << 20}}
			res, err := run(t, pool, r, name, `{}`)
			if err == nil || res.Status != StatusTooLarge || !strings.Contains(res.Error, "over the 16 MiB cap of one MCP message") {
				t.Fatalf("result %+v, %v", res, err)
			}
			if n := written.Load(); n >= 48<<20 {
				t.Errorf("the server got to write %d bytes: the answer was read past the cap", n)
			}
		})
	}
}

// Importing from a server whose tools/list answer is 64 MiB stops at the cap.
func TestMCPImportAnswerCapped(t *testing.T) {
	srv, written := hugeMCPServer(t, "tools/list", 64<<20, false)
	cs, err := ConnectMCP(context.Background(), MCPServer{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, _, err = manifest.FromMCP(context.Background(), cs.ClientSession, manifest.MCPOptions{URL: srv.URL})
	err = cs.Explain(err)
	var big *MessageTooLargeError
	if !errors.As(err, &big) || !strings.Contains(err.Error(), "16 MiB cap") {
		t.Fatalf("FromMCP: %v", err)
	}
	if n := written.Load(); n >= 48<<20 {
		t.Errorf("the server got to write %d bytes", n)
	}
}

// A redirect to another host is not followed.
func TestMCPRedirectToAnotherHost(t *testing.T) {
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.RedirectHandler(other.URL+"/mcp", http.StatusTemporaryRedirect))
	defer srv.Close()
	_, err := ConnectMCP(context.Background(), MCPServer{URL: srv.URL + "/mcp"})
	if err == nil || !strings.Contains(err.Error(), "another host: not followed") {
		t.Errorf("connect: %v", err)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
}

// hugeStdioArg makes the test binary a stdio MCP server (the Go SDK's) whose
// tool big answers 20 MiB of text.
const hugeStdioArg = "__mcp-huge-stdio-server"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[len(os.Args)-1] == hugeStdioArg {
		s := mcp.NewServer(&mcp.Implementation{Name: "huge", Version: "1.0.0"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "big"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("a", 20<<20)}}}, nil, nil
		})
		_ = s.Run(context.Background(), &mcp.StdioTransport{})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Over stdio the SDK's own cap stops the message; the result says which
// cap it was, as over HTTP.
func TestMCPStdioAnswerCapped(t *testing.T) {
	pool := pgtest.New(t)
	m := &manifest.Manifest{Name: "huge.stdio", Version: "1.0.0", Parameters: map[string]any{"type": "object"},
		Entrypoint:  manifest.Entrypoint{MCP: &manifest.MCPCall{Command: []string{os.Args[0], hugeStdioArg}, Tool: "big"}},
		Permissions: manifest.Permissions{Timeout: "2m"}}
	approveAll(t, pool, []manifest.Candidate{{Manifest: m, Source: "test"}})
	res, err := run(t, pool, &Runner{MCP: &MCPRunner{MaxResponse: 100 << 20}}, "huge.stdio", `{}`)
	if err == nil || res.Status != StatusTooLarge || !strings.Contains(res.Error, "over the 16 MiB cap of one MCP message") {
		t.Fatalf("result %+v, %v", res, err)
	}
}
