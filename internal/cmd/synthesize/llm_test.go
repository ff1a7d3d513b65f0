package synthesize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/llmsynth"
	"github.com/helixhq/helix/internal/llmsynth/llmtest"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/synthesis"
)

const (
	anthKey = "sk-ant-api03-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"
	cy      = "33333333-3333-4333-8333-333333333333"
)

// callUsage is what every fake call reports: at claude-haiku-4-5's catalog
// prices ($1 in, $5 out per million) one call costs (1000×1 + 200×5)/1e6 = $0.002.
var callUsage = llmtest.Usage{Input: 1000, Output: 200}

// llmDB holds three users with 30 synthetic memories each, and one platform
// row in memory_patterns (generator NULL) that helix must never touch.
func llmDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.New(t)
	var ms []memories.Memory
	for i, u := range []string{ana, ben, cy} {
		ms = append(ms, synthesis.Synthetic(uuid.MustParse(u), 30, 8, uint64(i+1))...)
	}
	if _, err := memories.Insert(context.Background(), pool, ms); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `INSERT INTO memory_patterns (user_id, pattern_type, content, confidence, evidence)
		VALUES ($1, 'emotional_patterns', '{"title": "the platform wrote this"}', 0.5, '{}')`, ana); err != nil {
		t.Fatal(err)
	}
	return pool
}

// llmConfig writes a config file pointing the providers at the fake servers.
func llmConfig(t *testing.T, lines ...string) *config.Config {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func anthropicConfig(t *testing.T, s *llmtest.Server, extra ...string) *config.Config {
	return llmConfig(t, append([]string{"llm:", "  anthropic:", "    base-url: " + s.URL, "    api-key: " + anthKey,
		"  max-tokens: 1000", "  retries: 2"}, extra...)...)
}

func runLLM(t *testing.T, pool *pgxpool.Pool, cfg *config.Config, asJSON bool, argv string) (string, string, error) {
	t.Helper()
	f, s := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	f.Config = func() (*config.Config, error) { return cfg, nil }
	if asJSON {
		f.Global.Output = "json"
	}
	cmd := NewCmdSynthesize(f, nil)
	cmd.SetArgs(strings.Fields(argv))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.ExecuteContext(context.Background())
	return s.Out.String(), s.Err.String(), err
}

// exitCode is the exit status helix gives err: the one table.
func exitCode(err error) cmdutil.ExitCode { return cmdutil.Code(err) }

// citing answers the requested types with a tool call citing the first two
// quoted memories and one id that was never sent.
func citing(c llmtest.Call) llmtest.Reply {
	ids := llmtest.ShortIDs(c.Body)
	return llmtest.Reply{Body: llmtest.AnthropicToolUse("record_patterns", llmtest.Answer(llmtest.RequestedTypes(c), ids[0], ids[1], "m999"), callUsage)}
}

func TestLLMAllUsersThenRerunCostsNothing(t *testing.T) {
	t.Parallel()
	pool := llmDB(t)
	// The first call writes the system prompt to the cache, the others read it.
	srv := llmtest.NewAnthropic(t, anthKey, func(c llmtest.Call) llmtest.Reply {
		r := citing(c)
		u := r.Body.(map[string]any)["usage"].(map[string]any)
		if c.N == 0 {
			u["cache_creation_input_tokens"] = 2000
		} else {
			u["cache_read_input_tokens"] = 2000
		}
		return r
	})
	cfg := anthropicConfig(t, srv)
	out, errOut, err := runLLM(t, pool, cfg, true, "--llm --all-users --concurrency 1")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var rep LLMReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// claude-haiku-4-5: $1 input, $5 output, $1.25 cache write, $0.10 cache read per million tokens.
	first, other := (1000*1+200*5+2000*1.25)/1e6, (1000*1+200*5+2000*0.1)/1e6
	if len(srv.Calls()) != 3 || len(rep.Users) != 3 || math.Abs(rep.SpentUSD-(first+2*other)) > 1e-12 || rep.Counts["patterns"] != 12 ||
		rep.Counts["dropped_evidence"] != 12 || rep.Counts["cache_write_tokens"] != 2000 || rep.Counts["cache_read_tokens"] != 4000 {
		t.Fatalf("calls %d, report %+v", len(srv.Calls()), rep)
	}
	if rep.Users[0].CostUSD != first || rep.Users[1].CostUSD != other {
		t.Fatalf("per-user costs %v %v, want %v %v", rep.Users[0].CostUSD, rep.Users[1].CostUSD, first, other)
	}
	// Every stored pattern cites only memories of its own user; the invented id is gone.
	if n := count(t, pool, `SELECT count(*) FROM memory_patterns p WHERE generator = 'helix' AND cardinality(evidence) = 2
		AND NOT EXISTS (SELECT 1 FROM unnest(p.evidence) e WHERE NOT EXISTS (
			SELECT 1 FROM memories m WHERE m.id = e::uuid AND m.user_id = p.user_id))`); n != 12 {
		t.Fatalf("%d helix patterns with 2 evidence ids of their own user, want 12", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_patterns WHERE generator IS NULL AND user_id = $1`, ana); n != 1 {
		t.Fatalf("platform row count %d", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM helix_llm_usage WHERE status = 'ok' AND calls = 1 AND cost_usd IN ($2, $3)
		AND input_tokens = 1000 AND output_tokens = 200 AND model = 'anthropic/claude-haiku-4-5' AND job_run_id = $1`, *rep.RunID, first, other); n != 3 {
		t.Fatalf("usage rows %d", n)
	}
	// Same memories: the briefs hash the same, nothing is sent.
	_, errOut, err = runLLM(t, pool, cfg, false, "--llm --all-users")
	if err != nil || len(srv.Calls()) != 3 {
		t.Fatalf("re-run: err %v, calls %d\n%s", err, len(srv.Calls()), errOut)
	}
	if !strings.Contains(errOut, "3 of 3 users done (3 reused), 12 patterns, 0 calls") || !strings.Contains(errOut, "spent $0") {
		t.Fatalf("re-run summary %q", errOut)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_patterns WHERE generator = 'helix'`); n != 12 {
		t.Fatalf("re-run left %d helix rows, want 12", n)
	}
	// One user's memory changes: that user alone is asked again, and replaced, not duplicated.
	if _, err := pool.Exec(context.Background(), `UPDATE memories SET content = content || ' and a new thought'
		WHERE id = (SELECT id FROM memories WHERE user_id = $1 ORDER BY created_at DESC LIMIT 1)`, ben); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = runLLM(t, pool, cfg, false, "--llm --all-users --types narrative_themes")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	// Off a terminal: one tab-separated row per pattern, no header.
	if rows := strings.Split(strings.TrimSpace(out), "\n"); len(rows) != 3 || rows[0] != ana+"\tnarrative_themes\t0.80\t2\ta narrative_themes pattern" {
		t.Fatalf("stdout %q", out)
	}
	// --types changes the brief of everyone (the types are in it), so all three are asked, for one type.
	if len(srv.Calls()) != 6 {
		t.Fatalf("calls %d, want 6", len(srv.Calls()))
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_patterns WHERE generator = 'helix'`); n != 12 {
		t.Fatalf("after --types narrative_themes: %d helix rows, want 12 (one type replaced per user)", n)
	}
}

func TestLLMMaxCostStopsBeforeThirdUser(t *testing.T) {
	t.Parallel()
	pool := llmDB(t)
	srv := llmtest.NewAnthropic(t, anthKey, citing)
	cfg := anthropicConfig(t, srv)
	// The dry run gives the exact bodies, so the test can compute each call's estimate as the command does.
	out, _, err := runLLM(t, pool, cfg, true, "--llm --all-users --dry-run")
	if err != nil {
		t.Fatal(err)
	}
	var dry LLMReport
	if err := json.Unmarshal([]byte(out), &dry); err != nil || len(dry.DryRun) != 3 {
		t.Fatalf("%v %s", err, out)
	}
	prices := llmsynth.Prices{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}
	est := func(i int) float64 {
		var body bytes.Buffer // the JSON document indents the body; the request is compact
		if err := json.Compact(&body, dry.DryRun[i].Body); err != nil {
			t.Fatal(err)
		}
		return prices.Estimate(llmsynth.EstimateTokens(body.Bytes()), 1000)
	}
	maxCost := 0.004 + est(2) - 0.0005 // room for two users, not for the third's worst case
	if maxCost < 0.002+est(1) {
		t.Fatalf("test data: estimates %v %v %v leave no room", est(0), est(1), est(2))
	}
	_, errOut, err := runLLM(t, pool, cfg, false, fmt.Sprintf("--llm --all-users --concurrency 1 --max-cost %.6f", maxCost))
	if exitCode(err) != cmdutil.ExitPartial {
		t.Fatalf("err %v (exit %d), want exit 3\n%s", err, exitCode(err), errOut)
	}
	if len(srv.Calls()) != 2 {
		t.Fatalf("calls %d, want 2", len(srv.Calls()))
	}
	if !strings.Contains(err.Error(), "spent $0.0040") || !strings.Contains(errOut, "spent $0.0040 of --max-cost") {
		t.Fatalf("spent not reported: %v\n%s", err, errOut)
	}
	// the progress lines, the summary and the error count alike: the third
	// user was not started, and nobody failed
	if !strings.Contains(err.Error(), "after 2 of 3 users (0 failed, 1 not started)") || strings.Contains(errOut, "failed=1") {
		t.Errorf("counts disagree: %v\n%s", err, errOut)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_patterns WHERE generator = 'helix' AND user_id = $1`, cy); n != 0 {
		t.Fatalf("third user written: %d", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM job_runs WHERE job = 'synthesize-llm' AND status = 'partial'
		AND (counts->>'spent_usd')::float8 = 0.004`); n != 1 {
		t.Fatalf("job run not partial with the spent amount")
	}
}

func TestLLMScrubsBeforeSending(t *testing.T) {
	t.Parallel()
	pool := llmDB(t)
	secrets := []string{"jane.doe@example.com", "+1 415 555 0132", "4111 1111 1111 1111",
		"sk-ant-api03-PLANTEDabcdefghijklmnopqrstuvwxyz012345", "ghp_PLANTED0123456789abcdefghijklmnopqrst", "Zq8r3Lp0Vx7Nw2Ks9Ty4Hm6Bd1Pf5"}
	sentence := "I walked to the harbour on Sunday and felt calmer than I have in weeks."
	planted := []string{sentence}
	for _, s := range secrets {
		planted = append(planted, "note to self: "+s)
	}
	// the most recent memories of ana, so the brief's time-spread sample includes them
	if _, err := pool.Exec(context.Background(), `UPDATE memories m SET content = x.c FROM (
		SELECT id, ($2::text[])[(row_number() OVER (ORDER BY created_at DESC))::int] AS c
		FROM memories WHERE user_id = $1 ORDER BY created_at DESC LIMIT $3) x WHERE m.id = x.id`, ana, planted, len(planted)); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewAnthropic(t, anthKey, func(c llmtest.Call) llmtest.Reply {
		for _, s := range secrets {
			if bytes.Contains(c.Body, []byte(s)) {
				t.Errorf("the server received %q", s)
			}
		}
		if !bytes.Contains(c.Body, []byte(sentence)) {
			t.Errorf("the ordinary sentence did not arrive intact")
		}
		return citing(c)
	})
	cfg := anthropicConfig(t, srv, "  max-memories: 200")
	if _, errOut, err := runLLM(t, pool, cfg, false, "--llm --user-id "+ana); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var sc map[string]int
	if err := pool.QueryRow(context.Background(), `SELECT scrubbed FROM helix_llm_usage WHERE user_id = $1`, ana).Scan(&sc); err != nil {
		t.Fatal(err)
	}
	if sc["emails"] != 1 || sc["phones"] != 1 || sc["cards"] != 1 || sc["keys"] != 2 || sc["secrets"] != 1 {
		t.Fatalf("scrubbed counts %v", sc)
	}
}

func TestLLMDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	pool := llmDB(t)
	srv := llmtest.NewAnthropic(t, anthKey, citing)
	out, errOut, err := runLLM(t, pool, anthropicConfig(t, srv), false, "--llm --user-id "+ben+" --dry-run")
	if err != nil || len(srv.Calls()) != 0 {
		t.Fatalf("err %v calls %d", err, len(srv.Calls()))
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(out), &body); err != nil {
		t.Fatalf("stdout is not the request body: %v\n%s", err, out)
	}
	if body["model"] != "claude-haiku-4-5" || body["tool_choice"].(map[string]any)["name"] != "record_patterns" {
		t.Fatalf("body %v", body)
	}
	if !strings.Contains(errOut, "dry run: user "+ben+": POST "+srv.URL+"/v1/messages") || strings.Contains(out+errOut, anthKey) {
		t.Fatalf("stderr %q", errOut)
	}
	if n := count(t, pool, `SELECT count(*) FROM helix_llm_usage`); n != 0 {
		t.Fatalf("dry run wrote %d usage rows", n)
	}
}

func TestLLMRepairRoundTrip(t *testing.T) {
	t.Parallel()
	pool := llmDB(t)
	types := []string{llmsynth.EmotionalPatterns}
	valid := func(c llmtest.Call) string {
		ids := llmtest.ShortIDs(c.Body)
		b, _ := json.Marshal(llmtest.Answer(types, ids[0]))
		return string(b)
	}
	srv := llmtest.NewOpenAI(t, "sk-proj-OPENAIKEYabcdefghijklmnop0123456789", func(c llmtest.Call) llmtest.Reply {
		if c.N == 0 {
			return llmtest.Reply{Body: llmtest.OpenAIContent(`{"emotional_patterns": [{"title": "unterminated`, "stop", callUsage)}
		}
		return llmtest.Reply{Body: llmtest.OpenAIContent(valid(c), "stop", callUsage)}
	})
	cfg := llmConfig(t, "llm:", "  openai:", "    base-url: "+srv.URL+"/v1", "    api-key: sk-proj-OPENAIKEYabcdefghijklmnop0123456789")
	out, errOut, err := runLLM(t, pool, cfg, true, "--llm --user-id "+ana+" --model openai/gpt-4o-mini --types emotional_patterns")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	calls := srv.Calls()
	if len(calls) != 2 {
		t.Fatalf("calls %d", len(calls))
	}
	msgs := calls[1].Parsed["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if len(msgs) != 4 || msgs[2].(map[string]any)["role"] != "assistant" || !strings.Contains(last["content"].(string), "not valid") {
		t.Fatalf("repair turn %v", msgs)
	}
	var rep LLMReport
	_ = json.Unmarshal([]byte(out), &rep)
	// gpt-4o-mini: $0.15 in, $0.60 out per million; two calls of 1000 in and 200 out.
	if rep.Users[0].Calls != 2 || rep.SpentUSD != 2*(1000*0.15+200*0.6)/1e6 {
		t.Fatalf("report %+v", rep)
	}

	// Invalid twice: the user fails, the run exits 3, what was spent is recorded.
	srv.SetScript(func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Body: llmtest.OpenAIContent(`not json`, "stop", callUsage)}
	})
	if _, err := pool.Exec(context.Background(), `UPDATE memories SET content = content || '.' WHERE user_id = $1`, ana); err != nil {
		t.Fatal(err)
	}
	_, errOut, err = runLLM(t, pool, cfg, false, "--llm --user-id "+ana+" --model openai/gpt-4o-mini --types emotional_patterns")
	if exitCode(err) != cmdutil.ExitPartial || !strings.Contains(err.Error(), "answer still invalid after one repair") {
		t.Fatalf("err %v\n%s", err, errOut)
	}
	if n := count(t, pool, `SELECT count(*) FROM helix_llm_usage WHERE status = 'failed' AND calls = 2 AND cost_usd > 0`); n != 1 {
		t.Fatalf("failed usage rows %d", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_patterns WHERE generator = 'helix'`); n != 1 {
		t.Fatalf("the failed run touched the stored patterns: %d rows", n)
	}
}

func TestLLMMaxTokensStop(t *testing.T) {
	t.Parallel()
	pool := llmDB(t)
	srv := llmtest.NewAnthropic(t, anthKey, func(c llmtest.Call) llmtest.Reply {
		if c.N == 0 {
			return llmtest.Reply{Body: llmtest.AnthropicText(`{"narrative_themes": [{"title": "cut he`, "max_tokens", callUsage)}
		}
		return citing(c)
	})
	_, errOut, err := runLLM(t, pool, anthropicConfig(t, srv), false, "--llm --user-id "+ana+" --types narrative_themes")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	calls := srv.Calls()
	if len(calls) != 2 || calls[0].Parsed["max_tokens"] != 1000.0 || calls[1].Parsed["max_tokens"] != 2000.0 {
		t.Fatalf("calls %d: %v", len(calls), calls)
	}
	// Cut again: the user fails with advice, the truncated JSON is never parsed.
	srv.SetScript(func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Body: llmtest.AnthropicText(`{"narrative_themes": [`, "max_tokens", callUsage)}
	})
	_, _, err = runLLM(t, pool, anthropicConfig(t, srv), false, "--llm --user-id "+ana+" --types narrative_themes,prospective_self")
	if exitCode(err) != cmdutil.ExitPartial || !strings.Contains(err.Error(), "the answer was cut at max_tokens 2000 (stop_reason max_tokens): raise llm.max-tokens") {
		t.Fatalf("err %v", err)
	}
}

func TestLLMProviderErrors(t *testing.T) {
	t.Parallel()
	pool := llmDB(t)
	t.Run("429 with retry-after then success", func(t *testing.T) {
		srv := llmtest.NewAnthropic(t, anthKey, func(c llmtest.Call) llmtest.Reply {
			if c.N == 0 {
				return llmtest.Reply{Status: 429, Header: map[string]string{"retry-after": "0.01"},
					Body: llmtest.AnthropicError("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")}
			}
			return citing(c)
		})
		if _, errOut, err := runLLM(t, pool, anthropicConfig(t, srv), false, "--llm --user-id "+cy+" --types relational_dynamics"); err != nil || len(srv.Calls()) != 2 {
			t.Fatalf("err %v calls %d\n%s", err, len(srv.Calls()), errOut)
		}
	})
	t.Run("529 overloaded is exit 4", func(t *testing.T) {
		srv := llmtest.NewAnthropic(t, anthKey, func(c llmtest.Call) llmtest.Reply {
			return llmtest.Reply{Status: 529, Header: map[string]string{"retry-after": "0.01"}, Body: llmtest.AnthropicError("overloaded_error", "Overloaded")}
		})
		_, _, err := runLLM(t, pool, anthropicConfig(t, srv), false, "--llm --all-users --types prospective_self --concurrency 1")
		if exitCode(err) != cmdutil.ExitUnavailable || len(srv.Calls()) != 3 {
			t.Fatalf("err %v (exit %d), calls %d: want exit 4 after 3 attempts for the first user, no other user tried", err, exitCode(err), len(srv.Calls()))
		}
	})
	t.Run("401 is exit 2 and never shows the key", func(t *testing.T) {
		srv := llmtest.NewAnthropic(t, "sk-ant-api03-SOMEOTHERKEYabcdefghijklmnopqrstuvwxyz", nil)
		out, errOut, err := runLLM(t, pool, anthropicConfig(t, srv), true, "--llm --all-users")
		if exitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "HTTP 401 authentication_error: invalid x-api-key") {
			t.Fatalf("err %v (exit %d)", err, exitCode(err))
		}
		if strings.Contains(out+errOut+err.Error(), anthKey) || strings.Contains(out+errOut+err.Error(), anthKey[:16]) {
			t.Fatal("the key was shown")
		}
	})
	t.Run("model checks", func(t *testing.T) {
		srv := llmtest.NewAnthropic(t, anthKey, nil)
		cfg := anthropicConfig(t, srv)
		for argv, want := range map[string]string{
			"--model anthropic/claude-nonexistent-9":                      "is not in the pinned catalog",
			"--model openai/gpt-3.5-turbo":                                "lacks structured_output",
			"--model ollama/llama3.1 --model-unlisted --max-cost 1":       "--max-cost needs prices",
			"--model anthropic/claude-haiku-4-5 --types emotional,dreams": "invalid --types",
			"--model claude-haiku-4-5":                                    "want PROVIDER/MODEL",
		} {
			_, _, err := runLLM(t, pool, cfg, false, "--llm --user-id "+ana+" "+argv)
			if exitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err %v (exit %d), want exit 2 with %q", argv, err, exitCode(err), want)
			}
		}
		if _, _, err := runLLM(t, pool, cfg, false, "--user-id "+ana+" --max-cost 1"); exitCode(err) != cmdutil.ExitUsage {
			t.Errorf("--max-cost without --llm: %v", err)
		}
		if len(srv.Calls()) != 0 {
			t.Errorf("calls %d", len(srv.Calls()))
		}
	})
	t.Run("unlisted local model", func(t *testing.T) {
		srv := llmtest.NewOpenAI(t, "", func(c llmtest.Call) llmtest.Reply {
			b, _ := json.Marshal(llmtest.Answer([]string{llmsynth.NarrativeThemes}, llmtest.ShortIDs(c.Body)[0]))
			return llmtest.Reply{Body: llmtest.OpenAIContent(string(b), "stop", llmtest.Usage{Input: 10, Output: 5})}
		})
		cfg := llmConfig(t, "llm:", "  ollama:", "    base-url: "+srv.URL+"/v1")
		_, errOut, err := runLLM(t, pool, cfg, false, "--llm --user-id "+ben+" --model ollama/llama3.1 --model-unlisted --types narrative_themes")
		if err != nil || len(srv.Calls()) != 1 || !strings.Contains(errOut, "no prices") {
			t.Fatalf("err %v calls %d\n%s", err, len(srv.Calls()), errOut)
		}
	})
}

func TestNewCmdSynthesizeLLMFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	newCmd := func(runF func(*Options) error) *cobra.Command { return NewCmdSynthesize(f, runF) }
	o, err := cmdtest.Parse(newCmd, "--llm --user-id "+ana+" --types narrative_themes,emotional_patterns --model openai/gpt-4o-mini --max-cost 2.5 --model-unlisted")
	if err != nil || !o.LLM || o.Model != "openai/gpt-4o-mini" || o.MaxCost != 2.5 || !o.ModelUnlisted ||
		strings.Join(o.types, ",") != "emotional_patterns,narrative_themes" {
		t.Fatalf("err %v, options %+v", err, o)
	}
	if o, err = cmdtest.Parse(newCmd, "--llm --all-users"); err != nil || o.Model != llmsynth.DefaultModel || len(o.types) != 4 {
		t.Fatalf("defaults: err %v, options %+v", err, o)
	}
	for argv, want := range map[string]string{
		"--all-users --types narrative_themes":  "need --llm",
		"--llm --all-users --types dreams":      "invalid --types",
		"--llm --all-users --max-cost -1":       "invalid --max-cost",
		"--llm --all-users --model gpt-4o-mini": "want PROVIDER/MODEL",
	} {
		var fe *cmdutil.FlagError
		if _, err := cmdtest.Parse(newCmd, argv); !errors.As(err, &fe) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want a flag error with %q", argv, err, want)
		}
	}
}

// wire builds the same answers in each provider's format.
type wire struct {
	name   string
	server func(t *testing.T, script func(llmtest.Call) llmtest.Reply) (*llmtest.Server, *config.Config)
	answer func(c llmtest.Call, v any) llmtest.Reply // v: the structured answer
	cut    func(text string) llmtest.Reply           // an answer stopped by max_tokens
	model  string
}

var wires = []wire{
	{
		name: "anthropic",
		server: func(t *testing.T, script func(llmtest.Call) llmtest.Reply) (*llmtest.Server, *config.Config) {
			s := llmtest.NewAnthropic(t, anthKey, script)
			return s, anthropicConfig(t, s)
		},
		answer: func(c llmtest.Call, v any) llmtest.Reply {
			return llmtest.Reply{Body: llmtest.AnthropicToolUse("record_patterns", v, callUsage)}
		},
		cut: func(text string) llmtest.Reply {
			return llmtest.Reply{Body: llmtest.AnthropicText(text, "max_tokens", callUsage)}
		},
		model: "anthropic/claude-haiku-4-5",
	},
	{
		name: "openai",
		server: func(t *testing.T, script func(llmtest.Call) llmtest.Reply) (*llmtest.Server, *config.Config) {
			key := "sk-proj-OPENAIKEYabcdefghijklmnop0123456789"
			s := llmtest.NewOpenAI(t, key, script)
			return s, llmConfig(t, "llm:", "  max-tokens: 1000", "  openai:", "    base-url: "+s.URL+"/v1", "    api-key: "+key)
		},
		answer: func(c llmtest.Call, v any) llmtest.Reply {
			b, _ := json.Marshal(v)
			return llmtest.Reply{Body: llmtest.OpenAIContent(string(b), "stop", callUsage)}
		},
		cut: func(text string) llmtest.Reply {
			return llmtest.Reply{Body: llmtest.OpenAIContent(text, "length", callUsage)}
		},
		model: "openai/gpt-4o-mini",
	},
}

// TestLLMBothWireFormats runs the answer cases through each provider's wire
// format: a schema violation repaired on the second call (on Anthropic the
// repair is a tool_result with is_error, which the server checks follows its
// tool_use), invented evidence, and a max_tokens stop.
func TestLLMBothWireFormats(t *testing.T) {
	t.Parallel()
	pool := llmDB(t)
	for _, w := range wires {
		t.Run(w.name+"/repair", func(t *testing.T) {
			srv, cfg := w.server(t, func(c llmtest.Call) llmtest.Reply {
				a := llmtest.Answer(llmtest.RequestedTypes(c), llmtest.ShortIDs(c.Body)[0])
				if c.N == 0 {
					a["narrative_themes"].([]any)[0].(map[string]any)["confidence"] = 7 // out of range
				}
				return w.answer(c, a)
			})
			_, errOut, err := runLLM(t, pool, cfg, false, "--llm --user-id "+ana+" --types narrative_themes --model "+w.model)
			if err != nil || len(srv.Calls()) != 2 {
				t.Fatalf("err %v calls %d\n%s", err, len(srv.Calls()), errOut)
			}
			repair := string(srv.Calls()[1].Body)
			if !strings.Contains(repair, "not valid") || !strings.Contains(repair, "maximum") {
				t.Fatalf("repair request does not say what was wrong: %s", repair)
			}
			if w.name == "anthropic" && !strings.Contains(repair, `"type":"tool_result","tool_use_id":"toolu_01"`) {
				t.Fatalf("anthropic repair is not a tool_result: %s", repair)
			}
		})
		t.Run(w.name+"/invented evidence", func(t *testing.T) {
			_, cfg := w.server(t, func(c llmtest.Call) llmtest.Reply {
				a := llmtest.Answer(llmtest.RequestedTypes(c), llmtest.ShortIDs(c.Body)[1], "m4040")
				// a second theme with only invented evidence: dropped
				a["narrative_themes"] = append(a["narrative_themes"].([]any), llmtest.Answer([]string{"narrative_themes"}, "m4041")["narrative_themes"].([]any)[0])
				return w.answer(c, a)
			})
			out, errOut, err := runLLM(t, pool, cfg, true, "--llm --user-id "+ben+" --types narrative_themes --model "+w.model)
			if err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			var rep LLMReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			u := rep.Users[0]
			if u.StoredPatterns != 1 || u.DroppedEvidence != 2 || u.DroppedPatterns != 1 || len(u.Patterns[0].Evidence) != 1 {
				t.Fatalf("user %+v", u)
			}
			if n := count(t, pool, `SELECT count(*) FROM memory_patterns p JOIN memories m ON m.id = p.evidence[1]::uuid
				WHERE p.generator = 'helix' AND p.user_id = $1 AND m.user_id = $1 AND p.model = $2`, ben, w.model); n != 1 {
				t.Fatalf("stored patterns with the user's own evidence: %d", n)
			}
		})
		t.Run(w.name+"/max_tokens", func(t *testing.T) {
			srv, cfg := w.server(t, func(c llmtest.Call) llmtest.Reply {
				if c.N == 0 {
					return w.cut(`{"prospective_self": [{"title": "half`)
				}
				return w.answer(c, llmtest.Answer(llmtest.RequestedTypes(c), llmtest.ShortIDs(c.Body)[0]))
			})
			if _, errOut, err := runLLM(t, pool, cfg, false, "--llm --user-id "+cy+" --types prospective_self --model "+w.model); err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			calls := srv.Calls()
			limit := "max_tokens"
			if w.name == "openai" {
				limit = "max_completion_tokens"
			}
			if len(calls) != 2 || calls[0].Parsed[limit] != 1000.0 || calls[1].Parsed[limit] != 2000.0 {
				t.Fatalf("calls %d", len(calls))
			}
		})
	}
}
