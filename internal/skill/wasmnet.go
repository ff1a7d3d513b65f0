package skill

import (
	"context"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// The wasm network ABI: a host module "helix" with two functions.
//
//	http_request(req_ptr, req_len u32) -> i32
//	    Reads a request document (JSON, FetchRequest: method, url, headers,
//	    body or body_base64) from the guest's memory, makes the request
//	    within the skill's net: capabilities and limits, and keeps the
//	    response document (JSON, FetchResponse: status, status_text, url,
//	    headers, body, body_base64, or error and refused) for
//	    http_response. Returns the response document's length in bytes,
//	    or -1 if the request bytes are not inside the guest's memory.
//	http_response(buf_ptr, buf_len u32) -> i32
//	    Copies the pending response document (at most buf_len bytes) to
//	    buf_ptr and returns how many bytes it copied; -1 if the buffer is
//	    not inside the guest's memory.
//
// In Go (GOOS=wasip1):
//
//	//go:wasmimport helix http_request
//	func httpRequest(ptr unsafe.Pointer, n uint32) int32
//
// testdata/skills/fetch is a complete example.
const hostModule = "helix"

type wasmNetKey struct{}

// wasmNet is one run's network state, in the context the guest is called with.
type wasmNet struct {
	s       *netSession
	pending []byte
}

func instantiateHostNet(ctx context.Context, r wazero.Runtime) error {
	_, err := r.NewHostModuleBuilder(hostModule).
		NewFunctionBuilder().WithFunc(httpRequest).Export("http_request").
		NewFunctionBuilder().WithFunc(httpResponse).Export("http_response").
		Instantiate(ctx)
	return err
}

func httpRequest(ctx context.Context, m api.Module, ptr, n uint32) int32 {
	wn, _ := ctx.Value(wasmNetKey{}).(*wasmNet)
	if wn == nil {
		return -1
	}
	if int64(n) > wn.s.lim.maxRequestDoc() {
		wn.pending = wn.s.tooLarge(int64(n))
		return int32(len(wn.pending))
	}
	req, ok := m.Memory().Read(ptr, n)
	if !ok {
		return -1
	}
	// Read aliases the guest's memory: the request is decoded before the
	// guest runs again, so no copy is needed.
	wn.pending = wn.s.do(ctx, req)
	return int32(len(wn.pending))
}

func httpResponse(ctx context.Context, m api.Module, ptr, n uint32) int32 {
	wn, _ := ctx.Value(wasmNetKey{}).(*wasmNet)
	if wn == nil {
		return -1
	}
	k := min(int(n), len(wn.pending))
	if !m.Memory().Write(ptr, wn.pending[:k]) {
		return -1
	}
	return int32(k)
}
