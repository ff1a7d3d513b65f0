package scrub

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTextPlantedSecrets(t *testing.T) {
	cases := []struct {
		name, secret, marker string
		want                 Counts
	}{
		{"email", "jane.doe+work@example.co.uk", EmailMarker, Counts{Emails: 1}},
		{"phone international", "+44 20 7946 0958", PhoneMarker, Counts{Phones: 1}},
		{"phone nanp", "(415) 555-0132", PhoneMarker, Counts{Phones: 1}},
		{"phone nanp dashes", "415-555-0132", PhoneMarker, Counts{Phones: 1}},
		{"phone national", "020 7946 0958", PhoneMarker, Counts{Phones: 1}},
		{"card spaced", "4111 1111 1111 1111", CardMarker, Counts{Cards: 1}},
		{"card dashed", "5500-0000-0000-0004", CardMarker, Counts{Cards: 1}},
		{"card plain amex", "378282246310005", CardMarker, Counts{Cards: 1}},
		{"anthropic key", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", KeyMarker, Counts{Keys: 1}},
		{"openai key", "sk-proj-abcdefghijklmnopqrstuvwxyz012345", KeyMarker, Counts{Keys: 1}},
		{"github token", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123", KeyMarker, Counts{Keys: 1}},
		{"aws key id", "AKIAIOSFODNN7EXAMPLE", KeyMarker, Counts{Keys: 1}},
		{"slack token", "xoxb-123456789012-abcdefghijkl", KeyMarker, Counts{Keys: 1}},
		{"stripe key", "sk_live_abcdefghijklmnop1234", KeyMarker, Counts{Keys: 1}},
		{"google key", "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", KeyMarker, Counts{Keys: 1}},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", KeyMarker, Counts{Keys: 1}},
		{"bearer", "Bearer abcdef0123456789ABCDEF", KeyMarker, Counts{Keys: 1}},
		{"private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----", KeyMarker, Counts{Keys: 1}},
		{"high entropy", "q8Zr3Lp0Vx7Nw2Ks9Ty4Hm6Bd1", SecretMarker, Counts{Secrets: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := "before " + c.secret + " after."
			got, n := Text(in)
			if want := "before " + c.marker + " after."; got != want {
				t.Errorf("Text(%q) = %q, want %q", in, got, want)
			}
			if n != c.want {
				t.Errorf("counts = %+v, want %+v", n, c.want)
			}
			if strings.Contains(got, c.secret) {
				t.Errorf("secret survived: %q", got)
			}
		})
	}
}

func TestTextLeavesOrdinaryProse(t *testing.T) {
	for _, s := range []string{
		"I walked to the harbour on Sunday and felt calmer than I have in weeks.",
		"Meeting moved to 2024-01-15 at 10:30; version 1.2.3 shipped, 42 people came.",
		"Antidisestablishmentarianism is a long word, and so is internationalization.",
		"Order #12345 cost $1,299.99 on 12/03/2025.",
		"state-of-the-art-machine-learning-pipelines are overrated",
		"",
	} {
		got, n := Text(s)
		if got != s || n.Total() != 0 {
			t.Errorf("Text(%q) = %q, %+v; want it unchanged", s, got, n)
		}
	}
}

func TestTextInvalidLuhnKept(t *testing.T) {
	s := "ticket 4111 1111 1111 1112 is not a card"
	if got, n := Text(s); got != s || n.Cards != 0 {
		t.Errorf("Text(%q) = %q, %+v", s, got, n)
	}
}

func TestTextCountsSeveral(t *testing.T) {
	s := "mail a@b.io and c@d.org, call +1 415 555 0132, key sk-ant-api03-0123456789abcdefABCDEF"
	got, n := Text(s)
	want := Counts{Emails: 2, Phones: 1, Keys: 1}
	if n != want {
		t.Fatalf("counts = %+v, want %+v (%q)", n, want, got)
	}
	if n.Total() != 4 || n.Add(n).Emails != 4 {
		t.Errorf("Total/Add wrong: %+v", n)
	}
}

func TestEntropy(t *testing.T) {
	if e := Entropy("aaaa"); e != 0 {
		t.Errorf("Entropy(aaaa) = %v", e)
	}
	if e := Entropy("abcd"); e != 2 {
		t.Errorf("Entropy(abcd) = %v", e)
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{
		"plain words only",
		"jane@example.com +44 20 7946 0958 4111 1111 1111 1111",
		"sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 q8Zr3Lp0Vx7Nw2Ks9Ty4Hm6Bd1",
		"Bearer abcdef0123456789ABCDEF (415) 555-0132",
		"-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----",
		"\xff\xfe invalid utf8 4111111111111111",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, n := Text(s)
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Text made invalid UTF-8 of %q: %q", s, got)
		}
		markers := strings.Count(got, EmailMarker) + strings.Count(got, PhoneMarker) + strings.Count(got, CardMarker) +
			strings.Count(got, KeyMarker) + strings.Count(got, SecretMarker) -
			(strings.Count(s, EmailMarker) + strings.Count(s, PhoneMarker) + strings.Count(s, CardMarker) +
				strings.Count(s, KeyMarker) + strings.Count(s, SecretMarker))
		if markers > n.Total() {
			t.Fatalf("%d new markers but counts say %d: %q -> %q", markers, n.Total(), s, got)
		}
		if n.Total() == 0 && got != s {
			t.Fatalf("changed %q to %q without counting", s, got)
		}
		// One pass is enough: what it left holds nothing it would replace.
		if again, m := Text(got); m.Total() != 0 {
			t.Fatalf("second pass found %+v in %q (from %q): %q", m, got, s, again)
		}
	})
}

func TestJSONKeepsStructure(t *testing.T) {
	in := `{"a":"mail ann@example.com","n":4111111111111111,"list":["sk-ant-abcdefghijklmnopqrstuv",1.50,null,true],"ann@example.com":"k"}`
	out, c, ok := JSON([]byte(in))
	if !ok || c.Emails != 2 || c.Keys != 1 || c.Cards != 0 {
		t.Fatalf("%s %+v %v", out, c, ok)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("not JSON any more: %s", out)
	}
	if !strings.Contains(string(out), `4111111111111111`) || !strings.Contains(string(out), `1.50`) || !strings.Contains(string(out), `"[EMAIL]":"k"`) {
		t.Errorf("numbers or keys changed: %s", out)
	}
	if out, _, ok := JSON([]byte("not json ann@example.com")); ok || string(out) != "not json [EMAIL]" {
		t.Errorf("text: %s %v", out, ok)
	}
	if out, c, _ := JSON([]byte(`{"clean": 1}`)); string(out) != `{"clean": 1}` || c.Total() != 0 {
		t.Errorf("clean JSON is kept byte for byte: %s", out)
	}
}

func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"a":"ann@example.com","b":[1,"sk-ant-abcdefghijklmnopqrstuv"]}`))
	f.Add([]byte(`"4111 1111 1111 1111"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, _, ok := JSON(b)
		if ok && !json.Valid(out) {
			t.Fatalf("JSON in, not JSON out: %q -> %q", b, out)
		}
		if again, c, _ := JSON(out); ok && c.Total() != 0 {
			t.Fatalf("scrubbing twice found more: %q -> %q", out, again)
		}
	})
}
