package voice

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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

// idSpace namespaces the ids derived from (user, sha256 of the file): the
// same audio of the same user is always the same recording and the same
// memory, whatever helix's own tables still remember (a migrate down and up
// drops them, the platform's rows stay).
var idSpace = uuid.MustParse("0b7d54a2-64c1-4f5e-9c0a-43e1d7a9b2f6")

// RecordingID is the id helix gives the user's recording of this audio.
func RecordingID(user uuid.UUID, sum []byte) uuid.UUID {
	return uuid.NewSHA1(idSpace, append(append(user[:len(user):len(user)], sum...), "recording"...))
}

// MemoryID is the id of the memory made from the user's recording of this audio.
func MemoryID(user uuid.UUID, sum []byte) uuid.UUID {
	return uuid.NewSHA1(idSpace, append(append(user[:len(user):len(user)], sum...), "memory"...))
}

// Existing returns the id of the user's recording with this sha256, or
// uuid.Nil. A row found by its derived id only (its sha256 lost with helix's
// columns in a migrate down) gets its sha256 back, and its memory, if that
// still exists, its link.
func Existing(ctx context.Context, q db.Querier, user uuid.UUID, sum []byte) (uuid.UUID, error) {
	var id uuid.UUID
	rid := RecordingID(user, sum)
	err := q.QueryRow(ctx, `SELECT id FROM voice_recordings WHERE user_id = $1 AND (sha256 = $2 OR id = $3)
		ORDER BY sha256 IS NULL LIMIT 1`, user, sum, rid).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return uuid.Nil, nil
	}
	if err != nil || id != rid {
		return id, err
	}
	_, err = q.Exec(ctx, `WITH fixed AS (
			UPDATE voice_recordings SET sha256 = $2 WHERE id = $3 AND user_id = $1 AND sha256 IS NULL
			AND NOT EXISTS (SELECT 1 FROM voice_recordings WHERE user_id = $1 AND sha256 = $2))
		INSERT INTO helix_voice_memories (recording_id, memory_id, user_id)
		SELECT $3, m.id, $1 FROM memories m WHERE m.id = $4 AND m.user_id = $1
		ON CONFLICT DO NOTHING`, user, sum, rid, MemoryID(user, sum))
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
		VALUES ($18, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULLIF($11, ''), $12, $13, $14, $15, NULLIF($16, ''), $17)
		ON CONFLICT (user_id, sha256) `+conflict+` RETURNING id`,
		r.UserID, r.SourceName, string(r.Format), r.Duration, r.SampleRate, r.Channels, r.Audio, r.SHA256,
		t.Text, t.Confidence, t.Language, words, utt, r.Provider, r.Model, t.RequestID, r.CreatedAt,
		RecordingID(r.UserID, r.SHA256)).Scan(&r.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// MemoryTypes are the memory types a transcript's memory may take.
var MemoryTypes = []string{"episodic", "semantic", "procedural"}

// SaveMemory writes the memory of recording r (stored by Save in the same
// transaction): content the transcript, created_at when the recording was
// made. An empty transcript makes none; with replace (--force) an existing
// memory takes the new transcript. It is an ordinary insert into memories, so
// the platform's change tracking (helix_memory_changes) sees it as it sees an
// app's: embed, memory search, synthesize and decay pick it up. It returns the
// memory's id, or uuid.Nil when none was written.
func SaveMemory(ctx context.Context, q db.Querier, r *Recording, typ string, recordedAt time.Time, replace bool) (uuid.UUID, error) {
	if strings.TrimSpace(r.Transcript.Text) == "" {
		return uuid.Nil, nil
	}
	conflict := `DO NOTHING`
	if replace {
		conflict = `DO UPDATE SET content = EXCLUDED.content, type = EXCLUDED.type, created_at = EXCLUDED.created_at
			WHERE memories.user_id = EXCLUDED.user_id`
	}
	id := MemoryID(r.UserID, r.SHA256)
	// created_at is the platform's timestamp (without time zone): UTC.
	tag, err := q.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) `+conflict, id, r.UserID, typ, r.Transcript.Text, recordedAt.UTC())
	if err != nil {
		return uuid.Nil, err
	}
	if tag.RowsAffected() == 0 && !replace {
		// the memory of this audio exists already (a row helix lost track of): link it
		var owner uuid.UUID
		if err := q.QueryRow(ctx, `SELECT user_id FROM memories WHERE id = $1`, id).Scan(&owner); err != nil || owner != r.UserID {
			return uuid.Nil, err
		}
	}
	_, err = q.Exec(ctx, `INSERT INTO helix_voice_memories (recording_id, memory_id, user_id) VALUES ($1, $2, $3)
		ON CONFLICT (recording_id) DO UPDATE SET memory_id = EXCLUDED.memory_id`, r.ID, id, r.UserID)
	if err != nil {
		return uuid.Nil, err
	}
	return id, nil
}
