package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxDepth is the deepest nesting of arrays and objects a message may have.
const MaxDepth = 256

// Stdio is the stdio transport of helix mcp serve: newline-delimited
// JSON-RPC messages (the MCP stdio transport). A line that is not one
// message the SDK can take (not JSON, no "jsonrpc": "2.0", a batch, nested
// deeper than MaxDepth, longer than MaxMessage) is answered with the
// JSON-RPC error and skipped; the SDK's own transport would end the session
// on it.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	// Logger is told about each refused line.
	Logger interface {
		Warn(msg string, args ...any)
	}
}

// Connect starts reading In.
func (s *Stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	out := &lockedWriter{w: s.Out}
	go s.filter(pw, out)
	return (&mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: MaxMessage + 1}).Connect(ctx)
}

// lockedWriter serializes the SDK's messages and the filter's errors (the
// SDK writes each message in one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// filter passes good lines on to pw and answers bad ones, until In ends.
func (s *Stdio) filter(pw *io.PipeWriter, out io.Writer) {
	r := bufio.NewReaderSize(s.In, 64<<10)
	var line []byte
	for {
		var err error
		line, err = readLine(r, line[:0], MaxMessage)
		var long *lineTooLong
		switch {
		case errors.As(err, &long):
			s.refuse(out, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message over the %d MiB cap of one MCP message: skipped", MaxMessage>>20))
			continue
		case err != nil && len(line) == 0:
			pw.CloseWithError(io.EOF)
			return
		}
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if code, why := check(msg); code != 0 {
				s.refuse(out, msg, code, why)
			} else if _, werr := pw.Write(append(msg, '\n')); werr != nil {
				return // the session ended
			}
		}
		if err != nil {
			pw.CloseWithError(io.EOF)
			return
		}
	}
}

type lineTooLong struct{}

func (*lineTooLong) Error() string { return "line too long" }

// readLine reads up to a newline into buf; a line over max is read to its
// end and dropped (lineTooLong), without keeping more than max bytes.
func readLine(r *bufio.Reader, buf []byte, max int) ([]byte, error) {
	over := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !over {
			if len(buf)+len(chunk) > max+2 { // +2: the line's own \r\n
				over, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case over && (err == nil || len(chunk) > 0 || errors.Is(err, io.EOF)):
			if err != nil {
				return nil, errors.Join(&lineTooLong{}, err)
			}
			return nil, &lineTooLong{}
		}
		return buf, err
	}
}

// check says what is wrong with one line, as a JSON-RPC error code and
// message (0: nothing).
func check(msg []byte) (int64, string) {
	msg = bytes.TrimSpace(msg)
	if d := depth(msg); d > MaxDepth {
		return jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: nested %d deep, over the %d levels a message may have", d, MaxDepth)
	}
	if !json.Valid(msg) {
		return jsonrpc.CodeParseError, "parse error: the line is not one JSON value"
	}
	switch msg[0] {
	case '[':
		return jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message per line"
	case '{':
	default:
		return jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object"
	}
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		return jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return 0, ""
}

// depth is the deepest nesting of arrays and objects in a valid JSON value.
func depth(b []byte) int {
	d, max, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '[' || c == '{':
			d++
			max = maxInt(max, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return max
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// refuse answers a bad line with a JSON-RPC error, under the line's id when
// it has a usable one (else null, as JSON-RPC says).
func (s *Stdio) refuse(out io.Writer, msg []byte, code int64, why string) {
	var id any
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if len(msg) > 0 && msg[0] == '{' && json.Unmarshal(msg, &m) == nil && len(m.ID) > 0 && depth(m.ID) == 0 {
		var v any
		if json.Unmarshal(m.ID, &v) == nil {
			switch v.(type) {
			case string, float64:
				id = json.RawMessage(m.ID)
			}
		}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": why}})
	_, _ = out.Write(append(b, '\n'))
	if s.Logger != nil {
		s.Logger.Warn("refused a message on stdin", "code", code, "why", why)
	}
}
