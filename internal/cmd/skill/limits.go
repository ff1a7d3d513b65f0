package skill

import (
	"time"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/size"
	"github.com/helixhq/helix/internal/skill"
)

// limitFlags are the --timeout, --memory and --output-limit flags.
type limitFlags struct {
	Timeout time.Duration
	// TimeoutSet says --timeout was given: 0 given is refused, never read
	// as "unset" (the default 30s), which would silently mean the opposite.
	TimeoutSet  bool
	Memory      string
	OutputLimit string
	CPU         time.Duration
	CPUSet      bool
}

// limits parses the flags; an unset flag is a zero field (no cap from flags).
func (l limitFlags) limits() (skill.Limits, error) {
	var out skill.Limits
	if l.Timeout < 0 || l.TimeoutSet && l.Timeout == 0 {
		return out, cmdutil.FlagErrorf("invalid --timeout %s: use a positive duration (leave the flag out for the default)", l.Timeout)
	}
	out.Timeout = l.Timeout
	if l.CPU < 0 || l.CPUSet && l.CPU == 0 {
		return out, cmdutil.FlagErrorf("invalid --cpu-limit %s: use a positive duration (leave the flag out for the default)", l.CPU)
	}
	out.CPU = l.CPU
	var err error
	if l.Memory != "" {
		if out.MemoryBytes, err = size.Parse(l.Memory); err != nil {
			return out, cmdutil.FlagErrorf("--memory: %v", err)
		}
	}
	if l.OutputLimit != "" {
		if out.OutputBytes, err = size.Parse(l.OutputLimit); err != nil {
			return out, cmdutil.FlagErrorf("--output-limit: %v", err)
		}
	}
	return out, nil
}
