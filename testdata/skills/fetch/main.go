// Command fetch is the example of helix's wasm network ABI (see
// internal/skill/wasmnet.go): it sends the request its input describes
// through the host module "helix" and writes the answer's status and one
// field of its JSON body. Input: {"url": "...", "field": "name", "method":
// "GET", "body": "...", "headers": {...}}.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"unsafe"
)

//go:wasmimport helix http_request
func httpRequest(ptr unsafe.Pointer, n uint32) int32

//go:wasmimport helix http_response
func httpResponse(ptr unsafe.Pointer, n uint32) int32

// Request is the request document (FetchRequest in helix).
type Request struct {
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
}

// Response is the response document (FetchResponse in helix).
type Response struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	Error   string            `json:"error"`
	Refused bool              `json:"refused"`
	Origin  string            `json:"origin"`
}

// fetch makes one request through the host.
func fetch(r Request) (Response, error) {
	req, err := json.Marshal(r)
	if err != nil {
		return Response{}, err
	}
	n := httpRequest(unsafe.Pointer(unsafe.SliceData(req)), uint32(len(req)))
	if n < 0 {
		return Response{}, fmt.Errorf("http_request: bad pointer")
	}
	buf := make([]byte, n)
	if n > 0 && httpResponse(unsafe.Pointer(unsafe.SliceData(buf)), uint32(n)) != n {
		return Response{}, fmt.Errorf("http_response: short copy")
	}
	var resp Response
	if err := json.Unmarshal(buf, &resp); err != nil {
		return Response{}, err
	}
	if resp.Error != "" {
		return resp, fmt.Errorf("fetch %s: %s", resp.Origin, resp.Error)
	}
	return resp, nil
}

func main() {
	var in struct {
		Request
		Field string `json:"field"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "decode input:", err)
		os.Exit(1)
	}
	resp, err := fetch(in.Request)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := map[string]any{"status": resp.Status}
	if in.Field != "" {
		var body map[string]any
		if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
			fmt.Fprintln(os.Stderr, "response body:", err)
			os.Exit(1)
		}
		out[in.Field] = body[in.Field]
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
}
