package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helixhq/helix/internal/composite"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/toolexec"
)

// Name prefixes of the registry's skills and composite skills as MCP tools.
const (
	SkillPrefix     = "skill."
	CompositePrefix = "composite."
)

// registrySkills are the latest version of each skill in helix's registry
// (helix skill add), as helix skill exec NAME runs it. The registry has no
// review state of its own: adding a skill is the operator's act, and the
// sandbox (no network, no files but a granted directory, no environment: an
// MCP call gives no --env values) is what keeps a skill in its place.
func (s *Server) registrySkills(ctx context.Context) ([]served, error) {
	// the user's own skill of a name shadows a shared one; a disabled one is not served
	rows, err := s.o.DB.Query(ctx, `
		SELECT name, version, engine, sha256, params::text FROM (
			SELECT DISTINCT ON (name) name, version, engine, sha256, params, enabled
			FROM helix_skills WHERE `+owner.Visible("user_id", 1)+`
			ORDER BY name, `+owner.OwnFirst("user_id")+`, created_at DESC, id DESC) latest
		WHERE enabled ORDER BY name`, s.owner().Arg())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []served
	for rows.Next() {
		var name, version, engine, sha string
		var params *string
		if err := rows.Scan(&name, &version, &engine, &sha, &params); err != nil {
			return nil, err
		}
		ref := name + "@" + version
		var p any
		if params != nil {
			if err := json.Unmarshal([]byte(*params), &p); err != nil {
				s.o.Logger.Warn("skill not served: its parameter schema does not decode", "skill", ref, "err", err)
				continue
			}
		}
		schema, err := objectSchema(p)
		if err != nil {
			s.o.Logger.Warn("skill not served", "skill", ref, "err", err)
			continue
		}
		no := false
		out = append(out, served{
			key: "skill:" + sha + ":" + version,
			tool: &mcp.Tool{
				Name:  SkillPrefix + name,
				Title: ref,
				Description: fmt.Sprintf("helix skill %s (%s), run in helix's sandbox within its limits: no network, no environment, "+
					"no files but a directory it was granted. Every run is recorded in skill_executions.", ref, engine),
				InputSchema: schema,
				Annotations: &mcp.ToolAnnotations{Title: ref, ReadOnlyHint: true, OpenWorldHint: &no},
				Meta:        mcp.Meta{"helix/version": version, "helix/kind": "skill"},
			},
			call: s.skillHandler(name),
		})
	}
	return out, rows.Err()
}

// compositeSkills are the latest version of each stored composite skill, as
// helix skill run NAME runs it. A definition that no longer parses, or that
// names skill files (the CLI refuses to store those: a file would be read
// from the server's working directory), is not served.
func (s *Server) compositeSkills(ctx context.Context) ([]served, error) {
	rows, err := s.o.DB.Query(ctx, `
		SELECT DISTINCT ON (name) name, version, sha256, definition::text
		FROM helix_composite_skills WHERE `+owner.Visible("user_id", 1)+`
		ORDER BY name, `+owner.OwnFirst("user_id")+`, created_at DESC, id DESC`, s.owner().Arg())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []served
	for rows.Next() {
		var name, version, sha, def string
		if err := rows.Scan(&name, &version, &sha, &def); err != nil {
			return nil, err
		}
		ref := name + "@" + version
		d, err := storedComposite([]byte(def), ref)
		if err != nil {
			s.o.Logger.Warn("composite skill not served", "composite", ref, "err", err)
			continue
		}
		var raw struct {
			InputSchema any `json:"input_schema"`
		}
		_ = json.Unmarshal(d.JSON, &raw)
		schema, err := objectSchema(raw.InputSchema)
		if err != nil {
			s.o.Logger.Warn("composite skill not served", "composite", ref, "err", err)
			continue
		}
		desc := d.Description
		if desc == "" {
			desc = "helix composite skill " + ref
		}
		desc += fmt.Sprintf(" (%d steps, run as helix skill run does: each skill in the sandbox, each tool step as an approved tool; recorded in composite_skill_executions)", len(d.Steps))
		a := &mcp.ToolAnnotations{Title: ref, ReadOnlyHint: true}
		no := false
		a.OpenWorldHint = &no
		for _, st := range d.Steps {
			if st.Tool != "" { // a tool step may call out and change things
				a.ReadOnlyHint, a.OpenWorldHint = false, nil
			}
		}
		out = append(out, served{
			key: "composite:" + sha,
			tool: &mcp.Tool{Name: CompositePrefix + name, Title: ref, Description: desc, InputSchema: schema, Annotations: a,
				Meta: mcp.Meta{"helix/version": version, "helix/kind": "composite"}},
			call: s.compositeHandler(name),
		})
	}
	return out, rows.Err()
}

// storedComposite parses a stored definition and refuses skill files.
func storedComposite(def []byte, ref string) (*composite.Definition, error) {
	d, err := composite.Parse(def, "composite_skills:"+ref, "")
	if err != nil {
		return nil, err
	}
	return d, registryOnly(d)
}

// registryOnly refuses a definition with a step that runs a skill file.
func registryOnly(d *composite.Definition) error {
	for _, st := range d.Steps {
		if st.Skill != "" && composite.IsFileSkill(st.Skill) {
			return fmt.Errorf("step %s names the skill file %q: only registry skills run over MCP", st.ID, st.Skill)
		}
	}
	return nil
}

// arguments are a call's arguments as a JSON document ({} when none).
func arguments(req *mcp.CallToolRequest) []byte {
	in := []byte(req.Params.Arguments)
	if len(in) == 0 || string(in) == "null" {
		return []byte("{}")
	}
	return in
}

// skillHandler runs the latest version of the skill at call time in the
// sandbox, as helix skill exec NAME does: the input is validated against its
// schema first (a mismatch is an invalid-params error, recorded as
// invalid_input), its limits apply, and skill_executions gets the row, with
// the client. A cancelled call stops the skill and is recorded interrupted.
func (s *Server) skillHandler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sk, err := skill.Get(ctx, s.o.DB, skill.Ref{Name: name, Owner: s.owner()})
		if errors.Is(err, skill.ErrNotFound) {
			go s.resync()
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("skill %s is no longer in the registry: nothing ran", name)}
		}
		if err != nil {
			return nil, err
		}
		stop := s.progress(ctx, req, sk.Name+"@"+sk.Version)
		res, err := s.o.Skills.Exec(ctx, s.o.DB, sk, skill.ExecOptions{Input: arguments(req), UserID: s.o.UserID.String(), Client: ClientName(req.Session)})
		stop()
		var ue *skill.UsageError
		switch {
		case errors.As(err, &ue):
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: ue.Error()}
		case err != nil:
			return nil, err
		case res.Status == skill.StatusInvalidInput:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s@%s: %s: nothing ran", res.Skill, res.Version, res.Error)}
		}
		text := string(res.Output)
		if res.Status != skill.StatusOK {
			text = fmt.Sprintf("%s@%s: %s: %s", res.Skill, res.Version, res.Status, res.Error)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: res,
			IsError: res.Status != skill.StatusOK}, nil
	}
}

// compositeHandler runs the latest version of the composite skill at call
// time, as helix skill run NAME does: composite_skill_executions gets the
// run, each step its skill_executions or tool_executions row, all with the
// client. A cancelled call stops the running steps; the run is recorded
// cancelled and its steps interrupted.
func (s *Server) compositeHandler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		d, id, err := composite.LoadFor(ctx, s.o.DB, name, s.owner())
		if errors.Is(err, composite.ErrNotFound) {
			go s.resync()
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("composite skill %s is no longer stored: nothing ran", name)}
		}
		if err != nil {
			return nil, err
		}
		ref := d.Name + "@" + d.Version
		if err := registryOnly(d); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: %v: nothing ran", ref, err)}
		}
		client := ClientName(req.Session)
		r, closeRunner, err := s.o.Runner(ctx, "http")
		if err != nil {
			return nil, err
		}
		defer closeRunner()
		r.Skills = &toolexec.Skills{X: s.o.Skills, Q: s.o.DB}
		ex := composite.NewSkills(s.o.Skills, s.o.DB)
		ex.Client, ex.Owner = client, s.owner()
		ex.Tools = &toolexec.CompositeTools{R: r, Q: s.o.DB, FindRuntime: s.o.FindRuntime, Client: client, Owner: s.owner()}
		input := json.RawMessage(arguments(req))
		runID, err := composite.Start(ctx, s.o.DB, d, id, s.o.UserID.String(), client, input)
		if err != nil {
			return nil, fmt.Errorf("record the run of %s: %w", ref, err)
		}
		stop := s.progress(ctx, req, ref)
		rec := composite.Run(ctx, d, input, composite.RunOptions{Executor: ex, ID: runID, UserID: s.o.UserID.String()})
		stop()
		if err := composite.Finish(ctx, s.o.DB, rec); err != nil {
			return nil, fmt.Errorf("record the run of %s: %w", ref, err)
		}
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case rec.Status == composite.StatusInvalidInput:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s (run %d): %s: nothing ran", ref, rec.ID, rec.Error)}
		}
		text := string(rec.Output)
		if rec.Status != composite.StatusOK {
			text = fmt.Sprintf("%s (run %d): %s: %s", ref, rec.ID, rec.Status, rec.Error)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimSpace(text)}}, StructuredContent: rec,
			IsError: rec.Status != composite.StatusOK}, nil
	}
}
