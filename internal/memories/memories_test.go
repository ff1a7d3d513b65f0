package memories

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
)

var now = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func TestDerivedIDsAreStable(t *testing.T) {
	in := `{"user_id":"11111111-1111-4111-8111-111111111111","type":"semantic","content":"Lisbon has trams","created_at":"2026-10-01T07:00:00Z"}`
	a, err := Parse(strings.NewReader(in), now)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(strings.NewReader(in), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if a[0].ID != b[0].ID {
		t.Fatalf("same line, different ids: %s %s", a[0].ID, b[0].ID)
	}
	c, _ := Parse(strings.NewReader(strings.Replace(in, "trams", "hills", 1)), now)
	if c[0].ID == a[0].ID {
		t.Fatal("different content, same id")
	}
	if !a[0].CreatedAt.Equal(time.Date(2026, 10, 1, 7, 0, 0, 0, time.UTC)) {
		t.Fatalf("created_at = %v", a[0].CreatedAt)
	}
}

func TestMissingCreatedAtIsNow(t *testing.T) {
	ms, err := Parse(strings.NewReader(`{"user_id":"11111111-1111-4111-8111-111111111111","type":"episodic","content":"x"}`), now)
	if err != nil || !ms[0].CreatedAt.Equal(now) {
		t.Fatalf("%v %v", ms, err)
	}
}

func TestInsertInsideCallersTransaction(t *testing.T) {
	tx := pgtest.Tx(t)
	ctx := context.Background()
	ms, err := Parse(strings.NewReader(
		`{"id":"aaaaaaaa-1111-4111-8111-111111111111","user_id":"11111111-1111-4111-8111-111111111111","type":"episodic","content":"a","embedding":[0.5,-0.25],"emotional_valence":-0.5}
{"user_id":"11111111-1111-4111-8111-111111111111","type":"procedural","content":"b"}
{"user_id":"11111111-1111-4111-8111-111111111111","type":"procedural","content":"b"}`), now)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Insert(ctx, tx, ms)
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != 2 || res.Inserted != 2 || res.Existing != 0 {
		t.Fatalf("result %+v", res)
	}

	var emb []float32
	var val float32
	if err := tx.QueryRow(ctx, `SELECT embedding, emotional_valence FROM memories WHERE id = 'aaaaaaaa-1111-4111-8111-111111111111'`).Scan(&emb, &val); err != nil {
		t.Fatal(err)
	}
	if len(emb) != 2 || emb[0] != 0.5 || emb[1] != -0.25 || val != -0.5 {
		t.Fatalf("stored embedding %v valence %v", emb, val)
	}
}

const u1 = `"user_id":"11111111-1111-4111-8111-111111111111","type":"episodic"`

// Issue 22, findings 4 and 5: text PostgreSQL cannot store, text a decoder
// would rewrite, and one id on two lines are refused naming the line(s).
func TestParseRefuses(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"NUL escape", "{" + u1 + `,"content":"a\u0000b"}`, `line 1: column 81: escape \u0000 is a NUL character`},
		{"lone high surrogate", "\n{" + u1 + `,"content":"x \ud83d y"}`, `line 2: column 82: escape \ud83d is a lone UTF-16 high surrogate`},
		{"lone low surrogate", "{" + u1 + `,"content":"\udc00"}`, `line 1: column 80: escape \udc00 is a lone UTF-16 low surrogate`},
		{"invalid UTF-8", "{" + u1 + ",\"content\":\"caf\xe9\"}", "line 1: column 83: invalid UTF-8 (byte 0xe9)"},
		{"same id, different content",
			`{"id":"aaaaaaaa-1111-4111-8111-111111111111",` + u1 + `,"content":"first"}` + "\n\n" +
				`{"id":"aaaaaaaa-1111-4111-8111-111111111111",` + u1 + `,"content":"second"}`,
			"line 3: id aaaaaaaa-1111-4111-8111-111111111111 is also the id of line 1, with different data"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms, err := Parse(strings.NewReader(c.in), now)
			var le *LineError
			if !errors.As(err, &le) || err.Error()[:len(c.want)] != c.want {
				t.Fatalf("got %v (%d memories), want %q", err, len(ms), c.want)
			}
		})
	}
}

func TestParseKeepsText(t *testing.T) {
	in := "{" + u1 + `,"content":"pair \ud83d\ude00, escaped \\u0000, é"}`
	ms, err := Parse(strings.NewReader(in), now)
	if err != nil || ms[0].Content != "pair 😀, escaped \\u0000, é" {
		t.Fatalf("%+v %v", ms, err)
	}
	// A repeated line is one memory.
	ms, err = Parse(strings.NewReader(in+"\n"+in), now)
	if err != nil || len(ms) != 1 {
		t.Fatalf("repeated line: %d memories, %v", len(ms), err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("{" + u1 + `,"content":"x","embedding":[0.5],"emotional_valence":0.2}`))
	f.Add([]byte("{" + u1 + `,"content":"\ud800"}` + "\n{}"))
	if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "memories.jsonl")); err == nil {
		f.Add(b[:min(len(b), 4000)])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := Parse(bytes.NewReader(b), now)
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		ids := map[uuid.UUID]bool{}
		for _, m := range ms {
			if !utf8.ValidString(m.Content) || strings.ContainsRune(m.Content, 0) || ids[m.ID] {
				t.Fatalf("accepted %q", m.Content)
			}
			ids[m.ID] = true
		}
	})
}
