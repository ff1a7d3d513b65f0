package db

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// sslModes are the values libpq and pgx take for sslmode.
var sslModes = []string{"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}

// CheckURL says what is wrong with a database URL, naming the faulty part
// (the scheme, the port, a parameter) and never the password; nil when
// pgx can parse it. The caller adds where the URL came from.
func CheckURL(raw string) error {
	s := strings.TrimSpace(raw)
	scheme, _, isURL := strings.Cut(s, "://")
	switch {
	case !isURL && !strings.Contains(s, "="):
		return errors.New("not a URL: expected postgres://USER@HOST:PORT/DATABASE?sslmode=MODE (or key=value pairs)")
	case isURL && scheme != "postgres" && scheme != "postgresql":
		return fmt.Errorf("scheme %q is not PostgreSQL's: the URL starts with postgres://", scheme)
	case isURL:
		u, err := url.Parse(s)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // without the URL, which may hold the password
			}
			return fmt.Errorf("not a valid URL: %v", err)
		}
		for _, h := range strings.Split(u.Host, ",") {
			if i := strings.LastIndex(h, ":"); i >= 0 && !strings.HasSuffix(h, "]") {
				p := h[i+1:]
				if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
					return fmt.Errorf("port %q is not a port number (1-65535)", p)
				}
			}
		}
		if m := u.Query().Get("sslmode"); m != "" && !contains(sslModes, m) {
			return fmt.Errorf("sslmode %q is not one of %s", m, strings.Join(sslModes, ", "))
		}
	}
	if _, err := pgconn.ParseConfig(s); err != nil {
		msg := err.Error()
		var pe *pgconn.ParseConfigError
		if errors.As(err, &pe) {
			// pgx quotes the whole string first; keep what follows it
			if i := strings.Index(msg, "`: "); i >= 0 {
				msg = msg[i+3:]
			}
			if i := strings.Index(msg, " (parse "); i >= 0 {
				msg = msg[:i] // net/url's error quotes the URL again
			}
		}
		return errors.New(msg)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
