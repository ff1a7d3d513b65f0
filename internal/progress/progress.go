// Package progress reports how far a job has come: a bar on a terminal, one
// JSON line per step with --output json, a log line every so often otherwise
// (quiet under systemd, but never silent for long jobs). Always on stderr.
package progress

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Mode selects how progress is shown.
type Mode int

const (
	None Mode = iota
	Bar       // redrawn line on a terminal
	JSON      // {"progress":{...}} lines
	Log       // a slog line every Every items
)

// Reporter is safe for concurrent use.
type Reporter struct {
	mu     sync.Mutex
	w      io.Writer
	mode   Mode
	log    *slog.Logger
	label  string
	total  int
	done   int
	failed int
	every  int
	start  time.Time
	last   time.Time
}

// ChooseMode picks the mode from what stderr is and the output format.
func ChooseMode(stderrTTY, jsonOutput bool) Mode {
	switch {
	case jsonOutput:
		return JSON
	case stderrTTY:
		return Bar
	}
	return Log
}

// New starts a reporter for total items.
func New(w io.Writer, mode Mode, log *slog.Logger, label string, total int) *Reporter {
	every := max(1, total/20)
	return &Reporter{w: w, mode: mode, log: log, label: label, total: total, every: every, start: time.Now()}
}

// Step records one finished item; failed marks it as failed.
func (r *Reporter) Step(item string, failed bool) { r.StepN(item, 1, failed) }

// StepN records n items finished together (a batch): one redraw, one JSON line.
func (r *Reporter) StepN(item string, n int, failed bool) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	before := r.done
	r.done += n
	r.total = max(r.total, r.done) // an estimated total may fall short
	if failed {
		r.failed += n
	}
	switch r.mode {
	case Bar:
		if time.Since(r.last) < 100*time.Millisecond && r.done < r.total {
			return
		}
		r.last = time.Now()
		width := 30
		filled := 0
		if r.total > 0 {
			filled = width * r.done / r.total
		}
		fmt.Fprintf(r.w, "\r%s [%s%s] %d/%d", r.label, strings.Repeat("=", filled), strings.Repeat(" ", width-filled), r.done, r.total)
		if r.failed > 0 {
			fmt.Fprintf(r.w, " (%d failed)", r.failed)
		}
	case JSON:
		status := "ok"
		if failed {
			status = "failed"
		}
		b, _ := json.Marshal(map[string]any{"progress": map[string]any{
			"job": r.label, "item": item, "status": status, "done": r.done, "total": r.total, "failed": r.failed,
		}})
		fmt.Fprintf(r.w, "%s\n", b)
	case Log:
		if r.log != nil && (r.done/r.every != before/r.every || r.done == r.total) {
			r.log.Info("progress", "job", r.label, "done", r.done, "total", r.total, "failed", r.failed)
		}
	}
}

// Finish ends the bar's line.
func (r *Reporter) Finish() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mode == Bar {
		fmt.Fprintf(r.w, " %s\n", time.Since(r.start).Round(time.Millisecond))
	}
}
