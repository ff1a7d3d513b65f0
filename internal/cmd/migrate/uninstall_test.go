package migrate_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/llmsynth/llmtest"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// TestUninstallReinstall: migrate down --all-migrations says how many of
// helix's patterns it removes and removes them, leaving the platform's rows
// as they were; a reinstall and a re-run then hold exactly one copy of each
// helix pattern.
func TestUninstallReinstall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.Platform(t)
	pool := pgtest.Open(t, url)
	rows := snapshotIDs(t, pool)
	before := rows.checksums(t, pool)
	const anthKey = "sk-ant-api03-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"
	anthropic := llmtest.NewAnthropic(t, anthKey, func(c llmtest.Call) llmtest.Reply {
		ids := llmtest.ShortIDs(c.Body)
		return llmtest.Reply{Body: llmtest.AnthropicToolUse("record_patterns", llmtest.Answer(llmtest.RequestedTypes(c), ids[0], ids[1]),
			llmtest.Usage{Input: 1000, Output: 200})}
	})
	helix := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(testbin.Helix(t), args...)
		cmd.Env = append(os.Environ(), "HELIX_DATABASE_URL="+url, "HELIX_CONFIG=", "XDG_CONFIG_HOME="+t.TempDir(),
			"HELIX_LLM_ANTHROPIC_BASE_URL="+anthropic.URL, "ANTHROPIC_API_KEY="+anthKey)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("helix %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stderr.String()
	}
	count := func(q string) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	install := func() (synth, patterns int) {
		helix("migrate", "up")
		helix("synthesize", "--all-users")
		helix("synthesize", "--llm", "--all-users")
		return count(`SELECT count(*) FROM memory_synthesis WHERE generator = 'helix'`),
			count(`SELECT count(*) FROM memory_patterns WHERE generator = 'helix'`)
	}
	// what helix installs on the platform's memories table (migrations 00050, 00170)
	const triggers = `SELECT count(*) FROM pg_trigger WHERE tgrelid = 'memories'::regclass AND NOT tgisinternal AND tgname LIKE 'helix%'`
	const functions = `SELECT count(*) FROM pg_proc WHERE proname IN ('helix_memory_changed', 'helix_memory_search_sync')`
	synth, patterns := install()
	if synth == 0 || patterns != 8 {
		t.Fatalf("first install: %d synthesis and %d LLM patterns", synth, patterns)
	}
	if n, m := count(triggers), count(functions); n != 5 || m != 2 {
		t.Fatalf("installed: %d helix triggers on memories and %d of their functions, want 5 and 2", n, m)
	}

	out := helix("migrate", "down", "--all-migrations", "--yes")
	want := fmt.Sprintf("migrate down removes %d rows helix wrote into memory_synthesis and %d rows helix wrote into memory_patterns (the platform's own rows stay)", synth, patterns)
	if !strings.Contains(out, want) {
		t.Errorf("migrate down said %q, want %q", out, want)
	}
	if n := count(`SELECT count(*) FROM memory_synthesis`) + count(`SELECT count(*) FROM memory_patterns`); n != len(rows.ids["memory_synthesis"])+len(rows.ids["memory_patterns"]) {
		t.Errorf("after uninstall %d rows in memory_synthesis and memory_patterns, want the platform's %d", n,
			len(rows.ids["memory_synthesis"])+len(rows.ids["memory_patterns"]))
	}
	if n, m := count(triggers), count(functions); n != 0 || m != 0 {
		t.Errorf("after uninstall %d helix triggers remain on memories and %d of their functions, want none", n, m)
	}
	if after := rows.checksums(t, pool); !reflect.DeepEqual(before, after) {
		t.Errorf("platform rows changed by install and uninstall:\nbefore %v\nafter  %v", before, after)
	}

	synth2, patterns2 := install()
	if synth2 != synth || patterns2 != patterns {
		t.Errorf("reinstall and re-run: %d synthesis and %d LLM patterns, want %d and %d", synth2, patterns2, synth, patterns)
	}
	for tbl, n := range map[string]int{"memory_synthesis": synth, "memory_patterns": patterns} {
		if total := count(`SELECT count(*) FROM ` + tbl); total != n+len(rows.ids[tbl]) {
			t.Errorf("%s holds %d rows after reinstall, want helix's %d and the platform's %d", tbl, total, n, len(rows.ids[tbl]))
		}
	}
	if n := count(`SELECT count(*) FROM (SELECT 1 FROM memory_synthesis GROUP BY user_id, pattern_type, synthesis_content, memory_ids HAVING count(*) > 1) d`); n != 0 {
		t.Errorf("%d synthesis patterns twice after reinstall", n)
	}
}
