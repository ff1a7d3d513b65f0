package toolexec

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/composite"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/manifest/openapi"
	"github.com/helixhq/helix/internal/pgtest"
)

// A composite skill whose steps call tools: the first step's output feeds
// the second's path parameter, each call is audited with the run's id, and
// a step naming a tool that is not approved is refused when checked.
func TestCompositeToolSteps(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/pets":
			io.WriteString(w, `[{"id": 42, "name": "rex"}]`)
		case "/v1/pets/rex":
			io.WriteString(w, `{"id": 42, "name": "rex", "tag": "dog"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	importTools(t, pool, "oai-v3.0-petstore.yaml", srv.URL+"/v1", openapi.Options{})
	src := `
name: first-pet
version: 1.0.0
steps:
  - {id: list, tool: swagger_petstore.listPets, input: {limit: 1}}
  - id: show
    tool: swagger_petstore.showPetById@1.0.0
    input:
      petId: $.steps.list.output[0].name
output: {pet: $.steps.show.output}
`
	d, err := composite.Parse([]byte(src), "first-pet.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	if d.Steps[0].Tool != "swagger_petstore.listPets" || d.Steps[0].Skill != "" {
		t.Fatalf("step %+v", d.Steps[0])
	}
	ex := composite.NewSkills(nil, pool)
	ex.Tools = &CompositeTools{R: &Runner{HTTP: &HTTPRunner{AllowPrivate: true}}, Q: pool}
	id, err := composite.Start(ctx, pool, d, 0, "", "", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	rec := composite.Run(ctx, d, json.RawMessage(`{}`), composite.RunOptions{Executor: ex, ID: id})
	if rec.Status != composite.StatusOK {
		t.Fatalf("run %s: %s; steps %+v", rec.Status, rec.Error, rec.Steps)
	}
	if !strings.Contains(string(rec.Output), `"tag":"dog"`) && !strings.Contains(string(rec.Output), `"tag": "dog"`) {
		t.Errorf("output %s", rec.Output)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM tool_executions WHERE composite_execution_id = $1 AND status = 'ok'`, id).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d audited tool steps (%v)", n, err)
	}
	if err := ex.CheckTool(ctx, "swagger_petstore.createPets@1.0.0"); err != nil {
		t.Errorf("approved tool: %v", err)
	}
	if _, err := manifest.Revoke(ctx, pool, "swagger_petstore.createPets", "", "t", "test", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := ex.CheckTool(ctx, "swagger_petstore.createPets"); !errors.Is(err, composite.ErrUnknownTool) {
		t.Errorf("revoked tool: %v", err)
	}
	if _, err := composite.Parse([]byte("name: x\nversion: 1.0.0\nsteps:\n  - {id: a, tool: t, skill: s}\n"), "x.yaml", ""); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("skill and tool: %v", err)
	}
}
