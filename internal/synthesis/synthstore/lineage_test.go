package synthstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/lineage"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/synthesis"
)

// runOnce synthesizes user as the nightly run writes one user (Write.One).
func runOnce(t *testing.T, pool *pgxpool.Pool, user uuid.UUID, now time.Time) {
	t.Helper()
	ctx := context.Background()
	p := synthesis.DefaultParams()
	read := ReadUser(ctx, pool, user, Filter{}, p)
	r, err := Compute(ctx, user, read, p)
	if err != nil {
		t.Fatal(err)
	}
	w := &Write{Now: now, LockWait: time.Second}
	if err := w.One(ctx, pool, r); err != nil {
		t.Fatal(err)
	}
}

// clusterTopics maps each semantic cluster's lineage id to the topic most of
// its members belong to (and the share of them that do).
type clusterLineage struct {
	lineage uuid.UUID
	status  string
	topic   int
	share   float64
}

func clusterLineages(t *testing.T, pool *pgxpool.Pool, p lineage.Planting) []clusterLineage {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT l.id, l.status, s.memory_ids FROM memory_synthesis s
		JOIN helix_pattern_lineages l ON l.pattern_id = s.id
		WHERE s.user_id = $1 AND s.pattern_type = 'semantic_cluster' AND s.generator = 'helix'`, p.User)
	if err != nil {
		t.Fatal(err)
	}
	var out []clusterLineage
	var (
		id      uuid.UUID
		status  string
		members []uuid.UUID
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &status, &members}, func() error {
		count := map[int]int{}
		for _, m := range members {
			count[p.Topic[m]]++
		}
		best, n := -1, 0
		for topic, c := range count {
			if c > n {
				best, n = topic, c
			}
		}
		out = append(out, clusterLineage{lineage: id, status: status, topic: best, share: float64(n) / float64(len(members))})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

type plantOutcome struct {
	kept           int // persisting topics whose cluster kept its lineage id
	statusOK       int // of those, persisting or growing (a cluster whose members the clustering left as noise this time is shrinking)
	stolen         int // a lineage given to a cluster of another topic
	endedOK, newOK bool
	firstClusters  int
}

// plantAndRun runs the planting through two synthesize runs and reports
// what became of each topic's lineage.
func plantAndRun(t *testing.T, pool *pgxpool.Pool, seed uint64) plantOutcome {
	t.Helper()
	ctx := context.Background()
	user := uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "lineage %d", seed))
	p := lineage.Plant(user, seed, lineage.PlantOptions{})
	if _, err := memories.Insert(ctx, pool, p.Before); err != nil {
		t.Fatal(err)
	}
	t1 := time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)
	runOnce(t, pool, user, t1)
	first := clusterLineages(t, pool, p)
	byTopic := map[int]uuid.UUID{}
	topicOf := map[uuid.UUID]int{}
	for _, c := range first {
		if c.share >= 0.9 {
			byTopic[c.topic] = c.lineage
		}
		topicOf[c.lineage] = c.topic
	}

	if _, err := pool.Exec(ctx, `DELETE FROM memories WHERE id = ANY($1)`, p.Deleted); err != nil {
		t.Fatal(err)
	}
	if _, err := memories.Insert(ctx, pool, p.Added); err != nil {
		t.Fatal(err)
	}
	t2 := t1.Add(24 * time.Hour)
	runOnce(t, pool, user, t2)
	second := clusterLineages(t, pool, p)

	out := plantOutcome{firstClusters: len(first)}
	defer func() {
		if out.statusOK < 3 {
			t.Logf("planting %d: first run %+v; second run %+v", seed, first, second)
		}
	}()
	for _, c := range second {
		if was, ok := topicOf[c.lineage]; ok && was != c.topic {
			out.stolen++
		}
		switch {
		case c.topic < 3 && byTopic[c.topic] == c.lineage:
			out.kept++
			if c.status == lineage.Persisting || c.status == lineage.Growing {
				out.statusOK++
			}
		case c.topic == 4 && c.status == lineage.New:
			out.newOK = true
		}
	}
	if id, ok := byTopic[3]; ok {
		var status string
		var ended *time.Time
		if err := pool.QueryRow(ctx, `SELECT status, ended_at FROM helix_pattern_lineages WHERE id = $1`, id).Scan(&status, &ended); err != nil {
			t.Fatal(err)
		}
		out.endedOK = status == lineage.Ended && ended != nil && ended.Equal(t2)
	}
	return out
}

// TestLineagePlanted is the planted check: 4 topics; run; 10 % more
// memories on 3 of them, the 4th deleted, a 5th added; run again. The 3 keep
// their lineage ids (persisting or growing), the 4th is ended (kept), the
// 5th is new — and over 20 random plantings lineage is kept for ≥ 95 % of
// persisting clusters and never handed to another topic's cluster.
func TestLineagePlanted(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	const plantings = 20
	kept, statusOK, stolen, ended, news := 0, 0, 0, 0, 0
	for seed := range uint64(plantings) {
		o := plantAndRun(t, pool, seed+1)
		if o.firstClusters < 4 {
			t.Logf("planting %d: first run found %d clusters", seed+1, o.firstClusters)
		}
		kept += o.kept
		statusOK += o.statusOK
		stolen += o.stolen
		if o.endedOK {
			ended++
		}
		if o.newOK {
			news++
		}
		if seed == 0 && (o.kept != 3 || o.statusOK != 3 || !o.endedOK || !o.newOK || o.stolen != 0) {
			t.Errorf("first planting: %d of 3 persisting topics kept their lineage, 4th ended %v, 5th new %v, %d stolen", o.kept, o.endedOK, o.newOK, o.stolen)
		}
	}
	t.Logf("%d plantings: lineage kept for %d of %d persisting clusters (%d persisting or growing), %d stolen, %d ended, %d new",
		plantings, kept, 3*plantings, statusOK, stolen, ended, news)
	if float64(kept) < 0.95*3*plantings {
		t.Errorf("lineage kept for %d of %d persisting clusters, want ≥ 95 %%", kept, 3*plantings)
	}
	if float64(statusOK) < 0.95*3*plantings {
		t.Errorf("%d of %d persisting clusters persisting or growing, want ≥ 95 %%", statusOK, 3*plantings)
	}
	if stolen != 0 {
		t.Errorf("%d lineages handed to another topic's cluster", stolen)
	}
	if ended != plantings || news != plantings {
		t.Errorf("deleted topic ended in %d of %d plantings, new topic new in %d", ended, plantings, news)
	}
}

// TestLineageUnchangedUserUntouched: the nightly --all-users run skips a user
// whose memories did not change, and so leaves its lineages as they were:
// same ids, same last_seen_at, same runs_seen.
func TestLineageUnchangedUserUntouched(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	user := uuid.NewSHA1(uuid.NameSpaceOID, []byte("unchanged"))
	other := uuid.NewSHA1(uuid.NameSpaceOID, []byte("changing"))
	for i, u := range []uuid.UUID{user, other} {
		p := lineage.Plant(u, uint64(100+i), lineage.PlantOptions{})
		if _, err := memories.Insert(ctx, pool, p.Before); err != nil {
			t.Fatal(err)
		}
	}
	params := synthesis.DefaultParams()
	nightly := func(now time.Time) []uuid.UUID {
		users, _, states, err := ChangedUsers(ctx, pool, Filter{}, params, false)
		if err != nil {
			t.Fatal(err)
		}
		w := &Write{Now: now, LockWait: time.Second}
		for _, u := range users {
			ms, err := Load(ctx, pool, u, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Compute(ctx, u, &Read{Memories: ms, State: states[u]}, params)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.One(ctx, pool, r); err != nil {
				t.Fatal(err)
			}
		}
		return users
	}
	snapshot := func(u uuid.UUID) string {
		var s string
		if err := pool.QueryRow(ctx, `SELECT coalesce(string_agg(id::text || ' ' || status || ' ' || runs_seen || ' ' || last_seen_at::text, ', ' ORDER BY id), '')
			FROM helix_pattern_lineages WHERE user_id = $1`, u).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	t1 := time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC)
	if got := nightly(t1); len(got) != 2 {
		t.Fatalf("first nightly run synthesized %d users, want 2", len(got))
	}
	before := snapshot(user)
	if before == "" {
		t.Fatal("no lineages after the first run")
	}
	// a pattern row's lineage (for listing commands): its own user's only
	var pid uuid.UUID
	if err := pool.QueryRow(ctx, `SELECT id FROM memory_synthesis WHERE user_id = $1 LIMIT 1`, user).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if l, err := lineage.Of(ctx, pool, user, pid); err != nil || l.PatternID == nil || *l.PatternID != pid || l.Status != lineage.New || l.RunsSeen != 1 {
		t.Errorf("lineage.Of = %+v, %v", l, err)
	}
	if _, err := lineage.Of(ctx, pool, other, pid); err != lineage.ErrNotFound {
		t.Errorf("lineage.Of another user's pattern: %v, want ErrNotFound", err)
	}
	// the other user changes; the first does not
	if _, err := pool.Exec(ctx, `UPDATE memories SET content = content || ' again' WHERE user_id = $1 AND id = (SELECT id FROM memories WHERE user_id = $1 ORDER BY id LIMIT 1)`, other); err != nil {
		t.Fatal(err)
	}
	if got := nightly(t1.Add(24 * time.Hour)); len(got) != 1 || got[0] != other {
		t.Fatalf("second nightly run synthesized %v, want only %s", got, other)
	}
	if after := snapshot(user); after != before {
		t.Errorf("unchanged user's lineages changed:\nbefore %s\nafter  %s", before, after)
	}
	var runs int
	if err := pool.QueryRow(ctx, `SELECT max(runs_seen) FROM helix_pattern_lineages WHERE user_id = $1`, other).Scan(&runs); err != nil || runs != 2 {
		t.Errorf("changed user's lineages seen in %d runs (%v), want 2", runs, err)
	}
}
