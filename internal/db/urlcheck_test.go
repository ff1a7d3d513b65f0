package db

import (
	"net/url"
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
