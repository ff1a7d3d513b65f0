// Package metrics is what `helix worker --listen` exposes to Prometheus: the
// jobs it works, the queues, schedules, providers, LLM spending and its pool.
package metrics

import (
	"cmp"
	"context"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/helixhq/helix/internal/build"
	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/llmsynth"
	"github.com/helixhq/helix/internal/queuestats"
)

// Metrics are one process's collectors, registered on the registry given
// to New (never the global one: tests build as many as they like).
type Metrics struct {
	Registry *prometheus.Registry

	started, completed, failed, retried, discarded, cancelled, snoozed, interrupted *prometheus.CounterVec
	running                                                                         *prometheus.GaugeVec
	duration, wait                                                                  *prometheus.HistogramVec

	fires *prometheus.CounterVec

	provRequests, provErrors, provRetries *prometheus.CounterVec
	provLatency                           *prometheus.HistogramVec

	tokens, usd *prometheus.CounterVec

	queueErrors prometheus.Counter
}

// New registers helix's metrics, Go's and the process's on reg.
func New(reg *prometheus.Registry) *Metrics {
	m := &Metrics{Registry: reg}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
		reg.MustRegister(c)
		return c
	}
	m.started = counter("helix_jobs_started_total", "Jobs this worker started, by kind.", "kind")
	m.completed = counter("helix_jobs_completed_total", "Jobs this worker completed, by kind.", "kind")
	m.failed = counter("helix_jobs_failed_total", "Job attempts that failed (retried or discarded), by kind.", "kind")
	m.retried = counter("helix_jobs_retried_total", "Failed attempts that will be tried again, by kind.", "kind")
	m.discarded = counter("helix_jobs_discarded_total", "Jobs discarded after their last failed attempt, by kind.", "kind")
	m.cancelled = counter("helix_jobs_cancelled_total", "Jobs cancelled while this worker ran them, by kind.", "kind")
	m.snoozed = counter("helix_jobs_snoozed_total", "Jobs put back for later because another run held their lock (a lock skip), by kind.", "kind")
	m.interrupted = counter("helix_jobs_interrupted_total", "Running jobs handed back to the queue at shutdown, by kind.", "kind")
	m.running = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "helix_jobs_running", Help: "Jobs running on this worker now, by kind."}, []string{"kind"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "helix_job_duration_seconds",
		Help:    "Time a job's attempt ran, by kind and outcome.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800}}, []string{"kind", "outcome"})
	m.wait = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "helix_job_queue_wait_seconds",
		Help:    "Time a job waited between becoming available and starting, by kind.",
		Buckets: []float64{.01, .05, .1, .5, 1, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600}}, []string{"kind"})
	reg.MustRegister(m.running, m.duration, m.wait)

	m.fires = counter("helix_schedule_fires_total", "Schedule fires this worker finished, by outcome (ok, partial, failed, skipped, interrupted, late, auto_disabled).", "outcome")

	m.provRequests = counter("helix_provider_requests_total", "HTTP requests to providers (every attempt), by provider host.", "provider")
	m.provErrors = counter("helix_provider_errors_total", "Provider requests that failed (network error or non-2xx), by provider host and reason.", "provider", "reason")
	m.provRetries = counter("helix_provider_retries_total", "Provider requests tried again after a failure, by provider host.", "provider")
	m.provLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "helix_provider_request_duration_seconds",
		Help:    "Time of one provider request (one attempt), by provider host.",
		Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}}, []string{"provider"})
	reg.MustRegister(m.provLatency)

	m.tokens = counter("helix_llm_tokens_total", "LLM tokens billed, by model and type (input, output, cache_read, cache_write).", "model", "type")
	m.usd = counter("helix_llm_cost_usd_total", "LLM spending in US dollars at the catalog's prices, by model.", "model")

	bi := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "helix_build_info", Help: "helix's version, commit and Go version; always 1."},
		[]string{"version", "commit", "goversion"})
	bi.WithLabelValues(build.Version, build.Commit, runtime.Version()).Set(1)
	reg.MustRegister(bi)

	m.queueErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "helix_queue_stats_errors_total", Help: "Failed reads of the queue figures."})
	reg.MustRegister(m.queueErrors, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Middleware counts starts and running jobs; River's events (Watch) count
// how attempts ended, after River has recorded it.
func (m *Metrics) Middleware() rivertype.WorkerMiddleware { return &middleware{m: m} }

type middleware struct {
	river.MiddlewareDefaults
	m *Metrics
}

func (w *middleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	w.m.started.WithLabelValues(job.Kind).Inc()
	g := w.m.running.WithLabelValues(job.Kind)
	g.Inc()
	defer g.Dec()
	return doInner(WithObservers(ctx, w.m))
}

// Events are the River events Watch needs; pass them to Client.SubscribeConfig.
var Events = []river.EventKind{river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled,
	river.EventKindJobSnoozed, river.EventKindJobInterrupted}

// Watch counts events until the channel closes.
func (m *Metrics) Watch(events <-chan *river.Event) {
	for ev := range events {
		if ev == nil || ev.Job == nil {
			continue
		}
		kind := ev.Job.Kind
		outcome := ""
		switch ev.Kind {
		case river.EventKindJobCompleted:
			m.completed.WithLabelValues(kind).Inc()
			outcome = "completed"
		case river.EventKindJobFailed:
			m.failed.WithLabelValues(kind).Inc()
			outcome = "failed"
			if ev.Job.State == rivertype.JobStateDiscarded {
				m.discarded.WithLabelValues(kind).Inc()
			} else {
				m.retried.WithLabelValues(kind).Inc()
			}
		case river.EventKindJobCancelled:
			m.cancelled.WithLabelValues(kind).Inc()
			outcome = "cancelled"
		case river.EventKindJobSnoozed:
			m.snoozed.WithLabelValues(kind).Inc()
			outcome = "snoozed"
		case river.EventKindJobInterrupted:
			m.interrupted.WithLabelValues(kind).Inc()
			outcome = "interrupted"
		}
		if outcome != "" && ev.JobStats != nil {
			m.duration.WithLabelValues(kind, outcome).Observe(ev.JobStats.RunDuration.Seconds())
			m.wait.WithLabelValues(kind).Observe(ev.JobStats.QueueWaitDuration.Seconds())
		}
	}
}

// WithObservers returns ctx carrying m for the provider clients and LLM
// calls a job makes (httpretry.WithObserver, llmsynth.WithUsageObserver).
func WithObservers(ctx context.Context, m *Metrics) context.Context {
	return llmsynth.WithUsageObserver(httpretry.WithObserver(ctx, m), m)
}

// ScheduleFire counts a schedule fire's outcome (schedule.Config.Observe).
func (m *Metrics) ScheduleFire(outcome string) { m.fires.WithLabelValues(outcome).Inc() }

// ProviderRequest counts one attempt of a provider request
// (httpretry.Observer): reason is "" for a 2xx answer, else the status
// code's class (4xx, 5xx), "network" or "too_large" (an answer over the cap).
func (m *Metrics) ProviderRequest(u *url.URL, reason string, took time.Duration) {
	p := provider(u)
	m.provRequests.WithLabelValues(p).Inc()
	m.provLatency.WithLabelValues(p).Observe(took.Seconds())
	if reason != "" {
		m.provErrors.WithLabelValues(p, reason).Inc()
	}
}

// ProviderRetry counts a provider request tried again (httpretry.Observer).
func (m *Metrics) ProviderRetry(u *url.URL) { m.provRetries.WithLabelValues(provider(u)).Inc() }

// LLMUsage counts an LLM call's tokens and cost (llmsynth.UsageObserver).
func (m *Metrics) LLMUsage(model string, input, output, cacheRead, cacheWrite int64, usd float64) {
	for t, n := range map[string]int64{"input": input, "output": output, "cache_read": cacheRead, "cache_write": cacheWrite} {
		if n > 0 {
			m.tokens.WithLabelValues(model, t).Add(float64(n))
		}
	}
	if usd > 0 {
		m.usd.WithLabelValues(model).Add(usd)
	}
}

// provider names a provider by its host: the same key whatever client
// (embeddings, speech, LLM) calls it. Hosts are few, so labels stay few.
func provider(u *url.URL) string {
	if u == nil || u.Host == "" {
		return "unknown"
	}
	return u.Host
}

// WatchPool exports a pgx pool's statistics.
func (m *Metrics) WatchPool(pool *pgxpool.Pool) { m.Registry.MustRegister(&poolCollector{pool: pool}) }

var (
	poolAcquired  = prometheus.NewDesc("helix_db_pool_acquired_conns", "Connections of the pool in use.", nil, nil)
	poolIdle      = prometheus.NewDesc("helix_db_pool_idle_conns", "Idle connections of the pool.", nil, nil)
	poolTotal     = prometheus.NewDesc("helix_db_pool_total_conns", "Connections of the pool, open or opening.", nil, nil)
	poolMax       = prometheus.NewDesc("helix_db_pool_max_conns", "The pool's maximum (db.max-conns).", nil, nil)
	poolAcquires  = prometheus.NewDesc("helix_db_pool_acquires_total", "Connections taken from the pool.", nil, nil)
	poolEmpty     = prometheus.NewDesc("helix_db_pool_empty_acquires_total", "Acquires that waited because the pool was empty.", nil, nil)
	poolCancelled = prometheus.NewDesc("helix_db_pool_canceled_acquires_total", "Acquires given up by their caller.", nil, nil)
	poolWait      = prometheus.NewDesc("helix_db_pool_acquire_wait_seconds_total", "Time spent waiting for a connection.", nil, nil)
)

type poolCollector struct{ pool *pgxpool.Pool }

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolAcquired, poolIdle, poolTotal, poolMax, poolAcquires, poolEmpty, poolCancelled, poolWait} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(poolAcquired, prometheus.GaugeValue, float64(s.AcquiredConns()))
	ch <- prometheus.MustNewConstMetric(poolIdle, prometheus.GaugeValue, float64(s.IdleConns()))
	ch <- prometheus.MustNewConstMetric(poolTotal, prometheus.GaugeValue, float64(s.TotalConns()))
	ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(poolAcquires, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolEmpty, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolCancelled, prometheus.CounterValue, float64(s.CanceledAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWait, prometheus.CounterValue, s.AcquireDuration().Seconds())
}

// WatchQueues exports the queue figures the cache holds, read at most once
// per its TTL however often Prometheus scrapes. The kinds beyond the kinds
// most numerous are summed into kind="other", so the series stay bounded
// whatever jobs the table holds. Queues are reported with an age of 0 when
// they have no available job.
func (m *Metrics) WatchQueues(c *queuestats.Cache, queues []string, kinds int) {
	m.Registry.MustRegister(&queueCollector{m: m, c: c, queues: queues, kinds: kinds})
}

// OtherKind is the kind label of the kinds folded together.
const OtherKind = "other"

var (
	queueJobs      = prometheus.NewDesc("helix_queue_jobs", "Jobs in river_job by state, queue and kind (all workers'); see helix_queue_jobs_estimated.", []string{"state", "queue", "kind"}, nil)
	queueEstimated = prometheus.NewDesc("helix_queue_jobs_estimated", "1 where some of a state's counts are estimates (a group of more jobs than helix counts exactly), else 0.", []string{"state"}, nil)
	queueOldest    = prometheus.NewDesc("helix_queue_oldest_available_age_seconds", "Age of the oldest available job, by queue: every queue with available jobs, served or not (0: none available).", []string{"queue"}, nil)
	queueRows      = prometheus.NewDesc("helix_queue_table_rows", "Live rows of river_job (statistics collector).", nil, nil)
	queueDBTime    = prometheus.NewDesc("helix_queue_stats_read_seconds", "Database time of the last read of the queue figures.", nil, nil)
	queueAge       = prometheus.NewDesc("helix_queue_stats_age_seconds", "How old the queue figures are (they are cached between scrapes).", nil, nil)
	queueFinAge    = prometheus.NewDesc("helix_queue_stats_finished_age_seconds", "How old the oldest count of a finalized state (completed, cancelled, discarded) is: they are counted again a few groups a read, each about every minute.", nil, nil)
)

type queueCollector struct {
	m      *Metrics
	c      *queuestats.Cache
	queues []string
	kinds  int
}

func (q *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{queueJobs, queueEstimated, queueOldest, queueRows, queueDBTime, queueAge, queueFinAge} {
		ch <- d
	}
}

func (q *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := q.c.Get(ctx)
	if err != nil {
		q.m.queueErrors.Inc()
	}
	if f == nil {
		return
	}
	_, est := f.ByState()
	for _, s := range queuestats.States {
		v := 0.0
		if est[s] {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(queueEstimated, prometheus.GaugeValue, v, s)
	}
	for _, c := range FoldKinds(f.Counts, q.kinds) {
		ch <- prometheus.MustNewConstMetric(queueJobs, prometheus.GaugeValue, float64(c.Jobs), c.State, c.Queue, c.Kind)
	}
	seen := map[string]bool{}
	for _, o := range f.Oldest {
		seen[o.Queue] = true
		ch <- prometheus.MustNewConstMetric(queueOldest, prometheus.GaugeValue, o.AgeSeconds, o.Queue)
	}
	for _, name := range q.queues {
		if !seen[name] {
			ch <- prometheus.MustNewConstMetric(queueOldest, prometheus.GaugeValue, 0, name)
		}
	}
	ch <- prometheus.MustNewConstMetric(queueRows, prometheus.GaugeValue, float64(f.TableRows))
	ch <- prometheus.MustNewConstMetric(queueDBTime, prometheus.GaugeValue, f.DBTime.Seconds())
	ch <- prometheus.MustNewConstMetric(queueAge, prometheus.GaugeValue, time.Since(f.Taken).Seconds())
	fin := f.FinishedAt
	if fin.IsZero() {
		fin = f.Taken
	}
	ch <- prometheus.MustNewConstMetric(queueFinAge, prometheus.GaugeValue, time.Since(fin).Seconds())
}

// FoldKinds keeps the counts of the limit kinds with the most jobs (all
// states and queues together; ties by name) and sums the others into kind
// OtherKind by state and queue. limit <= 0 keeps every kind.
func FoldKinds(counts []queuestats.Count, limit int) []queuestats.Count {
	total := map[string]int64{}
	for _, c := range counts {
		total[c.Kind] += c.Jobs
	}
	if limit <= 0 || len(total) <= limit {
		return counts
	}
	kinds := make([]string, 0, len(total))
	for k := range total {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if c := cmp.Compare(total[b], total[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	keep := map[string]bool{}
	for _, k := range kinds[:limit] {
		keep[k] = true
	}
	var out []queuestats.Count
	other := map[[2]string]int{} // (state, queue) → index in out
	for _, c := range counts {
		if keep[c.Kind] {
			out = append(out, c)
			continue
		}
		k := [2]string{c.State, c.Queue}
		if i, ok := other[k]; ok {
			out[i].Jobs += c.Jobs
			out[i].Estimated = out[i].Estimated || c.Estimated
			continue
		}
		other[k] = len(out)
		c.Kind = OtherKind
		out = append(out, c)
	}
	return out
}
