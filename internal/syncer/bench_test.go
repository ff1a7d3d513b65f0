package syncer

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
)

// benchChanges: n changes over some n/18 entities of three types (4–33
// changes each), each entity edited by 3–5 devices with syncs between them
// (see genChanges).
func benchChanges(n int) []Pending {
	r := rand.New(rand.NewSource(100))
	var ps []Pending
	for len(ps) < n {
		p, _ := genPending(r, 100, []string{"memory", "setting", "skill"})
		for i := range p {
			p[i].EntityID += fmt.Sprintf("-%d", len(ps))
		}
		ps = append(ps, p...)
	}
	return ps[:n]
}

func benchN() int {
	if n, err := strconv.Atoi(os.Getenv("HELIX_BENCH_SYNC_N")); err == nil && n > 0 {
		return n
	}
	return 100000
}

// BenchmarkReconcile measures changes/s on HELIX_BENCH_SYNC_N (default
// 100,000) pending changes: one reconciler walking one batch at a time, two
// such started at once on separate pools (as two hosts would), and one
// reconciler with two walks at once (--concurrency 2); each must process
// every change exactly once and reach the first one's states.
func BenchmarkReconcile(b *testing.B) {
	ctx := context.Background()
	n := benchN()
	var want map[entityKey]stateRow
	for _, cfg := range []struct{ workers, concurrency int }{{1, 1}, {2, 1}, {1, 2}} {
		workers := cfg.workers
		name := fmt.Sprintf("reconcilers=%d", workers)
		if cfg.concurrency > 1 {
			name += fmt.Sprintf("/concurrency=%d", cfg.concurrency)
		}
		b.Run(name, func(b *testing.B) {
			for it := 0; it < b.N; it++ {
				b.StopTimer()
				url := pgtest.URL(b)
				pools := make([]*pgxpool.Pool, workers)
				for i := range pools {
					p, err := pgxpool.New(ctx, url)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					pools[i] = p
				}
				// The changes are made afresh (the same ones) and dropped once
				// uploaded: a reconciler does not hold the uploads in its
				// heap, and 100,000 of them there made each garbage
				// collection scan some 100 MB the job never touches.
				if _, err := Enqueue(ctx, pools[0], benchChanges(n)); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				b.StartTimer()
				start := time.Now()
				cpu0, db0 := clientCPU(), dbCPU(ctx, pools)
				busy0, tot0 := machineCPU()
				counts := make([]Counts, workers)
				errs := make([]error, workers)
				var wg sync.WaitGroup
				for i := range pools {
					wg.Add(1)
					go func(i int) {
						defer wg.Done()
						r := newReconciler(int64(i+1), benchBatch())
						r.Concurrency = cfg.concurrency
						counts[i], errs[i] = r.Run(ctx, pools[i], Filter{})
					}(i)
				}
				wg.Wait()
				elapsed := time.Since(start)
				cpu1, db1 := clientCPU(), dbCPU(ctx, pools)
				busy1, tot1 := machineCPU()
				b.StopTimer()
				total := 0
				for i := range errs {
					if errs[i] != nil {
						b.Fatal(errs[i])
					}
					total += counts[i].Total()
					b.Logf("reconciler %d: %+v", i+1, counts[i])
				}
				if total != n {
					b.Fatalf("processed %d changes, want exactly %d", total, n)
				}
				b.ReportMetric(float64(n)/elapsed.Seconds(), "changes/s")
				if tot1 > tot0 {
					// how much of the machine's CPUs were busy: what is left idle is
					// what more reconcilers could still use
					b.ReportMetric(float64(busy1-busy0)/float64(tot1-tot0)*100, "machine-busy-%")
				}
				// CPU seconds, which the machine's load does not inflate as it
				// does wall time: this process's, and its database backends'.
				b.ReportMetric((cpu1 - cpu0).Seconds(), "client-cpu-s")
				if db0 >= 0 && db1 >= 0 {
					b.ReportMetric((db1 - db0).Seconds(), "db-cpu-s")
				}
				got := loadStates(&testing.T{}, pools[0])
				if want == nil {
					want = got
				} else if !reflect.DeepEqual(got, want) {
					for k, w := range want {
						if !reflect.DeepEqual(got[k], w) {
							b.Fatalf("%v: two reconcilers reached\n%+v\none reached\n%+v", k, got[k], w)
						}
					}
					b.Fatalf("two reconcilers reached other states than one (%d vs %d entities)", len(got), len(want))
				}
			}
		})
	}
}

// clientCPU is the user and system CPU time this process has used.
func clientCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// dbCPU is the CPU time used so far by the server processes of pools'
// connections, from /proc (the server is local in the benchmark setup);
// -1 when it cannot be read.
func dbCPU(ctx context.Context, pools []*pgxpool.Pool) time.Duration {
	var total time.Duration
	for _, p := range pools {
		conns := p.AcquireAllIdle(ctx)
		for _, c := range conns {
			pid := int(c.Conn().PgConn().PID())
			c.Release()
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				return -1
			}
			// fields after the command's closing parenthesis: utime and stime are the 12th and 13th
			f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
			if len(f) < 13 {
				return -1
			}
			ut, _ := strconv.ParseInt(f[11], 10, 64)
			st, _ := strconv.ParseInt(f[12], 10, 64)
			total += time.Duration(ut+st) * (time.Second / 100) // USER_HZ
		}
	}
	return total
}

// BenchmarkApply is the merge alone, without the database: changes/s of
// folding the same random histories into in-memory states.
func BenchmarkApply(b *testing.B) {
	r := rand.New(rand.NewSource(7))
	hist := make([][]Change, 200)
	n := 0
	for i := range hist {
		hist[i] = genChanges(r, 4+r.Intn(30))
		n += len(hist[i])
	}
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		for _, cs := range hist {
			s := &State{}
			for _, c := range cs {
				if _, err := s.Apply(c, FieldLWW); err != nil {
					b.Fatal(err)
				}
			}
			_ = s.Document()
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "changes/s")
}

// machineCPU is the machine's busy and total CPU time so far, in clock
// ticks, from /proc/stat's first line (idle and iowait are not busy); zero
// where it cannot be read.
func machineCPU() (busy, total int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	for i := 1; i < len(f) && i <= 8; i++ { // user nice system idle iowait irq softirq steal
		v, _ := strconv.ParseInt(f[i], 10, 64)
		total += v
		if i != 4 && i != 5 {
			busy += v
		}
	}
	return busy, total
}

// benchBatch is HELIX_BENCH_SYNC_BATCH, else 0: the command's default (a
// revision before DefaultBatch, run by sync.sh's BASE, gets it set).
func benchBatch() int {
	n, _ := strconv.Atoi(os.Getenv("HELIX_BENCH_SYNC_BATCH"))
	return n
}
