package embed

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/scrub"
)

// Options of one user's run.
type Options struct {
	Model   string
	Reembed bool // also replace embeddings helix did not record (e.g. the platform's)
	Batch   BatchOptions
	// Complete, when set, runs inside the transaction that writes the
	// user's embeddings, just before it commits (a queue worker completes
	// its job there).
	Complete func(ctx context.Context, tx pgx.Tx) error
}

// Result counts one user's run.
type Result struct {
	UserID       uuid.UUID    `json:"user_id"`
	Pending      int          `json:"pending"`       // rows that needed an embedding
	Embedded     int          `json:"embedded"`      // rows written
	SkippedEmpty int          `json:"skipped_empty"` // rows without text: nothing to embed
	Scrubbed     scrub.Counts `json:"scrubbed"`      // secrets removed before sending
	Dimension    int          `json:"dimension,omitempty"`
	Stats
}

// pendingSQL selects the rows a run embeds (placeholders model and reembed,
// columns of alias t): those without an embedding, those helix recorded as
// made by another model, and with reembed those whose maker is not recorded.
func pendingSQL(t, model, reembed string) string {
	return fmt.Sprintf(`(%[1]s.embedding IS NULL
	OR (%[1]s.embedding_model IS NOT NULL AND %[1]s.embedding_model <> %[2]s)
	OR (%[3]s AND %[1]s.embedding_model IS NULL))`, t, model, reembed)
}

var pending = pendingSQL("memories", "$2", "$3")

type candidate struct {
	id      uuid.UUID
	content string
}

// ColumnDim is the dimension the embedding column fixes: n for pgvector's
// vector(n), 0 for real[] or an unconstrained vector.
func ColumnDim(ctx context.Context, q db.Querier) (int, error) {
	var typ string
	var mod int
	err := q.QueryRow(ctx, `SELECT t.typname, a.atttypmod FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
		WHERE a.attrelid = 'memories'::regclass AND a.attname = 'embedding' AND NOT a.attisdropped`).Scan(&typ, &mod)
	if err != nil {
		return 0, fmt.Errorf("read the type of memories.embedding: %w", err)
	}
	if typ == "vector" && mod > 0 {
		return mod, nil
	}
	return 0, nil
}

// UsersPending lists the users who have rows to embed, in id order.
func UsersPending(ctx context.Context, q db.Querier, model string, reembed bool) ([]uuid.UUID, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT user_id FROM memories WHERE `+pendingSQL("memories", "$1", "$2")+`
		AND content IS NOT NULL AND btrim(content) <> '' ORDER BY user_id`, model, reembed)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
}

// CountPending counts the rows with text that users have to embed.
func CountPending(ctx context.Context, q db.Querier, users []uuid.UUID, model string, reembed bool) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM memories WHERE user_id = ANY($1) AND `+pending+`
		AND content IS NOT NULL AND btrim(content) <> ''`, users, model, reembed).Scan(&n)
	return n, err
}

// EstimatePending counts the rows with text that users have to embed and
// estimates their tokens as the batcher does (EstimateTokens, each input
// cut at maxInputTokens): what a run would send, without sending it.
func EstimatePending(ctx context.Context, q db.Querier, users []uuid.UUID, model string, reembed bool, maxInputTokens int) (rows, tokens int, err error) {
	err = q.QueryRow(ctx, `SELECT count(*), coalesce(sum(least((octet_length(content) + 2) / 3, $4)), 0) FROM memories
		WHERE user_id = ANY($1) AND `+pending+` AND content IS NOT NULL AND btrim(content) <> ''`,
		users, model, reembed, maxInputTokens).Scan(&rows, &tokens)
	return rows, tokens, err
}

// User embeds one user's pending rows and writes them in one transaction:
// either every pending row gets its embedding, model and dimension, or none
// does. A re-run finds nothing pending and sends nothing. This is the unit a
// queue worker runs per user.
func User(ctx context.Context, q db.Querier, e Embedder, user uuid.UUID, o Options) (Result, error) {
	res := Result{UserID: user}
	rows, err := q.Query(ctx, `SELECT id, content FROM memories WHERE user_id = $1 AND `+pending+`
		AND content IS NOT NULL AND btrim(content) <> '' ORDER BY created_at, id`, user, o.Model, o.Reembed)
	if err != nil {
		return res, fmt.Errorf("read memories: %w", err)
	}
	cands, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (candidate, error) {
		var c candidate
		return c, r.Scan(&c.id, &c.content)
	})
	if err != nil {
		return res, fmt.Errorf("read memories: %w", err)
	}
	if err := q.QueryRow(ctx, `SELECT count(*) FROM memories WHERE user_id = $1 AND `+pending+`
		AND (content IS NULL OR btrim(content) = '')`, user, o.Model, o.Reembed).Scan(&res.SkippedEmpty); err != nil {
		return res, err
	}
	res.Pending = len(cands)
	if len(cands) == 0 {
		return res, nil
	}

	bo := o.Batch
	colDim, err := ColumnDim(ctx, q)
	if err != nil {
		return res, err
	}
	if colDim > 0 {
		bo.WantDim, bo.WantAgainst = colDim, "the column memories.embedding"
	} else {
		// The rows that keep their embedding: the dimension most of them have.
		var d, n int
		err := q.QueryRow(ctx, `SELECT coalesce(embedding_dim, cardinality(embedding::real[])) d, count(*) FROM memories
			WHERE user_id = $1 AND embedding IS NOT NULL AND NOT `+pending+`
			GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`, user, o.Model, o.Reembed).Scan(&d, &n)
		switch {
		case err == pgx.ErrNoRows:
		case err != nil:
			return res, fmt.Errorf("read the user's embedding dimension: %w", err)
		default:
			bo.WantDim, bo.WantAgainst = d, fmt.Sprintf("the user's other embeddings (%d rows)", n)
		}
	}

	texts := make([]string, len(cands))
	for i, c := range cands {
		// Secrets never leave the machine: the same scrubber as synthesize --llm.
		var k scrub.Counts
		texts[i], k = scrub.Text(c.content)
		res.Scrubbed = res.Scrubbed.Add(k)
	}
	vecs, st, err := All(ctx, e, texts, bo)
	res.Stats = st
	if err != nil {
		return res, err
	}
	res.Dimension = len(vecs[0])
	n, err := write(ctx, q, user, o, cands, vecs)
	res.Embedded = n
	return res, err
}

// write stores the vectors in one transaction: COPY into a temporary table,
// then one UPDATE … FROM. The column may be real[] or pgvector's vector:
// real[] is assigned as is, and pgvector declares an assignment cast from
// real[] to vector, so the same statement fills both (pgvector checks the
// dimension of a vector(n) column itself). Rows whose embedding someone else
// filled meanwhile are left alone.
func write(ctx context.Context, q db.Querier, user uuid.UUID, o Options, cands []candidate, vecs [][]float32) (int, error) {
	var n int
	err := db.InTx(ctx, q, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE helix_embed_in (id uuid PRIMARY KEY, embedding real[] NOT NULL) ON COMMIT DROP`); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"helix_embed_in"}, []string{"id", "embedding"},
			pgx.CopyFromSlice(len(cands), func(i int) ([]any, error) { return []any{cands[i].id, vecs[i]}, nil })); err != nil {
			return fmt.Errorf("copy embeddings: %w", err)
		}
		tag, err := tx.Exec(ctx, `UPDATE memories m SET embedding = i.embedding, embedding_model = $2, embedding_dim = $4
			FROM helix_embed_in i WHERE m.id = i.id AND m.user_id = $1 AND `+pendingSQL("m", "$2", "$3"),
			user, o.Model, o.Reembed, len(vecs[0]))
		if err != nil {
			return fmt.Errorf("write embeddings: %w", err)
		}
		n = int(tag.RowsAffected())
		if o.Complete != nil {
			return o.Complete(ctx, tx)
		}
		return nil
	})
	return n, err
}
