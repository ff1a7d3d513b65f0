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

// TestOneSpelling: a value given for one call, a URL's password and a
// secret query parameter are all masked as Mask, and nothing is remembered.
func TestOneSpelling(t *testing.T) {
	Reset()
	defer Reset()
	if got := String("key tk-12345/x and tk-12345%2Fx", "tk-12345/x", "ab"); got != "key [REDACTED] and [REDACTED]" {
		t.Errorf("String with values = %q", got)
	}
	if got := String("tk-12345/x"); got != "tk-12345/x" {
		t.Errorf("a per-call value was remembered: %q", got)
	}
	secret := func(p string) bool { return p == "api_key" }
	for in, want := range map[string]string{
		"postgres://u:pw@db:5432/app?sslmode=require":    "postgres://u:[REDACTED]@db:5432/app?sslmode=require",
		"https://api.example.com/v1?api_key=k123&q=kale": "https://api.example.com/v1?api_key=[REDACTED]&q=kale",
		"postgres://u@db/app":                            "postgres://u@db/app",
		"not a url pw":                                   "not a url pw",
	} {
		if got := URL(in, secret); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
	Add("registered-secret")
	if got := URL("https://h/registered-secret", nil); got != "https://h/[REDACTED]" {
		t.Errorf("URL with a registered secret in its path = %q", got)
	}
}
