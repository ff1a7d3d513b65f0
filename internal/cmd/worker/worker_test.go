package worker

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/queue"
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
