// Command gendemo writes helix's deterministic demo data set:
// testdata/demo/memories.jsonl (the memories) and testdata/demo/plants.json
// (what was planted in them, so tests can check that synthesis finds it).
//
// Four users, 150–300 memories each, over eight weeks ending 2026-11-01. Each
// user has themes; a theme has sentence templates filled from word lists, a
// centroid in a 384-dimensional embedding space (memories scatter around it
// with cosine ≈ 0.75 to the centroid's neighbours), a valence, and a time
// habit. Planted on purpose:
//   - semantic themes, each with its distinctive words;
//   - a burst: a trip whose memories all fall within five days;
//   - a rhythm: runs on Monday, Wednesday and Friday mornings;
//   - an emotional trigger: work memories far below the user's baseline valence;
//   - a valence trend (Ana rises over the eight weeks) and a shift (Ben drops in week 5);
//   - noise: memories on random topics with random embeddings, and 5% of
//     memories without an embedding (synthesis falls back to text vectors).
//
// Run: go run ./scripts/gendemo -out testdata/demo
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

const dim = 384

var end = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

const weeks = 8

type theme struct {
	Name      string   `json:"name"`
	Keywords  []string `json:"keywords"` // words a label should contain (at least one)
	Valence   float64  `json:"valence"`
	templates []string
	slots     map[string][]string
	habit     string // anytime, weekday-work, mwf-morning, evening, weekend, burst
}

var themes = map[string]theme{
	"work": {
		Name: "work", Keywords: []string{"deadline", "manager", "review", "report"}, Valence: -0.6, habit: "weekday-work",
		templates: []string{
			"The {doc} deadline moved up again and my manager wants it by {day}.",
			"Spent the whole afternoon fixing the {doc} after my manager's review.",
			"Another late night on the {doc}; the review with my manager is {day}.",
			"My manager rejected the {doc} draft in the review and the deadline stays {day}.",
			"Stressful standup: the {doc} deadline is {day} and nothing is ready for review.",
			"I keep dreading the performance review; my manager asked about the {doc} deadline again.",
			"Worked through lunch to get the {doc} ready before the {day} deadline.",
		},
		slots: map[string][]string{
			"doc": {"quarterly report", "budget report", "migration plan", "client report", "roadmap report", "audit report"},
			"day": {"Friday", "Monday", "tomorrow", "Thursday", "end of day"},
		},
	},
	"running": {
		Name: "running", Keywords: []string{"run", "ran", "km", "pace", "legs", "river"}, Valence: 0.55, habit: "mwf-morning",
		templates: []string{
			"Ran {km} km along the river before work, legs felt {feel}.",
			"Morning run: {km} km at an easy pace, the river path was {path}.",
			"Pushed the pace on my {km} km run today and my legs felt {feel}.",
			"Early {km} km run by the river; {path} and my pace was steady.",
			"Interval run this morning, {km} km total, legs {feel} afterwards.",
		},
		slots: map[string][]string{
			"km":   {"5", "6", "8", "10", "12"},
			"feel": {"strong", "heavy", "light", "tired but good", "fresh"},
			"path": {"foggy", "quiet", "icy", "full of cyclists", "beautiful at sunrise"},
		},
	},
	"cooking": {
		Name: "cooking", Keywords: []string{"recipe", "curry", "dinner", "cooked", "bread", "soup"}, Valence: 0.3, habit: "evening",
		templates: []string{
			"Tried a new {dish} recipe for dinner and added too much {spice}.",
			"Cooked {dish} tonight; the {spice} made the recipe.",
			"Baked sourdough bread and served it with {dish} for dinner.",
			"Made a big pot of {dish} for the week, heavy on the {spice}.",
			"Dinner experiment: {dish} with {spice}, recipe worth keeping.",
		},
		slots: map[string][]string{
			"dish":  {"lentil curry", "tomato soup", "mushroom risotto", "chickpea curry", "miso soup", "pumpkin soup"},
			"spice": {"cumin", "ginger", "smoked paprika", "garlic", "chili"},
		},
	},
	"family": {
		Name: "family", Keywords: []string{"mom", "dad", "sister", "called", "family", "garden"}, Valence: 0.4, habit: "weekend",
		templates: []string{
			"Called {who} on Sunday; {news}.",
			"Family lunch with {who}, we talked about {topic} for hours.",
			"{Who} called to say {news}.",
			"Video call with {who} and the kids, mostly about {topic}.",
		},
		slots: map[string][]string{
			"who":   {"mom", "dad", "my sister", "grandma"},
			"Who":   {"Mom", "Dad", "My sister", "Grandma"},
			"news":  {"her garden tomatoes finally ripened", "dad fixed the old bicycle", "my sister got the new job", "grandma is feeling better"},
			"topic": {"the holidays", "old family photos", "the garden", "moving house"},
		},
	},
	"lisbon": {
		Name: "lisbon trip", Keywords: []string{"lisbon", "alfama", "tram", "pastel", "tagus"}, Valence: 0.7, habit: "burst",
		templates: []string{
			"Walked through Alfama in Lisbon and got lost in the {thing}.",
			"Took tram 28 across Lisbon; {thing} everywhere.",
			"Ate a pastel de nata by the Tagus, {thing}.",
			"Sunset over the Tagus from a Lisbon miradouro, {thing}.",
			"Lisbon day: tram rides, Alfama stairs and {thing}.",
		},
		slots: map[string][]string{
			"thing": {"narrow streets", "azulejo tiles", "fado music", "warm evening light", "crowded viewpoints"},
		},
	},
	"kyoto": {
		Name: "kyoto trip", Keywords: []string{"kyoto", "temple", "shrine", "gion", "matcha"}, Valence: 0.65, habit: "burst",
		templates: []string{
			"Visited a temple in Kyoto at dawn, {thing}.",
			"Walked the Fushimi Inari shrine gates in Kyoto, {thing}.",
			"Matcha and wagashi in Gion, Kyoto; {thing}.",
			"Evening stroll through Gion in Kyoto, {thing}.",
		},
		slots: map[string][]string{
			"thing": {"completely quiet", "thousands of red gates", "maple leaves turning", "lanterns glowing", "rain on the stones"},
		},
	},
	"guitar": {
		Name: "guitar", Keywords: []string{"guitar", "chord", "practiced", "song", "fingers"}, Valence: 0.2, habit: "evening",
		templates: []string{
			"Practiced the {chord} chord on guitar for {min} minutes; fingers {feel}.",
			"Guitar practice: worked on {song} and the {chord} chord change.",
			"Finally played {song} on guitar without stopping.",
			"My fingers {feel} after {min} minutes of guitar; the {chord} chord still buzzes.",
		},
		slots: map[string][]string{
			"chord": {"F barre", "B minor", "G major", "C7"},
			"min":   {"twenty", "thirty", "forty-five", "fifteen"},
			"feel":  {"ache", "are sore", "feel stronger", "are calloused now"},
			"song":  {"Blackbird", "Wonderwall", "a blues in E", "Hallelujah"},
		},
	},
	"sleep": {
		Name: "sleep", Keywords: []string{"sleep", "slept", "insomnia", "tired", "night"}, Valence: -0.3, habit: "anytime",
		templates: []string{
			"Slept badly again, woke up at {time} and could not get back to sleep.",
			"Insomnia last night; {hours} hours of sleep and I am tired.",
			"Finally a full night of sleep, {hours} hours without waking.",
			"Woke at {time} with racing thoughts; the night felt endless.",
		},
		slots: map[string][]string{
			"time":  {"3 am", "4:30", "2 am", "5 am"},
			"hours": {"four", "five", "six", "eight"},
		},
	},
	"garden": {
		Name: "garden", Keywords: []string{"garden", "planted", "seeds", "tomatoes", "compost", "soil"}, Valence: 0.5, habit: "weekend",
		templates: []string{
			"Planted {plant} seeds in the garden, soil still {soil}.",
			"Turned the compost and watered the {plant} in the garden.",
			"Harvested {plant} from the garden this morning.",
			"Garden day: weeded the {plant} bed, the soil is {soil}.",
		},
		slots: map[string][]string{
			"plant": {"tomatoes", "garlic", "kale", "beans", "tulip bulbs"},
			"soil":  {"cold", "damp", "rich", "dry"},
		},
	},
}

var noise = []string{
	"Bought a new umbrella.", "The printer jammed twice.", "Watched a documentary about octopuses.",
	"Paid the electricity bill.", "Lost my keys for ten minutes.", "Read an article about volcanoes.",
	"The neighbour's cat visited the balcony.", "Renewed the library card.", "Changed a light bulb in the hallway.",
	"Thought about learning chess.", "The train was delayed by fifteen minutes.", "Sorted old receipts.",
}

type user struct {
	ID     string
	Name   string
	Count  int
	Themes []string
	Trend  float64 // valence change over the eight weeks
	ShiftW int     // week (1-based) at which valence drops by 0.5; 0 = none
}

var users = []user{
	{ID: "11111111-1111-4111-8111-111111111111", Name: "ana", Count: 300, Themes: []string{"work", "running", "cooking", "family", "lisbon"}, Trend: 0.5},
	{ID: "22222222-2222-4222-8222-222222222222", Name: "ben", Count: 260, Themes: []string{"work", "guitar", "family", "sleep"}, ShiftW: 5},
	{ID: "33333333-3333-4333-8333-333333333333", Name: "chen", Count: 240, Themes: []string{"cooking", "kyoto", "guitar", "garden"}},
	{ID: "44444444-4444-4444-8444-444444444444", Name: "dara", Count: 160, Themes: []string{"work", "running", "sleep", "garden"}},
}

type memory struct {
	ID               string    `json:"id"`
	UserID           string    `json:"user_id"`
	Type             string    `json:"type"`
	Content          string    `json:"content"`
	Embedding        []float64 `json:"embedding,omitempty"`
	EmotionalValence float64   `json:"emotional_valence"`
	CreatedAt        time.Time `json:"created_at"`
	LastAccessed     time.Time `json:"last_accessed"`
	AccessCount      int       `json:"access_count"`
}

type plant struct {
	UserID  string         `json:"user_id"`
	Name    string         `json:"name"`
	Themes  []plantTheme   `json:"themes"`
	Burst   *plantWindow   `json:"burst,omitempty"`
	Rhythm  *plantRhythm   `json:"rhythm,omitempty"`
	Trigger string         `json:"trigger,omitempty"` // theme far below baseline valence
	Trend   float64        `json:"valence_trend_over_period"`
	Shift   *time.Time     `json:"valence_shift_at,omitempty"`
	Noise   int            `json:"noise_memories"`
	NoEmb   int            `json:"memories_without_embedding"`
	Period  [2]time.Time   `json:"period"`
	Counts  map[string]int `json:"theme_counts"`
}

type plantTheme struct {
	Name     string   `json:"name"`
	Keywords []string `json:"keywords"`
	Valence  float64  `json:"valence"`
	Count    int      `json:"count"`
}

type plantWindow struct {
	Theme string    `json:"theme"`
	From  time.Time `json:"from"`
	To    time.Time `json:"to"`
}

type plantRhythm struct {
	Theme    string   `json:"theme"`
	Weekdays []string `json:"weekdays"`
	Hours    [2]int   `json:"hours"`
}

func main() {
	out := flag.String("out", "testdata/demo", "output directory")
	flag.Parse()
	if err := run(*out); err != nil {
		log.Fatal(err)
	}
}

func run(dir string) error {
	rng := rand.New(rand.NewPCG(42, 2026))
	centroids := map[string][]float64{}
	names := make([]string, 0, len(themes))
	for n := range themes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		centroids[n] = unit(gauss(rng, dim))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "memories.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	var plants []plant
	start := end.AddDate(0, 0, -7*weeks)
	for ui, u := range users {
		p := plant{UserID: u.ID, Name: u.Name, Trend: u.Trend, Period: [2]time.Time{start, end}, Counts: map[string]int{}}
		burstStart := start.AddDate(0, 0, 14+7*ui).Add(9 * time.Hour)
		var ms []memory
		nNoise := u.Count / 20
		for i := 0; i < u.Count; i++ {
			var m memory
			m.UserID = u.ID
			var tn string
			if i < nNoise {
				m.Content = noise[rng.IntN(len(noise))]
				m.Embedding = unit(gauss(rng, dim))
				m.CreatedAt = randomTime(rng, start, "anytime", burstStart)
				m.EmotionalValence = rng.NormFloat64() * 0.15
				m.Type = "episodic"
				p.Noise++
			} else {
				tn = u.Themes[rng.IntN(len(u.Themes))]
				th := themes[tn]
				p.Counts[tn]++
				m.Content = fill(rng, th)
				m.Embedding = jitter(rng, centroids[tn], 0.55)
				m.CreatedAt = randomTime(rng, start, th.habit, burstStart)
				m.EmotionalValence = th.Valence + rng.NormFloat64()*0.15
				m.Type = []string{"episodic", "episodic", "semantic", "procedural"}[rng.IntN(4)]
			}
			frac := m.CreatedAt.Sub(start).Hours() / end.Sub(start).Hours()
			m.EmotionalValence += u.Trend * (frac - 0.5)
			if u.ShiftW > 0 && m.CreatedAt.After(start.AddDate(0, 0, 7*(u.ShiftW-1))) {
				m.EmotionalValence -= 0.5
			}
			m.EmotionalValence = round(math.Max(-1, math.Min(1, m.EmotionalValence)), 3)
			if rng.Float64() < 0.05 {
				m.Embedding = nil
				p.NoEmb++
			}
			for j := range m.Embedding {
				m.Embedding[j] = round(m.Embedding[j], 4)
			}
			m.ID = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", ui+1, i, rng.IntN(0x1000), rng.IntN(0x1000), rng.Int64N(1<<48))
			m.AccessCount = rng.IntN(6)
			m.LastAccessed = m.CreatedAt.Add(time.Duration(rng.Float64() * float64(end.Sub(m.CreatedAt))))
			ms = append(ms, m)
		}
		sort.Slice(ms, func(a, b int) bool { return ms[a].CreatedAt.Before(ms[b].CreatedAt) })
		for _, m := range ms {
			if err := enc.Encode(m); err != nil {
				return err
			}
		}
		for _, tn := range u.Themes {
			th := themes[tn]
			p.Themes = append(p.Themes, plantTheme{Name: th.Name, Keywords: th.Keywords, Valence: th.Valence, Count: p.Counts[tn]})
			switch th.habit {
			case "burst":
				p.Burst = &plantWindow{Theme: th.Name, From: burstStart, To: burstStart.AddDate(0, 0, 5)}
			case "mwf-morning":
				p.Rhythm = &plantRhythm{Theme: th.Name, Weekdays: []string{"Monday", "Wednesday", "Friday"}, Hours: [2]int{6, 8}}
			}
			if tn == "work" {
				p.Trigger = th.Name
			}
		}
		if u.ShiftW > 0 {
			t := start.AddDate(0, 0, 7*(u.ShiftW-1))
			p.Shift = &t
		}
		plants = append(plants, p)
	}
	b, err := json.MarshalIndent(plants, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "plants.json"), append(b, '\n'), 0o644)
}

func fill(rng *rand.Rand, th theme) string {
	s := th.templates[rng.IntN(len(th.templates))]
	keys := make([]string, 0, len(th.slots))
	for k := range th.slots {
		keys = append(keys, k)
	}
	sort.Strings(keys) // map order is random; the data set must not be
	for _, k := range keys {
		vs := th.slots[k]
		for strings.Contains(s, "{"+k+"}") {
			s = strings.Replace(s, "{"+k+"}", vs[rng.IntN(len(vs))], 1)
		}
	}
	return s
}

// randomTime draws a creation time following a habit.
func randomTime(rng *rand.Rand, start time.Time, habit string, burst time.Time) time.Time {
	day := func() time.Time { return start.AddDate(0, 0, rng.IntN(7*weeks)) }
	at := func(d time.Time, h0, h1 int) time.Time {
		return d.Add(time.Duration(h0)*time.Hour + time.Duration(rng.Float64()*float64(h1-h0)*float64(time.Hour)))
	}
	switch habit {
	case "weekday-work":
		for {
			d := day()
			if wd := d.Weekday(); wd != time.Saturday && wd != time.Sunday {
				return at(d, 9, 19)
			}
		}
	case "mwf-morning":
		for {
			d := day()
			if wd := d.Weekday(); wd == time.Monday || wd == time.Wednesday || wd == time.Friday {
				return at(d, 6, 8)
			}
		}
	case "evening":
		return at(day(), 18, 23)
	case "weekend":
		for {
			d := day()
			if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
				return at(d, 10, 20)
			}
		}
	case "burst":
		return burst.Add(time.Duration(rng.Float64() * float64(5*24*time.Hour)))
	}
	return at(day(), 7, 23)
}

func gauss(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func unit(v []float64) []float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	s = math.Sqrt(s)
	for i := range v {
		v[i] /= s
	}
	return v
}

// jitter returns a unit vector near c: c + sigma·g with g of unit expected norm.
func jitter(rng *rand.Rand, c []float64, sigma float64) []float64 {
	v := make([]float64, len(c))
	sd := sigma / math.Sqrt(float64(len(c)))
	for i := range v {
		v[i] = c[i] + rng.NormFloat64()*sd
	}
	return unit(v)
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
