// Package composite implements the composite-skill commands of `helix skill`:
// validate, add-composite and run.
package composite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/composite"
)

// readDefinition reads a definition file ("-" for stdin) and checks it,
// skills included. Problems are an input error (exit 2) listing them all.
func readDefinition(ctx context.Context, f *cmdutil.Factory, file string, in io.Reader, reg composite.Checker) (*composite.Definition, error) {
	var (
		src []byte
		err error
	)
	name, dir := file, filepath.Dir(file)
	if file == "-" {
		name, dir = "stdin", "."
		src, err = io.ReadAll(in)
	} else {
		src, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, cmdutil.InputError(err)
	}
	d, err := composite.Validate(ctx, src, name, dir, reg)
	var inv *composite.InvalidError
	if errors.As(err, &inv) {
		return d, cmdutil.InputError(err)
	}
	if err != nil {
		return nil, fmt.Errorf("check the skills of %s: %w", name, err)
	}
	return d, nil
}
