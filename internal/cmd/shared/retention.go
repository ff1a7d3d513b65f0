package shared

import (
	"fmt"
	"strings"
	"time"

	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/retention"
)

// Retention is cfg's retention.* policy; a bad period is an error naming it.
func Retention(cfg *config.Config) (retention.Policy, error) {
	var p retention.Policy
	for key, d := range map[string]*time.Duration{"retention.job-runs": &p.JobRuns, "retention.schedule-fires": &p.ScheduleFires,
		"retention.completed-jobs": &p.CompletedJobs, "retention.cancelled-jobs": &p.CancelledJobs, "retention.discarded-jobs": &p.DiscardedJobs} {
		v := strings.TrimSpace(cfg.String(key))
		var err error
		if *d, err = time.ParseDuration(v); err != nil || *d < 0 {
			return p, fmt.Errorf("setting %s = %q (%s): not a duration of 0 or more, e.g. 24h, 720h (0 keeps forever)", key, v, cfg.Source(key))
		}
	}
	return p, nil
}
