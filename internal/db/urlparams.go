package db

import (
	"fmt"
	"strings"
)

// ParseOptions reads libpq's options parameter (?options=… or PGOPTIONS):
// command-line switches for the server, whitespace-separated, a backslash
// escaping the next character. Only the switches that set a setting are
// taken, "-c NAME=VALUE" (or "-cNAME=VALUE") and "--NAME=VALUE", with
// dashes in NAME read as underscores as the server reads them; helix then
// sets them like any other setting of the URL, after connecting (a pooler
// refuses the options startup parameter). Any other switch is an error
// naming it.
func ParseOptions(s string) (map[string]string, error) {
	var words []string
	var w strings.Builder
	inWord, escaped := false, false
	for _, r := range s {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped = false
		case r == '\\':
			escaped, inWord = true, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	out := map[string]string{}
	for i := 0; i < len(words); i++ {
		word := words[i]
		var kv string
		switch {
		case word == "-c":
			if i+1 == len(words) {
				return nil, fmt.Errorf("options: -c without NAME=VALUE")
			}
			i++
			kv = words[i]
		case strings.HasPrefix(word, "--"):
			kv = word[2:]
		case strings.HasPrefix(word, "-c"):
			kv = word[2:]
		default:
			return nil, fmt.Errorf("options: %q is not a setting (helix takes -c NAME=VALUE and --NAME=VALUE only)", word)
		}
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("options: %q is not NAME=VALUE", kv)
		}
		out[strings.ReplaceAll(name, "-", "_")] = value
	}
	return out, nil
}

// checkExecMode judges the URL's default_query_exec_mode ("" when it sets
// none) for the path: helix's statements send uuid[] and json parameters,
// which only the modes that ask the server for each statement's
// description encode as the server expects (exec and simple_protocol fail
// on them), and through a transaction pooler no named statement may be
// prepared (cache_statement: 42P05 between clients).
func checkExecMode(mode string, p Path, where string) error {
	switch mode {
	case "", "cache_describe", "describe_exec":
		return nil
	case "exec", "simple_protocol":
		return fmt.Errorf("the database URL%s sets default_query_exec_mode=%s, which helix cannot use: its statements send uuid[] and json parameters that need the server's description of each statement: remove it from the URL (or use cache_describe or describe_exec)", where, mode)
	case "cache_statement":
		if p == PathTransaction {
			return fmt.Errorf("the database URL%s sets default_query_exec_mode=cache_statement, which prepares named statements: through a transaction pooler they collide between clients (SQLSTATE 42P05): remove it from the URL (helix uses cache_describe there) or use the session pooler or direct URL", where)
		}
		return nil
	}
	return fmt.Errorf("the database URL%s sets default_query_exec_mode=%s: not one of cache_statement, cache_describe, describe_exec", where, mode)
}
