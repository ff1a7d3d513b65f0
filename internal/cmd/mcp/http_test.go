package mcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
)

// serveInProcess runs mcp serve --listen 127.0.0.1:0 with the settings the
// test put in the environment and returns its endpoint.
func serveInProcess(t *testing.T) string {
	t.Helper()
	pool := pgtest.New(t)
	f, _ := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	ready := make(chan string, 1)
	opts := &ServeOptions{IO: f.IOStreams, F: f, LookupEnv: func(string) (string, bool) { return "", false },
		Ready: func(a string) { ready <- a }, Listen: "127.0.0.1:0", MaxResponse: "1MiB", PollInterval: time.Second}
	opts.UserID = cmdutil.UserID{ID: uuid.MustParse(userID), Given: true}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- serveRun(ctx, opts) }()
	t.Cleanup(func() { cancel(); <-errc })
	select {
	case addr := <-ready:
		return "http://" + addr + "/mcp"
	case err := <-errc:
		t.Fatalf("serve: %v", err)
	}
	return ""
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}%s}}`

func post(t *testing.T, endpoint, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// The HTTP transport checks Origin (the MCP specification requires it):
// localhost pages and the configured origins pass, any other gets 403.
func TestServeHTTPOrigin(t *testing.T) {
	t.Setenv("HELIX_MCP_ALLOWED_ORIGINS", "https://app.example.com")
	endpoint := serveInProcess(t)
	for origin, want := range map[string]int{
		"":                              200,
		"http://localhost:6274":         200,
		"http://127.0.0.1:5173":         200,
		"https://APP.example.com":       200,
		"https://evil.example":          403,
		"null":                          403,
		"http://localhost.evil.example": 403,
	} {
		var h []string
		if origin != "" {
			h = []string{"Origin", origin}
		}
		resp, body := post(t, endpoint, fmt.Sprintf(initBody, ""), h...)
		if resp.StatusCode != want {
			t.Errorf("Origin %q: %s %s, want %d", origin, resp.Status, body, want)
		}
		if want == 403 && !strings.Contains(body, "mcp.allowed-origins") {
			t.Errorf("Origin %q: %s", origin, body)
		}
	}
}

// A request body over the message cap is refused saying so; one under it
// is read, as on stdio (the SDK alone stops at 4 MiB).
func TestServeHTTPBodyCap(t *testing.T) {
	endpoint := serveInProcess(t)
	resp, body := post(t, endpoint, fmt.Sprintf(initBody, `,"pad":"`+strings.Repeat("a", 6<<20)+`"`))
	if resp.StatusCode != 200 {
		t.Errorf("6 MiB initialize: %s %.200s", resp.Status, body)
	}
	resp, body = post(t, endpoint, fmt.Sprintf(initBody, `,"pad":"`+strings.Repeat("a", 17<<20)+`"`))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "16 MiB cap of one MCP message") {
		t.Errorf("17 MiB initialize: %s %.200s", resp.Status, body)
	}
}

// A body that trickles in is dropped at mcp.upload-timeout.
func TestServeHTTPSlowUpload(t *testing.T) {
	t.Setenv("HELIX_MCP_UPLOAD_TIMEOUT", "1s")
	endpoint := serveInProcess(t)
	addr := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", addr)
	_ = c.SetReadDeadline(time.Now().Add(45 * time.Second))
	status, err := bufio.NewReader(c).ReadString('\n')
	if err != nil && !strings.Contains(err.Error(), "reset") && err != io.EOF {
		t.Fatalf("the slow upload was still waited for: %v", err)
	}
	if status != "" && !strings.Contains(status, " 400 ") {
		t.Errorf("answer %q", status)
	}
}

// An idle session expires at mcp.session-timeout.
func TestServeHTTPSessionExpires(t *testing.T) {
	t.Setenv("HELIX_MCP_SESSION_TIMEOUT", "1s")
	endpoint := serveInProcess(t)
	resp, body := post(t, endpoint, fmt.Sprintf(initBody, ""))
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("initialize: %s %s", resp.Status, body)
	}
	resp, _ = post(t, endpoint, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-06-18")
	if resp.StatusCode/100 != 2 {
		t.Fatalf("initialized: %s", resp.Status)
	}
	time.Sleep(3 * time.Second)
	resp, body = post(t, endpoint, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-06-18")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a session idle for 3s past a 1s timeout: %s %.200s", resp.Status, body)
	}
}
