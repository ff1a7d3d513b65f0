package redact

import (
	"bytes"
	"errors"
	"io/fs"
	"testing"
)

func TestRedact(t *testing.T) {
	Reset()
	defer Reset()
	if String("nothing registered") != "nothing registered" {
		t.Fatal("changed text with no secret")
	}
	Add("abc", "s3cr/et+key", "")
	cases := map[string]string{
		"Bearer s3cr/et+key":                    "Bearer [REDACTED]",
		"url s3cr%2Fet%2Bkey and s3cr%2Fet+key": "url [REDACTED] and [REDACTED]",
		`{"auth":"s3cr\/et+key"}`:               `{"auth":"[REDACTED]"}`,
		"basic czNjci9ldCtrZXk=":                "basic [REDACTED]",
		"abc is shorter than MinLen and stays":  "abc is shorter than MinLen and stays",
		"twice: s3cr/et+key s3cr/et+key":        "twice: [REDACTED] [REDACTED]",
	}
	for in, want := range cases {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	err := Error(&fs.PathError{Op: "open", Path: "s3cr/et+key", Err: fs.ErrNotExist})
	if err.Error() != "open [REDACTED]: file does not exist" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Error: %v", err)
	}
	var b bytes.Buffer
	if n, err := Writer(&b).Write([]byte("key=s3cr/et+key\n")); n != 16 || err != nil || b.String() != "key=[REDACTED]\n" {
		t.Errorf("Writer: %d %v %q", n, err, b.String())
	}
}
