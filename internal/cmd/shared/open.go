package shared

import (
	"errors"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
)

// OpenError maps a failure to open the database to its exit code.
func OpenError(err error) error {
	if errors.Is(err, db.ErrNoURL) {
		return cmdutil.InputError(err)
	}
	return cmdutil.UnavailableError(err)
}
