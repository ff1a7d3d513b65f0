package llmsynth

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/lineage"
	"github.com/helixhq/helix/internal/scrub"
	"github.com/helixhq/helix/internal/synthesis"
)

// PromptVersion changes whenever the system prompt or the brief's layout
// does, so that stored results of an older prompt are not reused.
const PromptVersion = "llm-synth-1"

// SystemPrompt is the same for every user, so the provider can cache it.
const SystemPrompt = `You are a careful psychologist's assistant. You read a brief about one person:
statistical patterns that helix found in their memories (semantic clusters, bursts,
rhythms, emotional trends, shifts and triggers, each with a confidence) and a sample
of the memories themselves, each quoted with a short id such as m12.

Interpret the statistical patterns; do not invent facts. Report, for each requested
pattern type, the patterns the memories support:
- emotional_patterns: triggers and the emotional responses they set off
- prospective_self: ideal selves the person strives toward and feared selves they avoid
- relational_dynamics: recurring patterns in their relationships
- narrative_themes: the story themes and arcs of their life

Every pattern cites as evidence the ids of the memories that show it, only ids that
appear in the brief. Give a confidence from 0 to 1 that reflects how much evidence
there is, and one to three gentle, concrete recommendations. Fewer, well-supported
patterns are better than many weak ones; an empty list is a valid answer. Text in
brackets such as [EMAIL] or [PHONE] was removed for privacy: never guess it.
Answer only through the record_patterns tool (or the JSON schema you are given).`

// fullSynthesisTask asks for the fifth type; it is in the brief of a
// full_synthesis request only.
const fullSynthesisTask = `full_synthesis: one integrated view of the person across the seven psychology
layers (narrative_core, emotional_memory, relational_memory, prospective_self,
integration, transformation, purpose_engine), built on the statistical lineages
below (L1, L2, …: patterns followed across runs, with their status: new,
persisting, growing, shrinking) and the other types' patterns: findings tagged
with their layer, each citing memory ids as evidence and the lineages it builds
on, with actionable recommendations; and a short integrated summary.`

// quotedPerPattern is how many quoted members a pattern's line names.
const quotedPerPattern = 6

// Limits bound a brief.
type Limits struct {
	MaxMemories    int // memories quoted
	MaxChars       int // the whole brief
	MaxMemoryChars int // one memory's text
}

// Brief is what is sent about one user.
type Brief struct {
	Text     string               // scrubbed; the user message
	IDs      map[string]uuid.UUID // short id → memory
	Lineages map[string]uuid.UUID // short id (L1, …) → statistical lineage, for full_synthesis
	Memories int                  // memories quoted
	Patterns int                  // statistical patterns listed
	Scrubbed scrub.Counts
	SHA256   string
}

// BuildBrief writes the brief: the statistical patterns, then a sample of
// memories chosen to represent them (members closest to each pattern's
// centroid, strongest pattern first) and topped up with memories spread
// evenly over time, within lim. Memories without text are skipped.
func BuildBrief(ms []synthesis.Memory, pats []synthesis.Pattern, types []string, model string, lim Limits) Brief {
	return BuildBriefWith(ms, pats, types, model, lim, nil)
}

// Grounding is what a full_synthesis brief adds: the user's live statistical
// lineages and the patterns the other four types stored, each with its
// lineage's status.
type Grounding struct {
	Lineages []lineage.Lineage
	Patterns []StoredPattern
}

// StoredPattern is a helix memory_patterns row of another type, as the
// full_synthesis brief lists it.
type StoredPattern struct {
	Type       string
	Title      string
	Confidence float64
	Status     string    // its lineage's status ("" without one)
	FirstSeen  time.Time // its lineage's first sighting
}

// BuildBriefWith is BuildBrief with g's lines between the statistical
// patterns and the memories (nil: none). A lineage line carries its status
// and first sighting, not its run count or last sighting: those change on a
// nightly run that finds nothing new, and would change the brief's hash.
func BuildBriefWith(ms []synthesis.Memory, pats []synthesis.Pattern, types []string, model string, lim Limits, g *Grounding) Brief {
	byID := make(map[uuid.UUID]int, len(ms))
	for i, m := range ms {
		byID[m.ID] = i
	}
	usable := func(i int) bool { return strings.TrimSpace(ms[i].Content) != "" }
	chosen := []int{}
	picked := map[int]bool{}
	pick := func(i int) bool {
		if picked[i] || !usable(i) || len(chosen) >= lim.MaxMemories {
			return false
		}
		picked[i] = true
		chosen = append(chosen, i)
		return true
	}
	// Round-robin over patterns so each is represented before any gets a second example.
	orders := make([][]int, len(pats))
	for k, p := range pats {
		var idx []int
		for _, id := range p.MemoryIDs {
			if i, ok := byID[id]; ok {
				idx = append(idx, i)
			}
		}
		orders[k] = representative(ms, idx)
	}
	perPattern := 3
	for round := 0; round < perPattern; round++ {
		for _, o := range orders {
			if len(o) > round {
				pick(o[round])
			}
		}
	}
	if n := len(ms); n > 0 && len(chosen) < lim.MaxMemories {
		step := float64(n) / float64(lim.MaxMemories-len(chosen)+1)
		for x := step / 2; x < float64(n) && len(chosen) < lim.MaxMemories; x += math.Max(step, 1) {
			pick(int(x))
		}
	}
	slices.SortFunc(chosen, func(a, b int) int { return ms[a].CreatedAt.Compare(ms[b].CreatedAt) })

	b := Brief{IDs: map[string]uuid.UUID{}}
	short := map[uuid.UUID]string{}
	for k, i := range chosen {
		s := fmt.Sprintf("m%d", k+1)
		short[ms[i].ID] = s
	}
	var w strings.Builder
	fmt.Fprintf(&w, "Requested pattern types: %s\n\n", strings.Join(types, ", "))
	w.WriteString("Statistical patterns (strongest first):\n")
	for k, p := range pats {
		var ev []string // its most representative quoted members, not all of them
		for _, i := range orders[k] {
			if s, ok := short[ms[i].ID]; ok && len(ev) < quotedPerPattern {
				ev = append(ev, s)
			}
		}
		line := fmt.Sprintf("P%d %s (confidence %.2f, %d memories): %s", k+1, p.Type, p.Confidence, len(p.MemoryIDs), oneLine(p.Content))
		if len(ev) > 0 {
			line += "; quoted: " + strings.Join(ev, ", ")
		}
		if w.Len()+len(line) > lim.MaxChars/3 { // patterns get at most a third of the brief
			break
		}
		w.WriteString(line + "\n")
		b.Patterns++
	}
	if b.Patterns == 0 {
		w.WriteString("(none found)\n")
	}
	if g != nil {
		// The instructions ride in the brief, not the system prompt: a prompt
		// change would make every stored answer of the four types stale.
		w.WriteString("\n" + fullSynthesisTask + "\n")
		b.Lineages = map[string]uuid.UUID{}
		w.WriteString("\nStatistical lineages (patterns followed across runs: status, since when, memories now):\n")
		for k, l := range g.Lineages {
			content := ""
			if l.Content != nil {
				content = oneLine(*l.Content)
			}
			line := fmt.Sprintf("L%d %s %s since %s (%d memories): %s\n", k+1, l.Kind, l.Status,
				l.FirstSeenAt.UTC().Format("2006-01-02"), l.Size, content)
			if w.Len()+len(line) > lim.MaxChars/2 { // lineages and patterns: up to half the brief
				break
			}
			w.WriteString(line)
			b.Lineages[fmt.Sprintf("L%d", k+1)] = l.ID
		}
		if len(b.Lineages) == 0 {
			w.WriteString("(none)\n")
		}
		w.WriteString("\nPatterns of the other types (type, lineage status, since when, confidence, title):\n")
		n := 0
		for _, p := range g.Patterns {
			since := ""
			if !p.FirstSeen.IsZero() {
				since = " since " + p.FirstSeen.UTC().Format("2006-01-02")
			}
			line := fmt.Sprintf("- %s, %s%s, %.2f: %s\n", p.Type, cmp.Or(p.Status, "new"), since, p.Confidence, oneLine(p.Title))
			if w.Len()+len(line) > lim.MaxChars/2 {
				break
			}
			w.WriteString(line)
			n++
		}
		if n == 0 {
			w.WriteString("(none)\n")
		}
	}
	w.WriteString("\nMemories (id, date, emotional valence from -1 to 1, text):\n")
	for _, i := range chosen {
		m := ms[i]
		text, c := scrub.Text(m.Content)
		b.Scrubbed = b.Scrubbed.Add(c)
		text = oneLine(text)
		if r := []rune(text); len(r) > lim.MaxMemoryChars {
			text = string(r[:lim.MaxMemoryChars]) + "…"
		}
		val := "n/a"
		if m.Valence != nil {
			val = fmt.Sprintf("%+.2f", *m.Valence)
		}
		line := fmt.Sprintf("[%s] %s valence %s: %s\n", short[m.ID], m.CreatedAt.UTC().Format("2006-01-02"), val, text)
		if w.Len()+len(line) > lim.MaxChars {
			break
		}
		w.WriteString(line)
		b.IDs[short[m.ID]] = m.ID
		b.Memories++
	}
	// A second pass over everything: pattern texts quote memory words, and a
	// cut memory must not leave half a secret that the first pass missed.
	text, c := scrub.Text(w.String())
	b.Scrubbed = b.Scrubbed.Add(c)
	b.Text = text
	h := sha256.New()
	for _, part := range []string{PromptVersion, SystemPrompt, model, strings.Join(types, ","), b.Text} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	b.SHA256 = hex.EncodeToString(h.Sum(nil))
	return b
}

// representative orders a pattern's members by closeness to their centroid
// (cosine), so the first is the medoid; members without an embedding (or of
// another dimension) follow in time order.
func representative(ms []synthesis.Memory, idx []int) []int {
	dim := 0
	for _, i := range idx {
		if d := len(ms[i].Embedding); d > 0 {
			dim = d
			break
		}
	}
	var with, without []int
	for _, i := range idx {
		if dim > 0 && len(ms[i].Embedding) == dim {
			with = append(with, i)
		} else {
			without = append(without, i)
		}
	}
	slices.SortFunc(without, func(a, b int) int { return ms[a].CreatedAt.Compare(ms[b].CreatedAt) })
	if len(with) == 0 {
		return without
	}
	centroid := make([]float64, dim)
	for _, i := range with {
		for j, x := range ms[i].Embedding {
			centroid[j] += float64(x)
		}
	}
	score := make(map[int]float64, len(with))
	for _, i := range with {
		var dot, n2 float64
		for j, x := range ms[i].Embedding {
			dot += float64(x) * centroid[j]
			n2 += float64(x) * float64(x)
		}
		if n2 > 0 {
			score[i] = dot / math.Sqrt(n2)
		}
	}
	slices.SortStableFunc(with, func(a, b int) int {
		switch {
		case score[a] > score[b]:
			return -1
		case score[a] < score[b]:
			return 1
		}
		return a - b
	})
	return append(with, without...)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
