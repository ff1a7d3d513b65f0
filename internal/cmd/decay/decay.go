// Package decay implements `helix decay run` and `helix decay schedule`.
package decay

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/decay"
)

// NewCmdDecay is the `decay` group.
func NewCmdDecay(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "decay <command>",
		Short: "Compute how much of each memory and psychology layer is retained",
		Long: `Compute forgetting curves: how much of each memory (FSRS-6) and of each of a
user's seven psychology layers (exponential, Ebbinghaus or power law, per the
config file) is retained at an instant, from the time since it was last
accessed and its stability, and write it back. Once (run) or on a cron
schedule as a long-running service (schedule).`,
	}
	cmd.AddCommand(NewCmdRun(f, nil))
	cmd.AddCommand(NewCmdSchedule(f, nil))
	return cmd
}

// jobFlags are the flags run and schedule share.
type jobFlags struct {
	ForgetBelow float64
	UserID      cmdutil.UserID
	ChunkSize   int
}

func (j *jobFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.Float64Var(&j.ForgetBelow, "forget-below", 0, "flag items whose retention falls below this (0 < X < 1; default off)")
	cmdutil.UserIDVar(fl, &j.UserID, "only this user's memories and layers")
	fl.IntVar(&j.ChunkSize, "batch-size", decay.DefaultChunkSize, "rows per committed chunk")
	cmdutil.Alias(fl, "batch-size", "chunk-size")
}

func (j *jobFlags) validate() error {
	if j.ForgetBelow < 0 || j.ForgetBelow >= 1 {
		return cmdutil.FlagErrorf("invalid --forget-below %v: use a retention between 0 and 1 (0 turns it off)", j.ForgetBelow)
	}
	if j.ChunkSize < 1 {
		return cmdutil.FlagErrorf("invalid --batch-size %d: use a positive number of rows", j.ChunkSize)
	}
	return nil
}

// options builds the domain options from the flags and the config file's models.
func (j *jobFlags) options(cfg *config.Config) (decay.Options, error) {
	var raw map[string]decay.Model
	if err := cfg.Unmarshal("decay.layers", &raw); err != nil {
		return decay.Options{}, cmdutil.InputError(fmt.Errorf("decay.layers (%s): %w", cfg.Source("decay.layers"), err))
	}
	layers, err := decay.ParseLayers(raw)
	if err != nil {
		return decay.Options{}, cmdutil.InputError(fmt.Errorf("%w (%s)", err, cfg.Source("decay.layers")))
	}
	mem, err := memoryModel(cfg)
	if err != nil {
		return decay.Options{}, cmdutil.InputError(err)
	}
	return decay.Options{ForgetBelow: j.ForgetBelow, UserID: j.UserID.String(), ChunkSize: j.ChunkSize, Memory: mem, Layers: layers}, nil
}

// memoryModel is FSRS-6 with decay.memory-weights (default: the published
// weights) and decay.memory-decay, which sets w20 = −DECAY. Both set and
// disagreeing is an error, not a silent choice.
func memoryModel(cfg *config.Config) (decay.FSRSParams, error) {
	mem := decay.DefaultFSRS()
	weightsSet := cfg.Source("decay.memory-weights") != "default"
	if weightsSet {
		var err error
		if mem, err = decay.ParseWeights(strings.Join(cfg.StringSlice("decay.memory-weights"), ",")); err != nil {
			return mem, fmt.Errorf("decay.memory-weights (%s): %w", cfg.Source("decay.memory-weights"), err)
		}
	}
	if cfg.Source("decay.memory-decay") == "default" {
		return mem, nil
	}
	raw := cfg.String("decay.memory-decay")
	d, err := strconv.ParseFloat(raw, 64)
	if err != nil || !(d >= -0.8 && d <= -0.1) {
		return mem, fmt.Errorf("decay.memory-decay (%s): %q is not a number from -0.8 to -0.1 (FSRS-6 -0.1542, FSRS-4.5 -0.5)",
			cfg.Source("decay.memory-decay"), raw)
	}
	if weightsSet && -d != mem.W[20] {
		return mem, fmt.Errorf("decay.memory-decay (%s) is %v but decay.memory-weights (%s) has w20 = %v: DECAY is −w20, set one of them",
			cfg.Source("decay.memory-decay"), d, cfg.Source("decay.memory-weights"), mem.W[20])
	}
	mem.W[20] = -d
	return mem, nil
}

// parseAt reads --at: RFC 3339, or a date meaning 00:00 UTC.
func parseAt(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, cmdutil.FlagErrorf("invalid --at %q: use RFC 3339 (2026-11-01T12:00:00Z) or a date (2026-11-01, 00:00 UTC)", s)
}
