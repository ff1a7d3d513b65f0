package audit_test

import (
	"context"
	"testing"

	auditcmd "github.com/helixhq/helix/internal/cmd/audit"
	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestVerifyBrokenNotifies: audit verify finding a chain broken queues one
// audit_chain_broken notification per webhook of notify.webhook-url, naming
// the table; an intact verify queues none.
func TestVerifyBrokenNotifies(t *testing.T) {
	t.Setenv("HELIX_NOTIFY_WEBHOOK_URL", "https://a.example/hook,discord+https://discord.com/api/webhooks/1/x")
	pool := pgtest.New(t)
	ctx := context.Background()
	verify := func() cmdutil.ExitCode {
		f, _ := cmdtest.Factory(t, false)
		cmdtest.WithDB(f, pool)
		cmd := auditcmd.NewCmdAudit(f)
		cmd.SetArgs([]string{"verify"})
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		code, _ := cmdutil.ExitCodeFor(ctx, cmd.ExecuteContext(ctx))
		return code
	}
	count := func() (n int) {
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'notify_deliver'
			AND args->'event'->>'kind' = 'audit_chain_broken' AND args->'event'->>'subject' = 'table tool_audit'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if code := verify(); code != 0 || count() != 0 {
		t.Fatalf("intact: exit %d, %d notifications", code, count())
	}
	// a row written past the audit trigger (and its foreign key): unchained
	if _, err := pool.Exec(ctx, `BEGIN; SET LOCAL session_replication_role = replica;
		INSERT INTO tool_audit (tool_id, actor, at, from_state, to_state) VALUES (1, 'op', now(), 'revoked', 'approved'); COMMIT`); err != nil {
		t.Fatal(err)
	}
	if code := verify(); code != 1 || count() != 2 {
		t.Errorf("broken: exit %d, %d notifications; want 1 and one per webhook", code, count())
	}
}
