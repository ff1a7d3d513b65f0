package voice

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/voice/stt"
)

// JobOptions configure a transcription batch.
type JobOptions struct {
	UserID      uuid.UUID
	Provider    stt.Provider
	STT         stt.Options
	Process     ProcessOptions
	StoreAudio  bool
	Force       bool // transcribe again audio the user already has, replacing the row
	Concurrency int
	// Memory writes a memories row of type MemoryType from each transcript,
	// in the transaction that stores the recording.
	Memory     bool
	MemoryType string
	// RecordedAt, when set, is when every file was recorded (--recorded-at);
	// else each file's container creation time, else its modification time.
	RecordedAt time.Time
	Now        func() time.Time
	// Complete, when set, runs inside the transaction that stores the
	// recording, before it commits (a queue worker completes its job there).
	Complete func(ctx context.Context, tx pgx.Tx) error
}

// File statuses.
const (
	StatusTranscribed = "transcribed"
	StatusDuplicate   = "duplicate" // the same audio was already stored for this user
	StatusFailed      = "failed"
)

// Failure kinds tell the command which exit code a failure deserves.
const (
	FailInput       = "input"       // unreadable, damaged or unsupported file
	FailProvider    = "provider"    // the provider refused the request (400, 401…)
	FailUnavailable = "unavailable" // the provider or database could not be reached
	FailAnswer      = "answer"      // the provider's answer was unusable (too large): the job failed
	FailDatabase    = "database"
)

// FileResult is the outcome for one file.
type FileResult struct {
	File       string   `json:"file"`
	Status     string   `json:"status"`
	ID         string   `json:"id,omitempty"`
	Format     Format   `json:"format,omitempty"`
	Duration   float64  `json:"duration_seconds,omitempty"`
	Transcript string   `json:"transcript,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
	Words      int      `json:"words,omitempty"`
	MemoryID   string   `json:"memory_id,omitempty"`
	Speech     *float64 `json:"speech_seconds,omitempty"`  // with VAD: the audio sent
	Dropped    *float64 `json:"dropped_seconds,omitempty"` // with VAD: the audio not sent
	RecordedAt string   `json:"recorded_at,omitempty"`     // RFC 3339
	RecordedBy string   `json:"recorded_at_from,omitempty"`
	RequestID  string   `json:"request_id,omitempty"`
	Error      string   `json:"error,omitempty"`
	Kind       string   `json:"failure,omitempty"`
}

// Transcribe handles files with at most opts.Concurrency at a time; one bad
// file does not stop the others. done is called as each file finishes.
// Results come back in the order of files.
func Transcribe(ctx context.Context, q db.Querier, files []string, opts JobOptions, done func(FileResult)) []FileResult {
	res := make([]FileResult, len(files))
	sem := make(chan struct{}, max(1, opts.Concurrency))
	var wg sync.WaitGroup
	for i, f := range files {
		if ctx.Err() != nil {
			res[i] = FileResult{File: f, Status: StatusFailed, Error: ctx.Err().Error(), Kind: FailUnavailable}
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res[i] = TranscribeOne(ctx, q, f, opts)
			if done != nil {
				done(res[i])
			}
		}()
	}
	wg.Wait()
	return res
}

// TranscribeOne transcribes and stores one recording: the unit of
// `voice transcribe`, in-process and on a queue worker.
func TranscribeOne(ctx context.Context, q db.Querier, path string, opts JobOptions) FileResult {
	r := FileResult{File: path, Status: StatusFailed}
	fail := func(kind string, err error) FileResult {
		r.Kind, r.Error = kind, err.Error()
		return r
	}
	sum, err := hashFile(path)
	if err != nil {
		return fail(FailInput, err)
	}
	if !opts.Force {
		id, err := Existing(ctx, q, opts.UserID, sum)
		if err != nil {
			return fail(dbKind(err), err)
		}
		if id != uuid.Nil {
			r.Status, r.ID = StatusDuplicate, id.String()
			return r
		}
	}
	recorded, from := opts.RecordedAt, RecordedFromFlag
	if recorded.IsZero() {
		if recorded, from, err = RecordedAt(path); err != nil {
			return fail(FailInput, err)
		}
	}
	r.RecordedAt, r.RecordedBy = recorded.UTC().Format(time.RFC3339), from
	var pcm, whole bytes.Buffer
	pcm.Write(WAVHeader(0))
	var full io.Writer
	if opts.StoreAudio && (opts.Process.VAD || opts.Process.TrimSilence) {
		// the row keeps the original's timeline, which the word times are mapped to
		whole.Write(WAVHeader(0))
		full = &whole
	}
	res, err := ConvertTo(func() (Source, error) { return OpenContext(ctx, path) }, opts.Process, &pcm, full)
	if ctx.Err() != nil {
		return fail(FailUnavailable, ctx.Err())
	}
	if err != nil {
		return fail(FailInput, fmt.Errorf("decode %s: %w", path, err))
	}
	wav := pcm.Bytes()
	copy(wav, WAVHeader(res.Samples))
	r.Format, r.Duration, r.Speech, r.Dropped = res.Format, res.Duration, res.Speech, res.Dropped
	var t *stt.Transcript
	if res.Samples == 0 {
		// no speech at all: nothing to pay a provider for; the recording is
		// stored with an empty transcript and makes no memory
		t = &stt.Transcript{Words: []stt.Word{}}
	} else if t, err = opts.Provider.Transcribe(ctx, wav, opts.STT); err != nil {
		kind := FailProvider
		switch {
		case errors.Is(err, httpretry.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded):
			kind = FailUnavailable
		case errors.As(err, new(*httpretry.TooLargeError)):
			kind = FailAnswer
		}
		return fail(kind, err)
	}
	if res.Segments != nil {
		mapTimes(t, res)
	}
	rec := &Recording{
		UserID: opts.UserID, SourceName: filepath.Base(path), Format: res.Format, Duration: res.Duration,
		SampleRate: res.Rate, Channels: res.Channels, SHA256: sum, Transcript: t,
		Provider: opts.Provider.Name(), Model: opts.Provider.Model(), CreatedAt: opts.Now().UTC(),
	}
	if opts.StoreAudio {
		rec.Audio = wav
		if full != nil {
			rec.Audio = whole.Bytes()
			copy(rec.Audio, WAVHeader(int64(len(rec.Audio)-44)/2))
		}
	}
	// the recording, its memory and the queue job's completion commit together
	var stored bool
	var memID uuid.UUID
	err = db.InTx(context.WithoutCancel(ctx), q, func(tx pgx.Tx) error {
		ctx := context.WithoutCancel(ctx)
		var err error
		if stored, err = Save(ctx, tx, rec, opts.Force); err != nil {
			return err
		}
		if stored && opts.Memory {
			typ := opts.MemoryType
			if typ == "" {
				typ = MemoryTypes[0]
			}
			if memID, err = SaveMemory(ctx, tx, rec, typ, recorded, opts.Force); err != nil {
				return fmt.Errorf("memory: %w", err)
			}
		}
		if opts.Complete != nil {
			return opts.Complete(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return fail(dbKind(err), fmt.Errorf("store %s: %w", path, err))
	}
	r.Status, r.ID = StatusTranscribed, rec.ID.String()
	if !stored {
		r.Status = StatusDuplicate
	}
	if memID != uuid.Nil {
		r.MemoryID = memID.String()
	}
	r.Transcript, r.Confidence, r.Words, r.RequestID = t.Text, t.Confidence, len(t.Words), t.RequestID
	return r
}

// mapTimes moves the provider's word and utterance times, which are times in
// the audio it was sent, to the original recording's timeline.
func mapTimes(t *stt.Transcript, res Result) {
	for i := range t.Words {
		w := &t.Words[i]
		w.Start, w.End = res.OriginalTime(w.Start), res.OriginalEnd(w.End)
	}
	for i := range t.Utterances {
		u := &t.Utterances[i]
		u.Start, u.End = res.OriginalTime(u.Start), res.OriginalEnd(u.End)
	}
}

func dbKind(err error) string {
	if db.IsUnavailable(err) {
		return FailUnavailable
	}
	return FailDatabase
}

func hashFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return h.Sum(nil), nil
}
