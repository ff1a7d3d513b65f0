package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/pflag"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/owner"
)

// UserID is the value of --user-id: a platform user's UUID, parsed the same
// way by every command (a bad value is a usage error naming the flag, exit 2).
type UserID struct {
	ID    uuid.UUID
	Given bool
}

// UserIDVar adds --user-id to fs.
func UserIDVar(fs *pflag.FlagSet, u *UserID, usage string) {
	fs.Var((*userIDValue)(u), "user-id", usage)
}

// String is the UUID, or "" when the flag was not given.
func (u UserID) String() string {
	if !u.Given {
		return ""
	}
	return u.ID.String()
}

// Ptr is the UUID, or nil when the flag was not given (for filters).
func (u UserID) Ptr() *uuid.UUID {
	if !u.Given {
		return nil
	}
	id := u.ID
	return &id
}

type userIDValue UserID

func (v *userIDValue) String() string { return UserID(*v).String() }
func (v *userIDValue) Type() string   { return "uuid" }

func (v *userIDValue) Set(s string) error {
	id, err := uuid.Parse(strings.TrimSpace(s))
	if err != nil || strings.TrimSpace(s) == "" {
		return fmt.Errorf("not a UUID (like 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b)")
	}
	v.ID, v.Given = id, true
	return nil
}

// Owner is whom an owned item (skill, composite, tool, schedule) belongs to:
// the user given, or shared when --user-id was not given.
func (u UserID) Owner() owner.Owner {
	if !u.Given {
		return owner.Shared
	}
	return owner.User(u.ID)
}

// OwnerVar adds --user-id to a command that works on owned items: the
// user's own, then the shared ones; without it, the shared ones only.
func OwnerVar(fs *pflag.FlagSet, u *UserID) {
	UserIDVar(fs, u, "act for this user (UUID): their own items first, then the shared ones; without it, shared items only")
}

// CheckOwner refuses a --user-id the platform does not know (exit 2) before
// anything is read or written for it.
func CheckOwner(ctx context.Context, q db.Querier, o owner.Owner) error {
	if err := owner.Check(ctx, q, o); err != nil {
		if errors.Is(err, owner.ErrUnknownUser) {
			return InputError(err)
		}
		return err
	}
	return nil
}
