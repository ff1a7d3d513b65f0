package schedule

import (
	"time"

	"github.com/robfig/cron/v3"
)

// Fire kinds (helix_schedule_fires.kind).
const (
	KindTick    = "tick"     // an instant of the spec, fired on time
	KindCatchUp = "catch_up" // the latest missed instant, fired late (--catch-up once)
	KindRunNow  = "run_now"  // schedule run-now
)

// Catch-up policies: what a tick pass does with instants that passed while no
// worker ticked (systemd's Persistent=false and Persistent=true).
const (
	CatchUpNone = "none" // skip them
	CatchUpOnce = "once" // run the latest of them, once
)

// MinGrace is the least lateness a tick pass tolerates before it calls an
// instant missed: the workers enqueue a tick pass every TickInterval, a
// worker needs a moment to fetch it, and a loaded host a moment more (1.6 s
// seen at a load of 19 on 2 cores).
const MinGrace = 5 * time.Second

// maxSteps bounds the walk over missed instants (a year of @every 1s is 31M):
// past it the walk jumps to just before now.
const maxSteps = 100_000

// Tick is one fire a tick pass makes.
type Tick struct {
	At   time.Time
	Kind string
}

// Grace is how late an instant at may be fired and still be on time: the
// configured grace, but never more than the spec's period there (a 1-second
// schedule must not fire a minute of late ticks after a leader change) and
// never less than MinGrace.
func Grace(s cron.Schedule, at time.Time, grace time.Duration) time.Duration {
	g := grace
	if n := s.Next(at); !n.IsZero() {
		g = min(g, n.Sub(at))
	}
	return max(g, MinGrace)
}

// Due computes a tick pass for one schedule whose first unfired instant is
// next: the fires to make at now, oldest first, and the new first unfired
// instant. Instants at or before now are on time when they are at most
// Grace late; older ones were missed (no worker ran): catchUp "once" fires
// the latest of them as a catch-up, "none" skips them. A spec with no
// instant after now (none in robfig/cron; kept for safety) returns the zero time.
func Due(s cron.Schedule, next, now time.Time, grace time.Duration, catchUp string) ([]Tick, time.Time) {
	var (
		fires  []Tick
		missed time.Time
	)
	t := next
	for steps := 0; !t.IsZero() && !t.After(now); steps++ {
		if now.Sub(t) <= Grace(s, t, grace) {
			fires = append(fires, Tick{At: t, Kind: KindTick})
		} else {
			missed = t
		}
		if steps == maxSteps {
			// Every instant up to now-grace-MinGrace is missed; restart the
			// walk from there, so the latest missed one is still found.
			if a := s.Next(now.Add(-(grace + MinGrace))); a.After(t) {
				t = a
				continue
			}
		}
		t = s.Next(t)
	}
	if catchUp == CatchUpOnce && !missed.IsZero() {
		fires = append([]Tick{{At: missed, Kind: KindCatchUp}}, fires...)
	}
	return fires, t
}
