// Expected FSRS-6 states for internal/decay's replay test, computed by the
// reference implementation ts-fsrs (run through scripts/fsrs/reference.sh).
//
// Each memory is created as a first review rated Good, then reviewed (Good)
// at the listed instants, as helix sees an access. A review on the UTC day of
// the previous one counts zero elapsed days, as ts-fsrs's scheduler counts
// them (dateDiffInDays), and takes FSRS-6's short-term stability; any other
// review passes the exact elapsed time in days. After every review the test
// runs decay at "at" and compares S, D and R (R at "at"; r_before is the
// retrievability at the review instant, from the state before it).
//
// The steps of all memories are merged in time order and every "at" lies
// before the next step's review, so that the same list replays as
// consecutive incremental `helix decay run`s.
import { createRequire } from "node:module";
const require = createRequire(process.env.TS_FSRS_DIR + "/");
const tsfsrs = require("ts-fsrs");
const { fsrs, Rating } = tsfsrs;

const f = fsrs(); // default parameters: FSRS-6 weights, short-term on
const DAY = 86400000;
const ms = (s) => Date.parse(s);
const iso = (t) => new Date(t).toISOString();

function utcDays(a, b) {
  const d = (t) => { const x = new Date(t); return Date.UTC(x.getUTCFullYear(), x.getUTCMonth(), x.getUTCDate()); };
  return Math.floor((d(b) - d(a)) / DAY);
}

// Reviews as offsets in days from the previous review (fractions allowed).
const memories = [
  { name: "daily", created: "2026-01-01T08:00:00Z", gaps: Array(10).fill(1) },
  { name: "same-day", created: "2026-01-02T08:00:00Z",
    gaps: [1 / 24, 3.5 / 24, 4.5 / 24, 15 / 24, 2 / 24, 3, 0.1, 0.2, 30, 1 / 1440] },
  { name: "irregular", created: "2026-01-03T23:10:00Z",
    gaps: [0.3, 2.7, 0.01, 15.5, 40.25, 1.2, 90.9, 365, 0.0416, 700] },
  { name: "to-the-cap", created: "2026-01-04T06:00:00Z", gaps: [] }, // filled below: each review at R ≈ 0.6
  { name: "long-gaps", created: "2026-01-05T12:00:00Z", gaps: [200, 500, 1000, 3000, 0.05, 9000] },
  { name: "minutes", created: "2026-01-06T20:00:00Z", gaps: [5 / 1440, 10 / 1440, 3 / 24, 4.2 / 24, 1, 1, 2, 4, 8, 16] },
];

// to-the-cap: wait until retention falls to 0.6 each time; stability reaches
// S_MAX = 36,500 days on the fifth review, and stays there after a review a
// day later and another the same day.
{
  let s = f.next_state(null, 0, Rating.Good).stability, st = f.next_state(null, 0, Rating.Good);
  const m = memories.find((m) => m.name === "to-the-cap");
  for (let i = 0; i < 5; i++) {
    const decay = -f.parameters.w[20], factor = Math.pow(0.9, 1 / decay) - 1;
    const t = (Math.pow(0.6, 1 / decay) - 1) / factor * s;
    m.gaps.push(Math.round(t * 86400) / 86400);
    st = f.next_state(st, t, Rating.Good);
    s = st.stability;
  }
  m.gaps.push(1, 0.01);
}

const events = [];
const finals = [];
memories.forEach((m, idx) => {
  let state = f.next_state(null, 0, Rating.Good);
  let prev = ms(m.created);
  for (const g of m.gaps) {
    const t = prev + Math.round(g * 86400) * 1000; // whole seconds
    const elapsed = utcDays(prev, t) === 0 ? 0 : (t - prev) / DAY;
    const before = f.forgetting_curve((t - prev) / DAY, state.stability);
    state = f.next_state(state, elapsed, Rating.Good);
    events.push({ memory: idx, t, before, s: state.stability, d: state.difficulty, same_day: elapsed === 0 });
    prev = t;
  }
  finals.push({ memory: idx, last: prev, s: state.stability });
});
events.sort((a, b) => a.t - b.t || a.memory - b.memory);
const steps = events.map((e, i) => {
  // Look at it a while later, but before the next review of any memory.
  const next = i + 1 < events.length ? events[i + 1].t : e.t + 30 * DAY;
  const at = Math.min(e.t + Math.max(3600000, Math.min(20 * DAY, e.s * DAY)), next);
  return {
    memory: e.memory, review: iso(e.t), r_before: e.before, at: iso(at), same_day: e.same_day,
    s: e.s, d: e.d, r: f.forgetting_curve((at - e.t) / DAY, e.s),
  };
});
const end = events[events.length - 1].t + 365 * DAY;
const out = {
  generator: "scripts/fsrs/reference.sh (ts-fsrs " + (tsfsrs.FSRSVersion ?? "") + ")",
  weights: Array.from(f.parameters.w),
  memories: memories.map((m) => ({ name: m.name, created: m.created })),
  steps,
  end: iso(end),
  end_r: finals.map((x) => f.forgetting_curve((end - x.last) / DAY, x.s)),
};
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
