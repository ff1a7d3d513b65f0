package voice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/progress"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/tableprinter"
	"github.com/helixhq/helix/internal/voice"
	"github.com/helixhq/helix/internal/voice/stt"
)

// TranscribeOptions are the inputs of `voice transcribe`.
type TranscribeOptions struct {
	IO         *iostreams.IOStreams
	JSON       bool
	Config     func() (*config.Config, error)
	DB         func(ctx context.Context) (*pgxpool.Pool, error)
	HTTPClient func() (*http.Client, error)
	Logger     func() *slog.Logger
	Now        func() time.Time

	Files          []string
	UserID         cmdutil.UserID
	Provider       string
	Language       string
	DetectLanguage bool
	Diarize        bool
	Utterances     bool
	SmartFormat    bool
	StoreAudio     bool
	Force          bool
	Concurrency    int
	LockWait       time.Duration
	Enqueue        bool
	Priority       int
	Process        processFlags
	NoMemory       bool
	MemoryType     string
	RecordedAt     string    // --recorded-at as given
	recordedAt     time.Time // parsed
}

// NewCmdTranscribe transcribes recordings and stores them in voice_recordings.
func NewCmdTranscribe(f *cmdutil.Factory, runF func(*TranscribeOptions) error) *cobra.Command {
	opts := &TranscribeOptions{IO: f.IOStreams, Config: f.Config, DB: f.DB, HTTPClient: f.HTTPClient, Logger: f.Logger, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "transcribe FILE...",
		Short: "Transcribe recordings and store them",
		Long: `Transcribe recordings with a speech-to-text provider and store one
voice_recordings row per file: the user, source name, detected format, duration,
original sample rate and channels, sha256 of the file, transcript, confidence,
words with their times, provider, model and request id (and the processed
16 kHz WAV with --store-audio).

Each transcript also becomes one memories row of the user, in the same
transaction: content the transcript, type voice.memory-type (episodic),
created_at when the memo was recorded (--recorded-at, else the file's own
creation time, else its modification time), linked to the recording in
helix_voice_memories; --no-memory (or voice.memory: false) stores the
recording only. An empty transcript makes no memory; deleting the recording
deletes its memory. The memory is marked changed like any platform insert:
embed, memory search, synthesize and decay see it.

Only the speech is sent (--vad, on unless --vad=false or voice.vad: false):
pauses are cut to 240 ms, and the word times stored are the original's.
--denoise (voice.denoise) reduces steady background noise first.

The same file for the same user is not transcribed twice (it is reported as
"duplicate") unless --force, which transcribes it again and replaces the row.
Files are handled --concurrency at a time; one bad file does not stop the
others (exit 3 when some failed and the rest were done).

` + formatsHelp + `

Providers (keys come from the environment or the config file, never flags):
  deepgram  POST /v1/listen; DEEPGRAM_API_KEY or voice.deepgram.api-key;
            model voice.deepgram.model (default nova-3)
  openai    POST <base>/audio/transcriptions, verbose_json; OPENAI_API_KEY or
            voice.openai.api-key; voice.openai.base-url points it at OpenAI,
            a whisper.cpp server or a faster-whisper server. Audio over
            voice.openai.max-upload-bytes is split at silences and stitched.
Requests that get 429 or 5xx are retried (voice.retries) with backoff,
honouring Retry-After; each request times out after voice.timeout.

EXAMPLES
  helix voice transcribe memo.webm --user-id 6f1c…
  helix voice transcribe inbox/*.m4a --user-id 6f1c… --provider openai --language en --concurrency 4
  helix voice transcribe call.wav --user-id 6f1c… --diarize --utterances --store-audio --output json
  helix voice transcribe noisy.m4a --user-id 6f1c… --denoise --recorded-at 2026-05-01T09:00:00Z
  helix voice transcribe /shared/inbox/*.webm --user-id 6f1c… --enqueue   # then: helix worker --queues voice

--enqueue queues one job per file (by absolute path: the workers must see the
same files, e.g. on shared storage) for helix worker and returns at once. The
worker reaches the provider with its own voice.* settings; a damaged file or
a refused request cancels its job, an unreachable provider retries it.

` + cmdutil.ExitStatusPartialJob,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			opts.JSON = f.Global.JSON()
			if opts.Provider != "deepgram" && opts.Provider != "openai" {
				return cmdutil.FlagErrorf("invalid --provider %q: use deepgram or openai", opts.Provider)
			}
			if opts.Concurrency < 1 || opts.Concurrency > 64 {
				return cmdutil.FlagErrorf("invalid --concurrency %d: use 1 to 64", opts.Concurrency)
			}
			cfg, err := f.Config()
			if err != nil {
				return cmdutil.InputError(err)
			}
			if err := opts.Process.settings(cmd, cfg); err != nil {
				return err
			}
			if _, err := opts.Process.options(); err != nil {
				return err
			}
			if err := opts.memorySettings(cmd, cfg); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return transcribeRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	cmdutil.UserIDVar(fl, &opts.UserID, "UUID of the user the recordings belong to (required)")
	fl.StringVar(&opts.Provider, "provider", "deepgram", "speech-to-text provider: deepgram or openai")
	_ = cmd.RegisterFlagCompletionFunc("provider", cmdutil.CompleteWords("deepgram", "openai"))
	fl.StringVar(&opts.Language, "language", "", "language of the speech (BCP-47, e.g. en); empty: the provider's default")
	fl.BoolVar(&opts.DetectLanguage, "detect-language", false, "let Deepgram detect the language (when --language is not set)")
	fl.BoolVar(&opts.Diarize, "diarize", false, "tell speakers apart (Deepgram)")
	fl.BoolVar(&opts.Utterances, "utterances", false, "split the transcript into utterances (Deepgram)")
	fl.BoolVar(&opts.SmartFormat, "smart-format", true, "punctuate and format numbers, dates… (Deepgram smart_format and punctuate)")
	fl.BoolVar(&opts.StoreAudio, "store-audio", false, "keep the processed 16 kHz WAV in the row")
	fl.BoolVar(&opts.Force, "force", false, "transcribe again audio this user already has, replacing the row")
	fl.IntVar(&opts.Concurrency, "concurrency", 4, "files handled at once")
	fl.BoolVar(&opts.Enqueue, "enqueue", false, "queue one job per file for helix worker and return at once")
	fl.DurationVar(&opts.LockWait, "lock-wait", 30*time.Second, "wait this long for another transcription of the same user to finish")
	fl.BoolVar(&opts.NoMemory, "no-memory", false, "store the recording only: no memories row from its transcript (setting voice.memory: false)")
	fl.StringVar(&opts.RecordedAt, "recorded-at", "", "when the recordings were made (RFC 3339), the memories' created_at; default: the file's own creation time, else its modification time")
	opts.Process.bind(cmd, true)
	_ = cmd.MarkFlagRequired("user-id")
	cmd.MarkFlagsMutuallyExclusive("language", "detect-language")
	shared.PriorityFlag(cmd, &opts.Priority)
	return cmd
}

// memorySettings resolves --no-memory against voice.memory, the memory type
// (voice.memory-type) and --recorded-at.
func (o *TranscribeOptions) memorySettings(cmd *cobra.Command, cfg *config.Config) error {
	mem := !o.NoMemory
	if err := settingBool(cmd, cfg, "no-memory", "voice.memory", &mem); err != nil {
		return err
	}
	if fl := cmd.Flags().Lookup("no-memory"); !fl.Changed && !cfg.IsSet(cmdutil.FlagKey(cmd, fl)) {
		o.NoMemory = !mem
	}
	o.MemoryType = cfg.String("voice.memory-type")
	if !slices.Contains(voice.MemoryTypes, o.MemoryType) {
		return cmdutil.FlagErrorf("invalid voice.memory-type %q: use %s", o.MemoryType, strings.Join(voice.MemoryTypes, ", "))
	}
	if o.RecordedAt != "" {
		t, err := time.Parse(time.RFC3339, o.RecordedAt)
		if err != nil {
			return cmdutil.FlagErrorf("invalid --recorded-at %q: use RFC 3339, e.g. 2026-11-27T08:30:00Z", o.RecordedAt)
		}
		o.recordedAt = t
	}
	return nil
}

// provider builds the chosen provider from the configuration.
func (o *TranscribeOptions) provider(cfg *config.Config) (stt.Provider, error) {
	client, err := o.HTTPClient()
	if err != nil {
		return nil, err
	}
	return shared.STTProvider(cfg, client, o.Provider)
}

// TranscribeReport is the JSON document of a run.
type TranscribeReport struct {
	RunID       int64              `json:"run_id"`
	Provider    string             `json:"provider"`
	Model       string             `json:"model"`
	Transcribed int                `json:"transcribed"`
	Duplicate   int                `json:"duplicate"`
	Failed      int                `json:"failed"`
	Files       []voice.FileResult `json:"files"`
}

func transcribeRun(ctx context.Context, opts *TranscribeOptions) error {
	if opts.Enqueue {
		return enqueue(ctx, opts)
	}
	cfg, err := opts.Config()
	if err != nil {
		return cmdutil.InputError(err)
	}
	po, err := opts.Process.options()
	if err != nil {
		return err
	}
	prov, err := opts.provider(cfg)
	if err != nil {
		return err
	}
	pool, err := opts.DB(ctx)
	if err != nil {
		return err
	}
	user := opts.UserID.ID
	// The run record holds the job's typed args, as a worker's does (the
	// path empty: the run covers every file).
	params := queue.RunParams{Args: queue.TranscribeArgs{UserID: user, Provider: opts.Provider, Process: po, StoreAudio: opts.StoreAudio, Force: opts.Force,
		NoMemory: opts.NoMemory, MemoryType: opts.MemoryType, RecordedAt: opts.recordedAt,
		STT: stt.Options{Language: opts.Language, DetectLanguage: opts.DetectLanguage, Diarize: opts.Diarize,
			Utterances: opts.Utterances, SmartFormat: opts.SmartFormat, Punctuate: opts.SmartFormat}},
		Units: len(opts.Files), Options: map[string]any{"model": prov.Model(), "concurrency": opts.Concurrency}}
	var report TranscribeReport
	err = jobrun.Do(ctx, pool, jobrun.Spec{Job: jobs.RunTranscribe, Params: params, Lock: TranscribeLock(user), LockWait: opts.LockWait, RecordSkipped: true, Now: opts.Now},
		func(ctx context.Context, run *jobrun.Run) (any, error) {
			log := opts.Logger()
			rep := progress.New(opts.IO.ErrOut, progress.ChooseMode(opts.IO.IsStderrTTY(), opts.JSON), log, "voice transcribe", len(opts.Files))
			job := voice.JobOptions{
				UserID: user, Provider: prov, Process: po, StoreAudio: opts.StoreAudio, Force: opts.Force,
				Concurrency: opts.Concurrency, Now: opts.Now,
				Memory: !opts.NoMemory, MemoryType: opts.MemoryType, RecordedAt: opts.recordedAt,
				STT: stt.Options{Language: opts.Language, DetectLanguage: opts.DetectLanguage, Diarize: opts.Diarize,
					Utterances: opts.Utterances, SmartFormat: opts.SmartFormat, Punctuate: opts.SmartFormat},
			}
			results := voice.Transcribe(ctx, pool, opts.Files, job, func(r voice.FileResult) {
				if r.Status == voice.StatusFailed && !opts.IO.IsStderrTTY() {
					log.Warn("file failed", "file", r.File, "err", r.Error)
				}
				rep.Step(r.File, r.Status == voice.StatusFailed)
			})
			rep.Finish()

			report = TranscribeReport{RunID: run.ID, Provider: prov.Name(), Model: prov.Model(), Files: results}
			var failed []string
			kinds := map[string]int{}
			for _, r := range results {
				switch r.Status {
				case voice.StatusTranscribed:
					report.Transcribed++
				case voice.StatusDuplicate:
					report.Duplicate++
				default:
					report.Failed++
					kinds[r.Kind]++
					failed = append(failed, r.File+": "+r.Error)
				}
			}
			jobErr := outcome(ctx, failed, kinds, len(results))
			switch {
			case ctx.Err() != nil:
				run.SetStatus(db.RunInterrupted)
			case jobErr != nil && len(failed) < len(results):
				run.SetStatus(db.RunPartial)
			case jobErr != nil:
				run.SetStatus(db.RunFailed)
			}
			counts := map[string]int{"transcribed": report.Transcribed, "duplicate": report.Duplicate, "failed": report.Failed}
			return counts, jobErr
		})
	if report.Files == nil && err != nil { // never started: lock held, database gone
		return err
	}
	jobErr := err
	if err := writeReport(opts, report); err != nil {
		return err
	}
	return jobErr
}

// enqueue queues one voice_transcribe job per file; a file whose job is
// still pending or running for the user is not queued twice.
func enqueue(ctx context.Context, opts *TranscribeOptions) error {
	po, err := opts.Process.options()
	if err != nil {
		return err
	}
	user := opts.UserID.ID
	args := make([]queue.TranscribeArgs, len(opts.Files))
	for i, f := range opts.Files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return cmdutil.InputError(err)
		}
		if _, err := os.Stat(abs); err != nil {
			return cmdutil.InputError(fmt.Errorf("%s: %w (nothing was queued)", f, err))
		}
		args[i] = queue.TranscribeArgs{UserID: user, Path: abs, Provider: opts.Provider, Process: po, StoreAudio: opts.StoreAudio, Force: opts.Force,
			NoMemory: opts.NoMemory, MemoryType: opts.MemoryType, RecordedAt: opts.recordedAt,
			STT: stt.Options{Language: opts.Language, DetectLanguage: opts.DetectLanguage, Diarize: opts.Diarize,
				Utterances: opts.Utterances, SmartFormat: opts.SmartFormat, Punctuate: opts.SmartFormat}}
	}
	pool, err := opts.DB(ctx)
	if err != nil {
		return err
	}
	res, err := queue.Insert(ctx, pool, args, queue.PriorityFor(true, opts.Priority))
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	_, err = fmt.Fprintln(opts.IO.Out, res.Summary())
	return err
}

// outcome maps the failures to an exit status: all done → nil; some failed →
// partial (3); all failed → input (2) when every file was bad or refused by
// the provider (a wrong key or request: retrying cannot help), unavailable (4)
// when the provider or database could not be reached, else failed (1).
func outcome(ctx context.Context, failed []string, kinds map[string]int, total int) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case len(failed) == 0:
		return nil
	case len(failed) < total:
		return &cmdutil.PartialError{Failed: failed, Total: total}
	case kinds[voice.FailInput]+kinds[voice.FailProvider] == total:
		return cmdutil.InputError(errors.New(strings.Join(failed, "; ")))
	case kinds[voice.FailUnavailable] > 0:
		return cmdutil.UnavailableError(errors.New(strings.Join(failed, "; ")))
	}
	return errors.New(strings.Join(failed, "; "))
}

func writeReport(opts *TranscribeOptions, r TranscribeReport) error {
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, r)
	}
	tty := opts.IO.IsStdoutTTY()
	tp := tableprinter.New(opts.IO.Out, tty)
	tp.Header("FILE", "STATUS", "ID", "FORMAT", "DURATION", "WORDS", "TRANSCRIPT / ERROR")
	for _, f := range r.Files {
		id, dur, words, text := "-", "-", "-", f.Transcript
		if f.ID != "" {
			id = f.ID
		}
		if f.Duration > 0 {
			dur = fmt.Sprintf("%.2fs", f.Duration)
		}
		if f.Status == voice.StatusTranscribed {
			words = strconv.Itoa(f.Words)
		}
		if f.Status == voice.StatusFailed {
			text = f.Error
		}
		if tty && len([]rune(text)) > 60 {
			text = string([]rune(text)[:59]) + "…"
		}
		format := string(f.Format)
		if format == "" {
			format = "-"
		}
		tp.Row(f.File, f.Status, id, format, dur, words, text)
	}
	if err := tp.Render(); err != nil {
		return err
	}
	if tty {
		cmdutil.Fprintf(opts.IO.ErrOut, "%d transcribed, %d duplicate, %d failed (%s %s)\n", r.Transcribed, r.Duplicate, r.Failed, r.Provider, r.Model)
	}
	return nil
}

// TranscribeLock names the advisory lock a user's transcription holds: two
// runs for one user never overlap; runs for different users do.
func TranscribeLock(user uuid.UUID) string { return queue.TranscribeLock(user) }
