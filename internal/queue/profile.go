package queue

import (
	"context"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/llmsynth"
	"github.com/helixhq/helix/internal/profile"
	"github.com/helixhq/helix/internal/synthesis"
)

// ProfileUpdateArgs is one user's profile (`profile update --all-users
// --enqueue`, which queues only the users whose lineages or recommendations
// changed). The model is reached with the worker's llm.* settings.
type ProfileUpdateArgs struct {
	UserID        uuid.UUID `json:"user_id" river:"unique"`
	Model         string    `json:"model" river:"unique"`
	ModelUnlisted bool      `json:"model_unlisted,omitempty"`
}

// Kind names the job in river_job.kind.
func (ProfileUpdateArgs) Kind() string { return jobs.KindProfileUpdate }

// InsertOpts makes the job unique per (user, model) while live.
func (a ProfileUpdateArgs) InsertOpts() river.InsertOpts { return uniqueOpts(a.Kind()) }

// ProfileSynthArgs are the synthesizer settings of a profile update: the
// fifth type alone, on all the user's memories with the default analysis.
func ProfileSynthArgs(model string, unlisted bool) SynthesizeLLMArgs {
	return SynthesizeLLMArgs{Model: model, ModelUnlisted: unlisted, Types: []string{llmsynth.FullSynthesis}, Params: synthesis.DefaultParams()}
}

// ProfileUpdateWorker works ProfileUpdateArgs with profile.Updater.User, the
// unit `profile update` runs per user, and completes the job in the
// transaction that writes the profile.
type ProfileUpdateWorker struct {
	river.WorkerDefaults[ProfileUpdateArgs]
	d *Deps
}

// Work updates one user's profile.
func (w *ProfileUpdateWorker) Work(ctx context.Context, job *river.Job[ProfileUpdateArgs]) error {
	a := job.Args
	s, err := w.d.LLM(ctx, ProfileSynthArgs(a.Model, a.ModelUnlisted))
	if err != nil {
		return err
	}
	up := &profile.Updater{Synth: s, Now: w.d.now()}
	return work(ctx, w.d, job, jobrun.Spec{Job: jobs.RunProfileUpdate},
		func(ctx context.Context, run *jobrun.Run, counts map[string]any, complete completer) error {
			r, err := up.User(ctx, run.Conn, a.UserID, &run.ID, complete)
			counts["users"], counts["calls"], counts["cost_usd"] = 1, r.Calls, r.CostUSD
			switch {
			case err != nil:
			case r.Unchanged:
				counts["unchanged"], counts["updated"] = 1, 0
			default:
				counts["unchanged"], counts["updated"] = 0, 1
			}
			return err
		})
}
