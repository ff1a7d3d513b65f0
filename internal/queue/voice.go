package queue

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/voice"
	"github.com/helixhq/helix/internal/voice/stt"
)

// TranscribeArgs is one recording (`voice transcribe --enqueue`). Path is
// absolute and must be readable by the worker (shared storage); the
// provider's key and base URL are the worker's (voice.*).
type TranscribeArgs struct {
	UserID     uuid.UUID            `json:"user_id" river:"unique"`
	Path       string               `json:"path" river:"unique"`
	Provider   string               `json:"provider"`
	STT        stt.Options          `json:"stt"`
	Process    voice.ProcessOptions `json:"process"`
	StoreAudio bool                 `json:"store_audio,omitempty"`
	Force      bool                 `json:"force,omitempty"`
	// NoMemory: no memories row from the transcript (jobs queued before
	// memories were written have none, and write one).
	NoMemory   bool      `json:"no_memory,omitempty"`
	MemoryType string    `json:"memory_type,omitempty"` // "": episodic
	RecordedAt time.Time `json:"recorded_at,omitzero"`  // zero: the file's own time
}

// Kind names the job in river_job.kind.
func (TranscribeArgs) Kind() string { return jobs.KindTranscribe }

// InsertOpts makes the job unique per (user, file) while live.
func (a TranscribeArgs) InsertOpts() river.InsertOpts { return uniqueOpts(a.Kind()) }

// TranscribeLock is the advisory lock of a user's transcriptions (the
// in-process command holds the same one).
func TranscribeLock(user uuid.UUID) string { return "voice-transcribe:" + user.String() }

// TranscribeWorker works TranscribeArgs with voice.TranscribeOne, the unit
// `voice transcribe` runs per file, under the user's lock, and completes the
// job in the transaction that stores the recording.
type TranscribeWorker struct {
	river.WorkerDefaults[TranscribeArgs]
	d *Deps
}

// Work transcribes one recording. A bad file or a request the provider
// refuses is cancelled (retrying cannot help); an unreachable provider is retried.
func (w *TranscribeWorker) Work(ctx context.Context, job *river.Job[TranscribeArgs]) error {
	a := job.Args
	prov, err := w.d.STT(a.Provider)
	if err != nil {
		return err
	}
	return work(ctx, w.d, job, jobrun.Spec{Job: jobs.RunTranscribe, Lock: TranscribeLock(a.UserID)},
		func(ctx context.Context, run *jobrun.Run, counts map[string]any, complete completer) error {
			counts["transcribed"], counts["duplicate"], counts["failed"] = 1, 0, 0
			r := voice.TranscribeOne(ctx, run.Conn, a.Path, voice.JobOptions{UserID: a.UserID, Provider: prov, STT: a.STT,
				Process: a.Process, StoreAudio: a.StoreAudio, Force: a.Force, Now: w.d.now(), Complete: complete,
				Memory: !a.NoMemory, MemoryType: a.MemoryType, RecordedAt: a.RecordedAt})
			switch r.Status {
			case voice.StatusDuplicate:
				counts["transcribed"], counts["duplicate"] = 0, 1
				return nil
			case voice.StatusFailed:
				counts["transcribed"], counts["failed"] = 0, 1
				err := errors.New(r.Error)
				if r.Kind == voice.FailInput {
					// classed as in-process: exit 2 (helix jobs wait)
					return errPermanent{exitcode.AsInput(err)}
				}
				if r.Kind == voice.FailProvider {
					return errPermanent{err}
				}
				return err
			}
			return nil
		})
}
