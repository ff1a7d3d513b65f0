// Package tableprinter prints rows as an aligned table for people on a
// terminal, and as tab-separated values without a header for programs.
package tableprinter

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/helixhq/helix/internal/safetext"
)

// Printer collects rows and renders them.
type Printer struct {
	w      io.Writer
	tty    bool
	header []string
	rows   [][]string
}

// New returns a printer; tty selects the human form.
func New(w io.Writer, tty bool) *Printer { return &Printer{w: w, tty: tty} }

// Header sets the column names (shown on a terminal only).
func (p *Printer) Header(cols ...string) { p.header = cols }

// Row adds one row.
func (p *Printer) Row(fields ...string) { p.rows = append(p.rows, fields) }

// Render writes the table.
func (p *Printer) Render() error {
	if !p.tty {
		for _, r := range p.rows {
			clean := make([]string, len(r))
			for i, f := range r {
				clean[i] = safetext.Line(strings.NewReplacer("\t", " ", "\n", " ").Replace(f))
			}
			if _, err := fmt.Fprintln(p.w, strings.Join(clean, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	if len(p.header) > 0 {
		fmt.Fprintln(tw, strings.Join(p.header, "\t"))
	}
	for _, r := range p.rows {
		clean := make([]string, len(r))
		for i, f := range r {
			clean[i] = safetext.Line(f) // cells are often outside text: shown, never interpreted
		}
		fmt.Fprintln(tw, strings.Join(clean, "\t"))
	}
	return tw.Flush()
}
