package manifest_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/pgtest"
)

// oldForm is the manifest an older helix recorded for the same operation:
// no format, no namespace, the response schema expanded otherwise (here: to
// any JSON array), other notes. Its digest is the old rule's, sha256 of that
// manifest's JSON.
func oldForm(t *testing.T, m *manifest.Manifest) *manifest.Manifest {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	old := &manifest.Manifest{}
	if err := json.Unmarshal(b, old); err != nil {
		t.Fatal(err)
	}
	old.Format, old.Namespace = 0, ""
	old.Returns = map[string]any{"type": "array"}
	old.Notes = append(old.Notes, "response schema expanded to any depth")
	return old
}

// A document that an older helix recorded is re-imported after an upgrade:
// a tool whose executable contract is unchanged is re-recorded in place and
// keeps its approval; one whose contract changed stays as it was, and the new
// manifest comes beside it as VERSION+helix.FORMAT, proposed. A re-import of
// the current format with other content is still a conflict.
func TestReimportAfterFormatUpgrade(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	cands := candidates(t, "oai-v3.0-petstore.yaml")
	if len(cands) < 2 {
		t.Fatalf("%d tools", len(cands))
	}
	changed := cands[0].Manifest.Name // its contract changed: a parameter's schema
	var old []manifest.Candidate
	for _, c := range cands {
		if c.Manifest.Format != manifest.OpenAPIFormat {
			t.Fatalf("%s: format %d", c.Manifest.Name, c.Manifest.Format)
		}
		m := oldForm(t, c.Manifest)
		if m.Name == changed {
			props := m.Parameters.(map[string]any)["properties"].(map[string]any)
			props["x_old"] = map[string]any{"type": "string", "x-helix-in": "query"}
		}
		old = append(old, manifest.Candidate{Manifest: m, Source: c.Source})
	}
	if _, err := manifest.Record(ctx, pool, old, manifest.ImportOptions{Actor: "old", Now: now}); err != nil {
		t.Fatal(err)
	}
	oldSHA := map[string]string{}
	for _, c := range old {
		tool, err := manifest.Approve(ctx, pool, c.Manifest.Name, c.Manifest.Version, "alice", "", now)
		if err != nil {
			t.Fatal(err)
		}
		oldSHA[tool.Name] = tool.SHA256
	}

	changes, err := manifest.Record(ctx, pool, cands, manifest.ImportOptions{Actor: "new", Now: now.Add(time.Hour)})
	if err != nil {
		t.Fatalf("re-import after the upgrade: %v", err)
	}
	for i, ch := range changes {
		m := cands[i].Manifest
		if m.Name == changed {
			want := manifest.FormatVersion(m.Version, manifest.OpenAPIFormat)
			if ch.Action != "created" || ch.State != manifest.Proposed || ch.Version != want {
				t.Errorf("%s: %+v, want %s created proposed", m.Name, ch, want)
			}
			// The approved old version still runs, unchanged.
			old, err := manifest.Show(ctx, pool, m.Name, m.Version)
			if err != nil {
				t.Fatal(err)
			}
			if old.State != manifest.Approved || old.SHA256 != oldSHA[m.Name] {
				t.Errorf("%s@%s: %s %s, want approved %s", m.Name, m.Version, old.State, old.SHA256, oldSHA[m.Name])
			}
			continue
		}
		if ch.Action != manifest.ActionReRecorded || ch.State != manifest.Approved {
			t.Errorf("%s: %+v, want re-recorded approved", m.Name, ch)
		}
		tool, err := manifest.Show(ctx, pool, m.Name, m.Version)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := manifest.Digest(m)
		got, _, _ := manifest.Digest(tool.Manifest) // what tool exec checks before running
		if tool.SHA256 != want || got != want || tool.Manifest.Namespace == "" || tool.Manifest.Format != manifest.OpenAPIFormat {
			t.Errorf("%s: recorded %s (stored spec digests to %s), want %s in the new form", m.Name, tool.SHA256, got, want)
		}
		last := tool.Audit[len(tool.Audit)-1]
		if last.From != manifest.Approved || last.To != manifest.Approved || last.Actor != "new" {
			t.Errorf("%s: last audit %+v", m.Name, last)
		}
	}

	// Approving the rebuilt version supersedes the old one.
	m := cands[0].Manifest
	if _, err := manifest.Approve(ctx, pool, m.Name, manifest.FormatVersion(m.Version, manifest.OpenAPIFormat), "alice", "", now); err != nil {
		t.Fatal(err)
	}
	if got, want := states(t, pool, m.Name), m.Version+"=superseded "+manifest.FormatVersion(m.Version, manifest.OpenAPIFormat)+"=approved"; got != want {
		t.Errorf("states %q, want %q", got, want)
	}

	// Again: nothing changes.
	changes, err = manifest.Record(ctx, pool, cands, manifest.ImportOptions{Actor: "new", Now: now.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range changes {
		if ch.Action != "unchanged" {
			t.Errorf("third import: %+v", ch)
		}
	}

	// The current format with other content: the document changed without a new version.
	edited := *cands[1].Manifest
	edited.Description += " (edited)"
	_, err = manifest.Record(ctx, pool, []manifest.Candidate{{Manifest: &edited, Source: "edited"}}, manifest.ImportOptions{Actor: "new", Now: now})
	var ce *manifest.ConflictError
	if !errors.As(err, &ce) {
		t.Errorf("edited document: %v, want a conflict", err)
	}
}

// The contract leaves out what only informs, and keeps what a model is shown
// and what is sent where.
func TestContractDigest(t *testing.T) {
	m := candidates(t, "oai-v3.0-petstore.yaml")[0].Manifest
	base, err := manifest.ContractDigest(m)
	if err != nil {
		t.Fatal(err)
	}
	same := oldForm(t, m) // no namespace: the name's first part is the same one
	if d, _ := manifest.ContractDigest(same); d != base {
		t.Errorf("returns, notes, format and a derivable namespace changed the contract")
	}
	for what, edit := range map[string]func(*manifest.Manifest){
		"description": func(x *manifest.Manifest) { x.Description = "other" },
		"url":         func(x *manifest.Manifest) { x.Entrypoint.HTTP.URL += "/x" },
		"host":        func(x *manifest.Manifest) { x.Permissions.Network = manifest.Network{"evil.example"} },
		"namespace":   func(x *manifest.Manifest) { x.Namespace = "other" },
		"credentials": func(x *manifest.Manifest) { x.Credentials = [][]manifest.Credential{{{Scheme: "k", Type: "apiKey"}}} },
	} {
		x := oldForm(t, m)
		h := *x.Entrypoint.HTTP
		x.Entrypoint.HTTP = &h
		edit(x)
		if d, _ := manifest.ContractDigest(x); d == base {
			t.Errorf("%s: contract unchanged", what)
		}
	}
}
