package voice

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/voice/stt"
)

// Recording is one row of voice_recordings.
type Recording struct {
	ID         uuid.UUID
	UserID     uuid.UUID
	SourceName string
	Format     Format
	Duration   float64
	SampleRate int
	Channels   int
	Audio      []byte // nil unless the audio is kept
	SHA256     []byte
	Transcript *stt.Transcript
	Provider   string
	Model      string
	CreatedAt  time.Time
}

// Existing returns the id of the user's recording with this sha256, or uuid.Nil.
func Existing(ctx context.Context, q db.Querier, user uuid.UUID, sum []byte) (uuid.UUID, error) {
	var id uuid.UUID
	err := q.QueryRow(ctx, `SELECT id FROM voice_recordings WHERE user_id = $1 AND sha256 = $2`, user, sum).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return uuid.Nil, nil
	}
	return id, err
}

// Save inserts r, or with replace overwrites the user's row for the same audio.
// It reports false when the row existed and replace was not asked for (a
// concurrent run stored it first).
func Save(ctx context.Context, q db.Querier, r *Recording, replace bool) (bool, error) {
	words, err := json.Marshal(r.Transcript.Words)
	if err != nil {
		return false, err
	}
	var utt []byte
	if len(r.Transcript.Utterances) > 0 {
		if utt, err = json.Marshal(r.Transcript.Utterances); err != nil {
			return false, err
		}
	}
	conflict := `DO NOTHING`
	if replace {
		conflict = `DO UPDATE SET source_name = EXCLUDED.source_name, format = EXCLUDED.format,
			duration_seconds = EXCLUDED.duration_seconds, sample_rate = EXCLUDED.sample_rate,
			channels = EXCLUDED.channels, audio_data = EXCLUDED.audio_data, transcript = EXCLUDED.transcript,
			confidence = EXCLUDED.confidence, language = EXCLUDED.language, words = EXCLUDED.words,
			utterances = EXCLUDED.utterances, provider = EXCLUDED.provider, model = EXCLUDED.model,
			request_id = EXCLUDED.request_id, created_at = EXCLUDED.created_at`
	}
	t := r.Transcript
	err = q.QueryRow(ctx, `INSERT INTO voice_recordings (id, user_id, source_name, format, duration_seconds,
			sample_rate, channels, audio_data, sha256, transcript, confidence, language, words, utterances,
			provider, model, request_id, created_at)
		VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULLIF($11, ''), $12, $13, $14, $15, NULLIF($16, ''), $17)
		ON CONFLICT (user_id, sha256) `+conflict+` RETURNING id`,
		r.UserID, r.SourceName, string(r.Format), r.Duration, r.SampleRate, r.Channels, r.Audio, r.SHA256,
		t.Text, t.Confidence, t.Language, words, utt, r.Provider, r.Model, t.RequestID, r.CreatedAt).Scan(&r.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
