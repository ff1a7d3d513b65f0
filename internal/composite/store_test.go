package composite

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/helixhq/helix/internal/pgtest"
)

func TestStore(t *testing.T) {
	ctx := context.Background()
	tx := pgtest.Tx(t)
	v1 := mustParse(t, "name: wf\nversion: 1.0.0\nsteps: [{id: a, skill: upper, input: {text: $.input.t}}]\n")
	s, err := Save(ctx, tx, v1)
	if err != nil || !s.Created {
		t.Fatalf("save: %+v %v", s, err)
	}
	again, err := Save(ctx, tx, v1)
	if err != nil || again.Created || again.ID != s.ID {
		t.Errorf("saving the same definition again: %+v %v", again, err)
	}
	changed := mustParse(t, "name: wf\nversion: 1.0.0\nsteps: [{id: b, skill: upper}]\n")
	if _, err := Save(ctx, tx, changed); !errors.Is(err, ErrVersionExists) {
		t.Errorf("changed definition under the same version: %v", err)
	}
	v2 := mustParse(t, "name: wf\nversion: 2.0.0\nsteps: [{id: b, skill: upper, input: {text: $.input.t}}]\n")
	if _, err := Save(ctx, tx, v2); err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{"wf": "2.0.0", "wf@1.0.0": "1.0.0"} {
		d, id, err := Load(ctx, tx, ref)
		if err != nil || d.Version != want || id == 0 || d.Steps[0].Input == nil {
			t.Errorf("load %s: %+v %d %v", ref, d, id, err)
		}
	}
	if _, _, err := Load(ctx, tx, "wf@3"); !errors.Is(err, ErrNotFound) {
		t.Errorf("load missing version: %v", err)
	}

	id, err := Start(ctx, tx, v1, s.ID, "0b6c5c1e-57d3-4a55-9a69-2a86e1f4d1a0", "", json.RawMessage(`{"t":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	rec := Run(ctx, v1, json.RawMessage(`{"t":"hi"}`), RunOptions{Executor: newGoSkills(), ID: id})
	if err := Finish(ctx, tx, rec); err != nil {
		t.Fatal(err)
	}
	var status, stepStatus, out string
	var cid int64
	if err := tx.QueryRow(ctx, `SELECT status, steps->0->>'status', output::text, composite_skill_id FROM composite_skill_executions WHERE id = $1`, id).
		Scan(&status, &stepStatus, &out, &cid); err != nil {
		t.Fatal(err)
	}
	if status != "ok" || stepStatus != "ok" || out != `{"text": "HI", "length": 2}` || cid != s.ID {
		t.Errorf("row: %s %s %s %d", status, stepStatus, out, cid)
	}
}
