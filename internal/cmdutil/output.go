package cmdutil

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/helixhq/helix/internal/iostreams"
)

// WriteJSON is the one printer of -o json results: v as one JSON document
// followed by a newline — on one line when w is not a terminal, so a program
// reads stdout a line at a time as it reads stderr; indented for a person at
// a terminal (iostreams.IsTerminal), as gh does.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	if iostreams.IsTerminal(w) {
		enc.SetIndent("", "  ")
	}
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// ValidateOutput checks the --output value.
func ValidateOutput(v string) error {
	switch v {
	case "text", "json":
		return nil
	}
	return FlagErrorf("invalid --output %q: use text or json", v)
}

// FormatTime renders a time for people and programs alike (RFC 3339, UTC).
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// Fprintf writes and ignores the error: for stderr status lines only.
func Fprintf(w io.Writer, format string, args ...any) {
	_, _ = fmt.Fprintf(w, format, args...)
}
