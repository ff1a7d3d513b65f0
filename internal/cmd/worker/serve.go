package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/metrics"
	"github.com/helixhq/helix/internal/queuestats"
)

// listenAddr completes --listen: a bare port or ":port" listens on the
// loopback interface only; a host must be given to listen wider.
func listenAddr(s string) (string, error) {
	if _, err := strconv.ParseUint(s, 10, 16); err == nil {
		return net.JoinHostPort("127.0.0.1", s), nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", cmdutil.FlagErrorf("invalid --listen %q: want PORT or HOST:PORT", s)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", cmdutil.FlagErrorf("invalid --listen %q: bad port %q", s, port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// health is what /healthz and /readyz answer from.
type health struct {
	pool *pgxpool.Pool
	// pending counts migrations the database lacks (db.Migrator.Pending).
	pending func(ctx context.Context) (int, error)

	started  atomic.Bool
	draining atomic.Bool
	stopped  <-chan struct{} // River's client stopped (set once started)

	mu        sync.Mutex
	checked   time.Time // last database check
	dbErr     error
	schemaAt  time.Time // last schema check
	schemaErr error
}

// dbEvery and schemaEvery bound how often probes reach the database.
const (
	dbEvery     = time.Second
	schemaEvery = 30 * time.Second
)

func (h *health) livez(w http.ResponseWriter, _ *http.Request) {
	if h.started.Load() && !h.draining.Load() {
		select {
		case <-h.stopped: // set before started: the atomic orders the two
			http.Error(w, "river client stopped", http.StatusServiceUnavailable)
			return
		default:
		}
	}
	fmt.Fprintln(w, "ok")
}

func (h *health) readyz(w http.ResponseWriter, r *http.Request) {
	switch {
	case h.draining.Load():
		http.Error(w, "not ready: draining (shutting down)", http.StatusServiceUnavailable)
		return
	case !h.started.Load():
		http.Error(w, "not ready: starting", http.StatusServiceUnavailable)
		return
	}
	if err := h.check(r.Context()); err != nil {
		http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ok")
}

// check asks the database at most once a second, and whether its schema is
// current at most every 30 seconds (and after the database came back).
func (h *health) check(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	if now.Sub(h.checked) < dbEvery {
		return errors.Join(h.dbErr, h.schemaErr)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	h.checked = now
	if _, h.dbErr = h.pool.Exec(ctx, `SELECT 1`); h.dbErr != nil {
		h.dbErr = fmt.Errorf("database: %w", h.dbErr)
		h.schemaAt = time.Time{}
		return h.dbErr
	}
	if now.Sub(h.schemaAt) >= schemaEvery {
		n, err := h.pending(ctx)
		h.schemaAt, h.schemaErr = now, err
		switch {
		case err != nil:
			h.schemaErr = fmt.Errorf("schema: %w", err)
			h.schemaAt = time.Time{}
		case n > 0:
			h.schemaErr = fmt.Errorf("schema: %d migrations pending (helix migrate up)", n)
		}
	}
	return h.schemaErr
}

// serve listens on addr for /healthz, /readyz and, with reg, /metrics. The
// listener is open when serve returns (a taken port is an error at start).
func serve(addr string, h *health, reg *prometheus.Registry, log *slog.Logger) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("worker: --listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", h.livez)
	mux.HandleFunc("GET /readyz", h.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn), Timeout: 20 * time.Second}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Info("worker listening", "addr", ln.Addr().String(), "endpoints", "/healthz /readyz /metrics")
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("worker: serve", "err", err)
		}
	}()
	return srv, nil
}

// observer is --listen: this worker's probes and metrics. In order: its
// middleware goes into River's config, attach once the client exists,
// started once it runs, drain when asked to stop (before River stops),
// close last.
type observer struct {
	addr    string
	log     *slog.Logger
	pool    *pgxpool.Pool
	m       *metrics.Metrics
	h       *health
	mig     *db.Migrator
	srv     *http.Server
	unwatch func()
}

func newObserver(addr string, pool *pgxpool.Pool, queues []string, kinds int, log *slog.Logger) (*observer, error) {
	mig, err := db.NewMigrator(pool)
	if err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	o := &observer{addr: addr, log: log, pool: pool, mig: mig, m: metrics.New(prometheus.NewRegistry()),
		h: &health{pool: pool, pending: mig.Pending, stopped: make(chan struct{})}}
	o.m.WatchPool(pool)
	// The Reader recounts the finalized states' groups a few a read, each
	// about every minute: a scrape's database work stays bounded.
	r := &queuestats.Reader{DB: pool, Queues: queues}
	o.m.WatchQueues(&queuestats.Cache{TTL: queueStatsTTL, Read: r.Read}, queues, kinds)
	return o, nil
}

// queueStatsTTL is how long queue figures are reused between scrapes.
const queueStatsTTL = 5 * time.Second

// attach counts the client's job events and opens the port, before the
// client starts: probes answer (not ready) during start-up, and a port
// already taken fails the start.
func (o *observer) attach(client *river.Client[pgx.Tx]) error {
	events, unwatch := client.SubscribeConfig(&river.SubscribeConfig{ChanSize: 10_000, Kinds: metrics.Events})
	o.unwatch = unwatch
	go o.m.Watch(events)
	srv, err := serve(o.addr, o.h, o.m.Registry, o.log)
	o.srv = srv
	return err
}

// started reports ready, and not alive once the client stops unasked.
func (o *observer) started(stopped <-chan struct{}) {
	o.h.stopped = stopped
	o.h.started.Store(true)
}

// drain reports not-ready: called before the client is asked to stop.
func (o *observer) drain() { o.h.draining.Store(true) }

func (o *observer) close() {
	if o.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = o.srv.Shutdown(ctx)
	}
	if o.unwatch != nil {
		o.unwatch()
	}
	_ = o.mig.Close()
}
