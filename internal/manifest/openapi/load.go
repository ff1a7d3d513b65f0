package openapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/manifest"
)

// LoadOptions steer Parse.
type LoadOptions struct {
	OpenAPI  Options
	Maxima   manifest.Maxima
	Client   *http.Client // for URLs: a netguard client
	MaxBytes int64        // largest document accepted
}

// Loaded is one input turned into candidate tools.
type Loaded struct {
	Source     string               `json:"source"`
	Kind       string               `json:"kind"`              // manifest or openapi
	OpenAPI    string               `json:"openapi,omitempty"` // document version
	Candidates []manifest.Candidate `json:"-"`
	Skipped    []string             `json:"skipped,omitempty"`
	Warnings   []manifest.Warning   `json:"warnings,omitempty"`
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
	d, err := interruptible(ctx, source, func() (*manifest.Document, error) { return manifest.Decode(source, data) })
	if err != nil {
		return nil, err
	}
	l := &Loaded{Source: source}
	if !IsOpenAPI(d.Tree) {
		l.Kind = "manifest"
		m, err := manifest.ParseManifest(d, o.Maxima)
		if err != nil {
			return nil, err
		}
		l.Candidates = []manifest.Candidate{{Manifest: m, Source: source}}
		return l, nil
	}
	l.Kind = "openapi"
	oo := o.OpenAPI
	if manifest.IsURL(source) && oo.BaseURL == "" {
		oo.BaseURL = source
	}
	res, err := Convert(ctx, d, oo)
	if err != nil {
		return nil, err
	}
	l.OpenAPI, l.Skipped, l.Warnings = res.OpenAPI, res.Skipped, res.Warnings
	for _, t := range res.Tools {
		m := t.Manifest
		src := source + "#" + t.Pointer
		if _, err := m.Check(o.Maxima); err != nil {
			return nil, &manifest.Error{Source: source, Pointer: t.Pointer, Msg: fmt.Sprintf("tool %s: %v", m.Name, err)}
		}
		l.Candidates = append(l.Candidates, manifest.Candidate{Manifest: m, Source: src})
	}
	return l, nil
}
