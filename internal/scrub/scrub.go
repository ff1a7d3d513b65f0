// Package scrub removes secrets and personal identifiers from text before it
// leaves the machine: emails, phone numbers, card numbers, API keys and
// tokens, and other high-entropy strings, each replaced by a marker and counted.
package scrub

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"sync"
)

// Markers that replace what was found. They hold brackets, which none of the
// patterns match, so scrubbing scrubbed text finds nothing more.
const (
	EmailMarker  = "[EMAIL]"
	PhoneMarker  = "[PHONE]"
	CardMarker   = "[CARD]"
	KeyMarker    = "[KEY]"
	SecretMarker = "[SECRET]"
)

// Counts says how many of each kind Text replaced.
type Counts struct {
	Emails  int `json:"emails"`
	Phones  int `json:"phones"`
	Cards   int `json:"cards"`
	Keys    int `json:"keys"`    // API keys and tokens recognised by their prefix or shape
	Secrets int `json:"secrets"` // other high-entropy strings
}

// Total is the number of replacements of every kind.
func (c Counts) Total() int { return c.Emails + c.Phones + c.Cards + c.Keys + c.Secrets }

// Add returns the sum of c and o.
func (c Counts) Add(o Counts) Counts {
	return Counts{c.Emails + o.Emails, c.Phones + o.Phones, c.Cards + o.Cards, c.Keys + o.Keys, c.Secrets + o.Secrets}
}

// MinEntropyLen and MinEntropy decide what is a high-entropy string: a run of
// token characters at least MinEntropyLen long whose Shannon entropy is at
// least MinEntropy bits per character, and that mixes letters and digits.
const (
	MinEntropyLen = 20
	MinEntropy    = 3.8
)

// keyRes are API keys and tokens by their documented prefixes and shapes,
// longest prefixes first so that sk-ant- is not taken for an OpenAI sk- key.
var keyRes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.Join([]string{
		`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`,
		`\bsk-ant-[A-Za-z0-9_-]{16,}`,                                     // Anthropic
		`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`,               // OpenAI
		`\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`,                   // Stripe
		`\bgh[pousr]_[A-Za-z0-9]{30,}`,                                    // GitHub
		`\bgithub_pat_[A-Za-z0-9_]{30,}`,                                  // GitHub fine-grained
		`\bglpat-[A-Za-z0-9_-]{20,}`,                                      // GitLab
		`\bxox[abposr]-[A-Za-z0-9-]{10,}`,                                 // Slack
		`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,                                   // AWS access key id
		`\bAIza[0-9A-Za-z_-]{35}`,                                         // Google API key
		`\bhf_[A-Za-z0-9]{30,}`,                                           // Hugging Face
		`\bnpm_[A-Za-z0-9]{36}`,                                           // npm
		`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, // JWT
		`(?i:\bbearer\s+)[A-Za-z0-9._~+/-]{16,}=*`,                        // Authorization header value
	}, "|"))
})

var (
	emailRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	})
	// digitRunRe finds runs of digit groups joined by single spaces or
	// dashes; cards finds the Luhn-valid numbers in them.
	digitRunRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b\d+(?:[ -]\d+)*\b`) })
	// phoneRe finds candidates; phoneShape decides.
	phoneRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:\+|\(|\b)\d[\d ().-]{5,22}\d\b`) })
	nanpRe  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[ .-]?)\d{3}[ .-]?\d{4}$`)
	})
	natRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^0\d{1,4}[ -]?\d{3,4}[ -]?\d{3,4}$`) })
	tokenRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z0-9+/=_.~-]{20,}`) })
)

// Text returns s with every secret and identifier replaced by its marker,
// and how many of each it replaced.
func Text(s string) (string, Counts) {
	var c Counts
	s = keyRes().ReplaceAllStringFunc(s, func(m string) string {
		c.Keys++
		return KeyMarker
	})
	s = emailRe().ReplaceAllStringFunc(s, func(m string) string {
		c.Emails++
		return EmailMarker
	})
	s = digitRunRe().ReplaceAllStringFunc(s, func(m string) string {
		out, n := cards(m)
		c.Cards += n
		return out
	})
	s = phoneRe().ReplaceAllStringFunc(s, func(m string) string {
		if !phoneShape(m) {
			return m
		}
		c.Phones++
		return PhoneMarker
	})
	s = tokenRe().ReplaceAllStringFunc(s, func(m string) string {
		if !highEntropy(m) {
			return m
		}
		c.Secrets++
		return SecretMarker
	})
	return s, c
}

func digits(s string) []byte {
	d := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			d = append(d, s[i]-'0')
		}
	}
	return d
}

// cards replaces the card numbers in a run of digit groups. A card is a
// span of whole groups holding 13–19 digits, not starting with 0 (no
// issuer does), that passes the Luhn check; the
// leftmost, then longest, span wins, and the search goes on after it. Whole
// groups only, so that one pass finds everything a second pass would.
func cards(run string) (string, int) {
	type group struct{ start, end int }
	var gs []group
	for i := 0; i < len(run); {
		j := i
		for j < len(run) && run[j] >= '0' && run[j] <= '9' {
			j++
		}
		gs = append(gs, group{i, j})
		i = j + 1 // skip the one separator
	}
	var b strings.Builder
	n, last := 0, 0
	for i := 0; i < len(gs); i++ {
		best := -1
		for j, d := i, 0; j < len(gs); j++ {
			d += gs[j].end - gs[j].start
			if d > 19 {
				break
			}
			if d >= 13 && run[gs[i].start] != '0' && luhn(run[gs[i].start:gs[j].end]) {
				best = j
			}
		}
		if best < 0 {
			continue
		}
		b.WriteString(run[last:gs[i].start])
		b.WriteString(CardMarker)
		last = gs[best].end
		n++
		i = best
	}
	if n == 0 {
		return run, 0
	}
	b.WriteString(run[last:])
	return b.String(), n
}

func luhn(s string) bool {
	d := digits(s)
	if len(d) < 13 || len(d) > 19 {
		return false
	}
	sum := 0
	for i := range d {
		x := int(d[len(d)-1-i])
		if i%2 == 1 {
			x *= 2
			if x > 9 {
				x -= 9
			}
		}
		sum += x
	}
	return sum%10 == 0
}

// phoneShape accepts international numbers (+ and 8–15 digits), North
// American numbers and trunk-prefixed national numbers (0…), and rejects
// dates, times, versions and plain counts, which share the digits.
func phoneShape(m string) bool {
	n := len(digits(m))
	if strings.HasPrefix(m, "+") {
		return n >= 8 && n <= 15 && !strings.Contains(m, "..")
	}
	return nanpRe().MatchString(m) || natRe().MatchString(m)
}

func highEntropy(m string) bool {
	var letter, digit bool
	for i := 0; i < len(m); i++ {
		b := m[i]
		switch {
		case b >= '0' && b <= '9':
			digit = true
		case b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z':
			letter = true
		}
	}
	if !letter || !digit {
		return false
	}
	return Entropy(m) >= MinEntropy
}

// Entropy is the Shannon entropy of s's bytes in bits per byte.
func Entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var freq [256]int
	for i := 0; i < len(s); i++ {
		freq[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, f := range freq {
		if f > 0 {
			p := float64(f) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// JSON scrubs the strings of a JSON document (keys and values), leaving its
// structure, numbers and literals alone, so that the result is still the same
// kind of document: a marker never lands outside a string. b that is not
// JSON is scrubbed as text, with ok false.
func JSON(b []byte) (out []byte, c Counts, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		s, c := Text(string(b))
		return []byte(s), c, false
	}
	v = walk(v, &c)
	if c.Total() == 0 {
		return b, c, true
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s, c := Text(string(b))
		return []byte(s), c, false
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), c, true
}

func walk(v any, c *Counts) any {
	switch t := v.(type) {
	case string:
		s, n := Text(t)
		*c = c.Add(n)
		return s
	case []any:
		for i := range t {
			t[i] = walk(t[i], c)
		}
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			k2, n := Text(k)
			*c = c.Add(n)
			out[k2] = walk(e, c)
		}
		return out
	}
	return v
}
