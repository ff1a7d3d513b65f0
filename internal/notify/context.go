package notify

import "context"

type outboxKey struct{}

// WithOutbox carries o to the domain code under ctx that has events to tell
// in its own transactions (the manifest store: a tool revoked, a widening
// proposed) without a parameter through every caller.
func WithOutbox(ctx context.Context, o *Outbox) context.Context {
	if o == nil {
		return ctx
	}
	return context.WithValue(ctx, outboxKey{}, o)
}

// FromContext is the outbox WithOutbox put in ctx, or nil (which queues nothing).
func FromContext(ctx context.Context) *Outbox {
	o, _ := ctx.Value(outboxKey{}).(*Outbox)
	return o
}
