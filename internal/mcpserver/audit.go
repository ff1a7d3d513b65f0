package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/redact"
	"github.com/helixhq/helix/internal/search"
)

// Statuses of helix_memory_search_calls.
const (
	SearchOK           = "ok"
	SearchError        = "error"
	SearchInvalidInput = "invalid_input"
	SearchInterrupted  = "interrupted"
)

// searchCall is one helix_memory_search_calls row. The query is kept as its
// SHA-256 only (migration 00195 says why).
type searchCall struct {
	user          uuid.UUID
	client        string
	querySHA      string
	mode, used    string
	limit         int
	results       *int
	status, error string
	started       time.Time
}

func newSearchCall(user uuid.UUID, client string, in MemorySearchInput) *searchCall {
	sum := sha256.Sum256([]byte(in.Query))
	c := &searchCall{user: user, client: client, querySHA: hex.EncodeToString(sum[:]), mode: in.Mode, limit: in.Limit, started: time.Now()}
	if c.mode == "" {
		c.mode = search.Hybrid
	}
	if len(c.mode) > 32 { // a refused mode is the caller's text: kept short
		c.mode = c.mode[:32]
	}
	if c.limit == 0 {
		c.limit = 10
	}
	return c
}

func (c *searchCall) refused(err error) *searchCall {
	c.status, c.error = SearchInvalidInput, err.Error()
	return c
}

func (c *searchCall) failed(ctx context.Context, err error) *searchCall {
	c.status, c.error = SearchError, err.Error()
	if ctx.Err() != nil {
		c.status, c.error = SearchInterrupted, "interrupted before it finished: "+context.Cause(ctx).Error()
	}
	return c
}

func (c *searchCall) done(rep *search.Report) *searchCall {
	n := len(rep.Results)
	c.status, c.used, c.results = SearchOK, rep.Mode, &n
	return c
}

// audited writes the call's row (even when ctx was cancelled) and returns
// err, or the failure to write the row.
func (s *Server) audited(ctx context.Context, c *searchCall, err error) error {
	var used, msg *string
	if c.used != "" {
		used = &c.used
	}
	if c.error != "" {
		m := redact.String(c.error)
		msg = &m
	}
	ms := float64(time.Since(c.started).Microseconds()) / 1000
	_, werr := s.o.DB.Exec(context.WithoutCancel(ctx), `
		INSERT INTO helix_memory_search_calls (user_id, client, query_sha256, mode, mode_used, result_limit, results, status, error, started_at, duration_ms)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		c.user, c.client, c.querySHA, c.mode, used, c.limit, c.results, c.status, msg, c.started, ms)
	if werr != nil {
		return errors.Join(err, fmt.Errorf("record the memory_search call: %w", werr))
	}
	return err
}
