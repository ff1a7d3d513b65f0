package worker

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/testbin"
)

func TestNewCmdWorkerFlags(t *testing.T) {
	for _, tt := range []struct {
		argv    string
		wantErr string
		check   func(*Options) bool
	}{
		{"", "", func(o *Options) bool {
			return slices.Equal(o.Queues, queue.Queues) && o.Concurrency == 4 && o.ShutdownTimeout == 30*time.Second && !o.Once
		}},
		{"--queues synthesize --concurrency 8 --shutdown-timeout 2m --once", "", func(o *Options) bool {
			return o.Concurrency == 8 && o.ShutdownTimeout == 2*time.Minute && o.Once
		}},
		{"--queues nope", `unknown queue "nope"`, nil},
		{"--concurrency 0", "invalid --concurrency 0", nil},
		{"--job-timeout 2h --rescue-after 1h", "must exceed --job-timeout", nil},
	} {
		t.Run(tt.argv, func(t *testing.T) {
			f, _ := cmdtest.Factory(t, false)
			var got *Options
			cmd := NewCmdWorker(f, func(o *Options) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(tt.argv))
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if tt.wantErr != "" {
				var fe *cmdutil.FlagError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &fe) {
					t.Fatalf("error %v, want a flag error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(got) {
				t.Fatalf("err %v, options %+v", err, got)
			}
		})
	}
}

func TestConnsNeeded(t *testing.T) {
	for _, tt := range []struct {
		queues []string
		conc   int
		want   int
	}{
		{[]string{"embed"}, 4, 3 + 4},
		{[]string{"synthesize"}, 4, 3 + 8},
		{[]string{"schedule_tick", "schedule"}, 3, 3 + 1 + 3},
	} {
		if got := ConnsNeeded(tt.queues, tt.conc); got != tt.want {
			t.Errorf("ConnsNeeded(%v, %d) = %d, want %d", tt.queues, tt.conc, got, tt.want)
		}
	}
}

// TestDefaultsAgree (issue 49, item 14): a worker started with its
// defaults (no db.max-conns, every queue, --concurrency 4) sizes its pool
// to what it needs and warns about nothing; db.max-conns set lower is still
// warned about, with the figure to set.
func TestDefaultsAgree(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir(), "DATABASE_URL=" + url}
	need := ConnsNeeded(queue.Queues, 4)
	for _, c := range []struct {
		env  []string
		want string
		warn bool
	}{
		{nil, fmt.Sprintf("needs=%d max_conns=%d", need, need), false},
		{[]string{"HELIX_DB_MAX_CONNS=8"}, fmt.Sprintf("needs=%d max_conns=8", need), true},
	} {
		p := testbin.Start(t, append(env, c.env...), "worker", "--once")
		if code := p.Wait(t, 2*time.Minute); code != 0 {
			t.Fatalf("worker --once %v: exit %d\n%s", c.env, code, p.Stderr.String())
		}
		errs := p.Stderr.String()
		if !strings.Contains(errs, c.want) || strings.Contains(errs, "level=WARN") != c.warn {
			t.Errorf("worker --once %v: want %q, a warning %v:\n%s", c.env, c.want, c.warn, errs)
		}
	}
}
