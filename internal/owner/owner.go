// Package owner is the one mechanism by which skills, composite skills, tools
// and schedules belong to a user or are shared: a nullable user_id column
// (NULL: shared, the operator's), resolved "the user's own, then shared".
package owner

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/db"
)

// Owner is who a command acts for: a user, or nobody (the operator, whose
// items are shared with every user). The zero Owner is the operator.
type Owner struct {
	User uuid.UUID
	Set  bool // false: the operator (shared items only)
}

// User is the owner for a user's items.
func User(id uuid.UUID) Owner { return Owner{User: id, Set: true} }

// Shared is the operator: items every user sees.
var Shared = Owner{}

// FromPtr is User(*id), or Shared for nil.
func FromPtr(id *uuid.UUID) Owner {
	if id == nil {
		return Shared
	}
	return User(*id)
}

// Arg is the owner as a query parameter ($n::uuid): nil for shared.
func (o Owner) Arg() any {
	if !o.Set {
		return nil
	}
	return o.User.String()
}

// Ptr is the user, or nil for shared (for JSON).
func (o Owner) Ptr() *uuid.UUID {
	if !o.Set {
		return nil
	}
	id := o.User
	return &id
}

// String is the user's UUID, or "shared".
func (o Owner) String() string {
	if !o.Set {
		return "shared"
	}
	return o.User.String()
}

// LockKey scopes a per-name advisory lock to the owner's namespace.
func (o Owner) LockKey(name string) string {
	return o.String() + "/" + name
}

// Visible is the condition for rows o may use: its own and the shared ones
// (for the operator, the shared ones only). col is the owner column, param
// the placeholder number holding o.Arg().
func Visible(col string, param int) string {
	return "(" + col + " IS NULL OR " + col + " = $" + strconv.Itoa(param) + "::uuid)"
}

// Owned is the condition for rows o may change: exactly its own namespace
// (the operator: the shared rows; a user: never a shared row).
func Owned(col string, param int) string {
	return col + " IS NOT DISTINCT FROM $" + strconv.Itoa(param) + "::uuid"
}

// OwnFirst orders a user's own row before a shared one of the same name:
// the resolver is WHERE Visible(...) ORDER BY OwnFirst(...), ... LIMIT 1.
func OwnFirst(col string) string {
	return "(" + col + " IS NULL)"
}

// ErrUnknownUser is a --user-id naming no user of the platform.
var ErrUnknownUser = errors.New("unknown user")

// Check refuses a user the platform does not know (auth.users, where the
// database has it; on a plain PostgreSQL without the auth schema any UUID is
// a user). The operator always passes.
func Check(ctx context.Context, q db.Querier, o Owner) error {
	if !o.Set {
		return nil
	}
	var hasUsers bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('auth.users') IS NOT NULL`).Scan(&hasUsers); err != nil || !hasUsers {
		return err
	}
	var known bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth.users WHERE id = $1::uuid)`, o.User.String()).Scan(&known); err != nil {
		return err
	}
	if !known {
		return fmt.Errorf("%w %s: not in auth.users (check --user-id)", ErrUnknownUser, o.User)
	}
	return nil
}
