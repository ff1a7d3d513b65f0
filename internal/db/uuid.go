package db

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

// uuid.UUID, the type of every id helix holds, is a database/sql Valuer
// and Scanner whose values are text, and pgx prefers those to its own uuid
// plans: each id sent was formatted and parsed back (after plans tried and
// failed, an error built each time), each id read was formatted, copied
// and parsed. A synthesize --all-users of 1,000 × 100 users did that
// 200,000 times reading and as often writing: a third of its allocations
// (issue 50). registerUUID gives a connection's type map a uuid codec that
// sends and reads uuid.UUID's 16 bytes in the binary format as they are,
// for ids and for arrays of them; the text format (the simple protocol)
// goes on as before.
func registerUUID(m *pgtype.Map) {
	t := &pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: uuidCodec{}}
	m.RegisterType(t)
	m.RegisterType(&pgtype.Type{Name: "_uuid", OID: pgtype.UUIDArrayOID, Codec: &pgtype.ArrayCodec{ElementType: t}})
}

type uuidCodec struct{ pgtype.UUIDCodec }

func (c uuidCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(uuid.UUID); ok && format == pgtype.BinaryFormatCode {
		return encodeUUID{}
	}
	return c.UUIDCodec.PlanEncode(m, oid, format, value)
}

func (c uuidCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if _, ok := target.(*uuid.UUID); ok && format == pgtype.BinaryFormatCode {
		return scanUUID{}
	}
	return c.UUIDCodec.PlanScan(m, oid, format, target)
}

type encodeUUID struct{}

func (encodeUUID) Encode(value any, buf []byte) ([]byte, error) {
	u := value.(uuid.UUID)
	return append(buf, u[:]...), nil
}

type scanUUID struct{}

// Scan copies the 16 bytes; NULL leaves dst as it is, as uuid.UUID's own
// Scan does.
func (scanUUID) Scan(src []byte, dst any) error {
	if src == nil {
		return nil
	}
	if len(src) != 16 {
		return fmt.Errorf("invalid length for uuid: %d bytes", len(src))
	}
	copy(dst.(*uuid.UUID)[:], src)
	return nil
}
