package db_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/helixhq/helix/internal/pgtest"
)

// TestUUIDCodec: uuid.UUID goes to and from the server as its 16 bytes
// (not through its text form): alone, in arrays, NULL (a *uuid.UUID left
// as it was, a **uuid.UUID set nil, as before), in the binary format and,
// through the simple protocol, in the text format; and what the server
// makes of it is the same uuid.
func TestUUIDCodec(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openConn(t, pgtest.URL(t))
	a, b := uuid.New(), uuid.New()
	m := c.Conn().TypeMap()
	enc, scan := m.PlanEncode(pgtype.UUIDOID, pgtype.BinaryFormatCode, a), m.PlanScan(pgtype.UUIDOID, pgtype.BinaryFormatCode, &a)
	if fmt.Sprintf("%T %T", enc, scan) != "db.encodeUUID db.scanUUID" {
		t.Fatalf("uuid.UUID planned as %T and %T, not as its 16 bytes", enc, scan)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		var text string
		var got uuid.UUID
		var list []uuid.UUID
		// pgx's simple protocol sends no []uuid.UUID (with its own codec or this one)
		var ids any = []string{a.String(), b.String()}
		if mode != pgx.QueryExecModeSimpleProtocol {
			ids = []uuid.UUID{a, b}
		}
		if err := c.QueryRow(ctx, `SELECT $1::uuid::text, $1::uuid, $2::uuid[]`, mode, a, ids).Scan(&text, &got, &list); err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		if text != a.String() || got != a || !slices.Equal(list, []uuid.UUID{a, b}) {
			t.Fatalf("%v: %s, %s, %v; want %s, %s, [%s %s]", mode, text, got, list, a, a, a, b)
		}
		kept, set := b, &b
		if err := c.QueryRow(ctx, `SELECT NULL::uuid, NULL::uuid`, mode).Scan(&kept, &set); err != nil {
			t.Fatalf("%v: NULL: %v", mode, err)
		}
		if kept != b || set != nil {
			t.Fatalf("%v: NULL scanned as %s and %v, want %s left as it was and nil", mode, kept, set, b)
		}
	}
}
