package db

import (
	"net/url"
	"sort"
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:pw@127.0.0.1:5432/x?sslmode=disable": "",
		"postgresql://u@h/x":                      "",
		"host=h port=5432 dbname=x":               "",
		"postgres://u:pw@127.0.0.1:99999/x":       `port "99999" is not a port number (1-65535)`,
		"postgres://u@h:0/x":                      `port "0" is not a port number`,
		"postgres://u@h/x?sslmode=bogus":          `sslmode "bogus" is not one of disable, allow, prefer, require, verify-ca, verify-full`,
		"mysql://u:pw@h/db":                       `scheme "mysql" is not PostgreSQL's`,
		"not a url":                               "not a URL",
		"postgres://u:pw@h/x%zz":                  `not a valid URL: invalid URL escape "%zz"`,
		"postgres://u:pw@h/x?connect_timeout=abc": "invalid connect_timeout",
	} {
		err := CheckURL(in)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", in, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want %q", in, err, want)
		case err != nil && strings.Contains(err.Error(), "pw"):
			t.Errorf("%q: the message shows the password: %v", in, err)
		}
	}
}

// FuzzCheckURL: any setting value is judged without a panic, and the
// message never quotes the URL's user:password@.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"postgres://u:secretpw@h:5432/x?sslmode=disable", "postgres://u:secretpw@h:99999/x",
		"mysql://u:secretpw@h/x", "host=h password=secretpw port=x", "postgres://u:secretpw@[::1/x", "not a url"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckURL(s)
		if err == nil {
			return
		}
		if u, perr := url.Parse(s); perr == nil {
			// the URL's userinfo quoted back is the leak to look for (a
			// password may also be a word the message uses by chance)
			if pw, ok := u.User.Password(); ok && pw != "" && strings.Contains(err.Error(), u.User.Username()+":"+pw+"@") {
				t.Errorf("%q: the message shows the password: %v", s, err)
			}
		}
	})
}

func TestParseOptions(t *testing.T) {
	for in, want := range map[string]string{
		`-c a=1 --b-c=2 -cd=x\ y`: "a=1 b_c=2 d=x y",
		`  -c   a=  `:             "a=",
		``:                        "",
		`-B 128`:                  `error: options: "-B" is not a setting`,
		`-c`:                      "error: options: -c without NAME=VALUE",
		`-c a`:                    `error: options: "a" is not NAME=VALUE`,
	} {
		got, err := ParseOptions(in)
		var s string
		if err != nil {
			s = "error: " + err.Error()
		} else {
			var kv []string
			for k, v := range got {
				kv = append(kv, k+"="+v)
			}
			sort.Strings(kv)
			s = strings.Join(kv, " ")
		}
		if !strings.HasPrefix(s, want) {
			t.Errorf("ParseOptions(%q) = %q, want %q", in, s, want)
		}
	}
}

// FuzzParseOptions: any options string is read without a panic; what it
// returns has names without dashes or '=', and an empty string yields nothing.
func FuzzParseOptions(f *testing.F) {
	for _, s := range []string{`-c a=1`, `--work-mem=64MB -c search_path=a,b`, `-c x=a\ b`, `-B 1`, `\`, `-c`, "-c\ta=\\\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseOptions(s)
		if err != nil {
			return
		}
		for k := range got {
			if k == "" || strings.ContainsAny(k, "-=") {
				t.Errorf("%q: setting name %q", s, k)
			}
		}
		if strings.TrimSpace(s) == "" && len(got) > 0 {
			t.Errorf("%q: %v from nothing", s, got)
		}
	})
}
