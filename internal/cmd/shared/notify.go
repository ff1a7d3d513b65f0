package shared

import (
	"context"
	"log/slog"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/notify"
)

// NotifySettings reads notify.webhook-url, notify.allow-private and
// notify.retry-base; a bad one is an error naming it.
func NotifySettings(cfg *config.Config) (notify.Settings, error) {
	return notify.ParseSettings(cfg.StringSlice("notify.webhook-url"), cfg.String("notify.allow-private"), cfg.String("notify.retry-base"))
}

// NotifyOutbox is the outbox of cfg's webhooks, nil when none is set or
// the settings are bad (warned on log: a notification never fails the
// command that has one to send).
func NotifyOutbox(cfg *config.Config, log *slog.Logger) *notify.Outbox {
	s, err := NotifySettings(cfg)
	if err != nil {
		log.Warn("no notifications", "err", err)
		return nil
	}
	if len(s.Targets) == 0 {
		return nil
	}
	return notify.OutboxOf(s, log)
}

// WithNotify is ctx carrying the outbox of f's notify settings (see
// notify.WithOutbox): the events the domain code tells in its transactions
// (a tool revoked, a widening proposed) reach the webhooks.
func WithNotify(ctx context.Context, f *cmdutil.Factory) context.Context {
	cfg, err := f.Config()
	if err != nil {
		return ctx
	}
	return notify.WithOutbox(ctx, NotifyOutbox(cfg, f.Logger()))
}
