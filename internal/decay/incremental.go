package decay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// Modes of a run.
const (
	ModeFull        = "full"
	ModeIncremental = "incremental"
)

// AccessLookback is how far before the previous run's instant an incremental
// run looks for accesses. An access is stamped when the platform's
// transaction starts but becomes visible when it commits; a transaction that
// straddled the previous run is still found if it took less than this. Rows
// in the window whose access is already folded in are not rewritten.
const AccessLookback = time.Hour

const scopeAll = "all"

// settings is what the stored forget_at values depend on besides each row's
// own state: a run with other settings must recompute every row.
func settings(o Options) string {
	b, _ := json.Marshal(struct {
		ForgetBelow float64
		Memory      FSRSParams
		Layers      Layers
	}{o.ForgetBelow, o.Memory, o.Layers})
	return string(b)
}

// runMode decides between a full and an incremental run and does it, then
// records the state the next run starts from.
func runMode(ctx context.Context, q db.Querier, o Options, res *Result) error {
	if err := saveModel(ctx, q, o); err != nil {
		return fmt.Errorf("record the decay model: %w", err)
	}
	var started time.Time
	if err := q.QueryRow(ctx, `SELECT now()`).Scan(&started); err != nil {
		return err
	}
	since, reason, err := plan(ctx, q, o)
	if err != nil {
		return err
	}
	if err := warnNoID(ctx, q, o, res); err != nil {
		return err
	}
	if reason != "" {
		res.Mode, res.FullReason = ModeFull, reason
		o.Log.Debug("full run", "reason", reason)
		if o.OnStart != nil {
			n, err := Chunks(ctx, q, o.UserID, o.ChunkSize)
			if err != nil {
				return err
			}
			o.OnStart(ModeFull, n)
		}
		if err := runChunks(ctx, q, o, res); err != nil {
			return err
		}
	} else {
		res.Mode = ModeIncremental
		o.Log.Debug("incremental run", "accessed_after", since)
		if err := runIncremental(ctx, q, o, since, res); err != nil {
			return err
		}
	}
	return saveState(ctx, q, o, started, res.RunID)
}

// plan returns the instant after which accesses are looked for, or why the
// run must be full.
func plan(ctx context.Context, q db.Querier, o Options) (since time.Time, fullReason string, err error) {
	if o.Full {
		return since, "--full", nil
	}
	if o.UserID != "" {
		return since, "--user-id runs recompute the user's rows", nil
	}
	var resuming bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM decay_progress WHERE scope = $1)`, scopeAll).Scan(&resuming); err != nil {
		return since, "", err
	}
	if resuming {
		return since, "resuming an interrupted full run", nil
	}
	var at, started time.Time
	var s string
	err = q.QueryRow(ctx, `SELECT at, started_at, settings FROM helix_decay_state WHERE scope = $1`, scopeAll).Scan(&at, &started, &s)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return since, "no complete run over all users yet", nil
	case err != nil:
		return since, "", err
	case s != settings(o):
		return since, "the models or --forget-below changed since the last run", nil
	case o.At.Before(at):
		return since, fmt.Sprintf("--at is before the last run's %s", at.UTC().Format(time.RFC3339)), nil
	}
	if started.Before(at) {
		at = started
	}
	return at.Add(-AccessLookback), "", nil
}

// saveModel records the run's parameters for helix_retention.
func saveModel(ctx context.Context, q db.Querier, o Options) error {
	kinds := make([]string, 7)
	ps, decays, factors := make([]float64, 7), make([]float64, 7), make([]float64, 7)
	for n := 1; n <= 7; n++ {
		m := o.Layers[n]
		kinds[n-1], ps[n-1], decays[n-1], factors[n-1] = string(m.Kind), m.Param, m.decay(), FSRSFactor(m.decay())
	}
	p := o.Memory
	_, err := q.Exec(ctx, `INSERT INTO helix_decay_model AS m (id, memory_decay, memory_factor, exp_w8, w9, w10, s0, d0,
			layer_kinds, layer_params, layer_decays, layer_factors, short_term, w19, updated_at)
		SELECT true, $1::float8, $2::float8, $3::float8, $4::float8, $5::float8, $6::float8, $7::float8,
			$8::text[], $9::float8[], $10::float8[], $11::float8[], $12::float8, $13::float8, now()
		-- Unchanged: no upsert at all, so no row lock that concurrent decay
		-- range jobs (each saving the same model) would queue on.
		WHERE NOT EXISTS (SELECT 1 FROM helix_decay_model x WHERE (x.memory_decay, x.memory_factor, x.exp_w8, x.w9, x.w10, x.s0, x.d0,
			x.layer_kinds, x.layer_params, x.layer_decays, x.layer_factors, x.short_term, x.w19)
			IS NOT DISTINCT FROM ($1::float8, $2::float8, $3::float8, $4::float8, $5::float8, $6::float8, $7::float8, $8::text[], $9::float8[], $10::float8[], $11::float8[], $12::float8, $13::float8))
		ON CONFLICT (id) DO UPDATE SET memory_decay = $1, memory_factor = $2, exp_w8 = $3, w9 = $4, w10 = $5, s0 = $6, d0 = $7,
			layer_kinds = $8, layer_params = $9, layer_decays = $10, layer_factors = $11, short_term = $12, w19 = $13, updated_at = now()
		WHERE (m.memory_decay, m.memory_factor, m.exp_w8, m.w9, m.w10, m.s0, m.d0, m.layer_kinds, m.layer_params, m.layer_decays, m.layer_factors, m.short_term, m.w19)
			IS DISTINCT FROM ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		p.Decay(), FSRSFactor(p.Decay()), math.Exp(p.W[8]), p.W[9], p.W[10], p.InitialStability(), p.InitialDifficulty(),
		kinds, ps, decays, factors, math.Exp(p.W[17]*p.W[18]), p.W[19])
	return err
}

// saveState records a complete run over all users as the next incremental
// run's starting point. A one-user run with other settings invalidates it:
// that user's forget_at values no longer match it.
func saveState(ctx context.Context, q db.Querier, o Options, started time.Time, runID int64) error {
	s := settings(o)
	if o.UserID != "" {
		_, err := q.Exec(ctx, `DELETE FROM helix_decay_state WHERE scope = $1 AND settings <> $2`, scopeAll, s)
		return err
	}
	_, err := q.Exec(ctx, `INSERT INTO helix_decay_state (scope, at, started_at, settings, job_run_id, updated_at)
		VALUES ($1, $2, $3, $4, $5, now())
		ON CONFLICT (scope) DO UPDATE SET at = $2, started_at = $3, settings = $4, job_run_id = $5, updated_at = now()`,
		scopeAll, o.At, started, s, runID)
	return err
}

// dueSQL selects, per table, the rows an incremental run recomputes ($1 at,
// $2 accesses after): never decayed, due to cross the threshold, or touched
// by the platform since their state was computed. Each branch is one index
// range. ok is false for a memory no UPDATE can touch (knownType): it is
// counted as skipped, not sent to the update.
var dueSQL = map[string]string{
	phaseMemories: `SELECT id, ` + knownType + ` AS ok FROM memories WHERE decayed_at IS NULL
		UNION SELECT id, ` + knownType + ` FROM memories WHERE forget_at <= $1
		UNION SELECT id, ` + knownType + ` FROM memories WHERE last_accessed > $2 AND last_accessed <= $1
			AND last_accessed > coalesce(reviewed_at, created_at)`,
	phaseLayers: `SELECT id, true AS ok FROM psychology_layers WHERE decayed_at IS NULL AND id IS NOT NULL
		UNION SELECT id, true FROM psychology_layers WHERE forget_at <= $1
		UNION SELECT id, true FROM psychology_layers WHERE last_updated > $2 AND last_updated IS DISTINCT FROM decay_basis AND id IS NOT NULL`,
}

// NoIDNamed is how many rows without an id a warning names; it counts them all.
const NoIDNamed = 5

// NoID counts the layers in scope (userID "": all) that have no id, and
// names the first NoIDNamed of them by user and layer. The platform's
// psychology_layers.id is a uuid with no key and no NOT NULL (shared
// platform README), and every run addresses rows by id: such a row is never
// updated, so it never gets decayed_at, and the partial index on undecayed
// ids finds it without a scan.
func NoID(ctx context.Context, q db.Querier, userID string) (n int64, names []string, err error) {
	var user any
	if userID != "" {
		user = userID
	}
	err = q.QueryRow(ctx, `SELECT count(*), coalesce((array_agg(format('user_id=%s layer_number=%s layer_name=%s',
			coalesce(user_id::text, 'NULL'), coalesce(layer_number::text, 'NULL'), coalesce(quote_literal(layer_name), 'NULL'))
			ORDER BY user_id, layer_number))[1:$2], '{}')
		FROM psychology_layers WHERE decayed_at IS NULL AND id IS NULL AND ($1::uuid IS NULL OR user_id = $1::uuid)`,
		user, NoIDNamed).Scan(&n, &names)
	return n, names, err
}

// warnNoID counts the layers without an id as skipped and says which.
func warnNoID(ctx context.Context, q db.Querier, o Options, res *Result) error {
	n, names, err := NoID(ctx, q, o.UserID)
	if err != nil {
		return fmt.Errorf("%s: count rows without an id: %w", phaseLayers, err)
	}
	if n == 0 {
		return nil
	}
	res.NoID, res.Skipped = n, res.Skipped+n
	o.Log.Warn(NoIDWarning, "table", phaseLayers, "count", n, "rows", strings.Join(names, "; "), "hint", NoIDHint)
	return nil
}

// NoIDWarning and NoIDHint are what a run (and decay run --enqueue) says
// about layers without an id.
const (
	NoIDWarning = "psychology_layers rows without an id skipped: decay updates rows by id"
	NoIDHint    = "give them ids (UPDATE psychology_layers SET id = gen_random_uuid() WHERE id IS NULL) and the next run decays them"
)

// runIncremental recomputes only the due rows, with the same SET as a full
// run, in committed chunks. The due ids are read once, in id order, into
// memory first (16 bytes a row): a row whose recomputed forget_at lands
// within rounding of the run's instant is then not picked up again by the
// same run, and nothing is kept on the server between transactions (a
// transaction pooler gives each one another backend). Each chunk updates its
// ids through the primary key (id = ANY(array)), never a join the planner
// could turn into a scan of the whole table. An interrupted incremental run
// needs no checkpoint: rows it finished are no longer due.
func runIncremental(ctx context.Context, q db.Querier, o Options, since time.Time, res *Result) error {
	var forgetBelow any
	if o.ForgetBelow > 0 {
		forgetBelow = o.ForgetBelow
	}
	phases := []phase{memoriesPhase(o), layersPhase(o)}
	due := make([][][16]byte, len(phases))
	skipped := make([]int64, len(phases))
	chunks := 0
	for i, ph := range phases {
		rows, err := q.Query(ctx, `SELECT id, ok FROM (`+dueSQL[ph.table]+`) d ORDER BY id`, o.At, since)
		if err != nil {
			return fmt.Errorf("%s: find due rows: %w", ph.table, err)
		}
		var id [16]byte
		var ok bool
		_, err = pgx.ForEachRow(rows, []any{&id, &ok}, func() error {
			if ok {
				due[i] = append(due[i], id)
			} else {
				skipped[i]++
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: find due rows: %w", ph.table, err)
		}
		chunks += (len(due[i]) + o.ChunkSize - 1) / o.ChunkSize
	}
	if o.OnStart != nil {
		o.OnStart(ModeIncremental, chunks)
	}
	for i, ph := range phases {
		where := ph.where
		if where == "" {
			where = "true"
		}
		// $1 first and $2 last id of the chunk, $3 user (unused: one-user
		// runs are full), the phase's own parameters from $4 as in a full
		// run, then the chunk's ids. The rows are found through the primary
		// key, never a join or a scan.
		update := fmt.Sprintf(`WITH u AS (UPDATE %[1]s SET %[2]s WHERE id = ANY($%[4]d::uuid[]) AND id >= $1::uuid AND id <= $2::uuid%[5]s
				AND %[3]s RETURNING forgotten)
			SELECT count(*), count(*) FILTER (WHERE forgotten) FROM u`,
			ph.table, ph.set, where, 6+len(ph.args), userFilter)
		res.Skipped += skipped[i]
		for lo := 0; lo < len(due[i]); lo += o.ChunkSize {
			if err := ctx.Err(); err != nil {
				return err
			}
			chunk := due[i][lo:min(lo+o.ChunkSize, len(due[i]))]
			var n, forgotten int64
			args := append([]any{chunk[0], chunk[len(chunk)-1], nil, o.At, forgetBelow}, ph.args...)
			args = append(args, chunk)
			err := db.InTx(ctx, q, func(tx pgx.Tx) error {
				// The due rows are a sliver of the table scattered over it;
				// costed with random_page_cost 4, a scan of every row looks
				// as cheap as the index and costs CPU in proportion to the
				// table, not to the change. SET LOCAL ends with the
				// transaction, on every connection path.
				if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
					return err
				}
				return tx.QueryRow(ctx, update, args...).Scan(&n, &forgotten)
			})
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("%s: %d due rows from %x: %w", ph.table, len(chunk), chunk[0], err)
			}
			res.chunk(o, ph.table, n, forgotten, 0, forgetBelow != nil)
		}
	}
	return nil
}
