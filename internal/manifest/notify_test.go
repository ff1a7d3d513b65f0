package manifest_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/notify"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestNotifiesWideningAndRevoke: with an outbox in the context, a version
// proposed with wider permissions and a revocation each queue one
// notify_deliver job per webhook, in the transaction that records them; a
// narrower or first import queues none.
func TestNotifiesWideningAndRevoke(t *testing.T) {
	pool := pgtest.New(t)
	s, err := notify.ParseSettings([]string{"https://a.example/hook", "slack+https://hooks.slack.com/services/T/B/x"}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := notify.WithOutbox(context.Background(), notify.OutboxOf(s, nil))
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	kinds := func() map[string]int {
		rows, err := pool.Query(ctx, `SELECT args FROM river_job WHERE kind = 'notify_deliver' ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]int{}
		for rows.Next() {
			var a notify.DeliverArgs
			var raw []byte
			if err := rows.Scan(&raw); err != nil || json.Unmarshal(raw, &a) != nil {
				t.Fatal(err)
			}
			out[a.Event.Kind+" "+a.Event.Subject]++
		}
		return out
	}
	if _, err := manifest.Record(ctx, pool, candidates(t, "tools/weather-1.0.0.yaml"), manifest.ImportOptions{Actor: "i", Now: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Approve(ctx, pool, "weather", "1.0.0", "alice", "", now); err != nil {
		t.Fatal(err)
	}
	if k := kinds(); len(k) != 0 {
		t.Errorf("first import and approval queued %v", k)
	}
	if _, err := manifest.Record(ctx, pool, candidates(t, "tools/weather-1.1.0.yaml"), manifest.ImportOptions{Actor: "i", Now: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Revoke(ctx, pool, "weather", "1.0.0", "carol", "leaked", now); err != nil {
		t.Fatal(err)
	}
	k := kinds()
	if k["tool_widening_proposed tool weather@1.1.0"] != 2 || k["tool_revoked tool weather@1.0.0"] != 2 || len(k) != 2 {
		t.Errorf("queued %v; want a widening and a revocation, each for both webhooks", k)
	}
}
