// Package importcmd implements `helix import memories`.
package importcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/memories"
)

// NewCmdImport is the `import` group.
func NewCmdImport(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import <command>",
		Short: "Bulk-load data into the database",
	}
	cmd.AddCommand(NewCmdMemories(f, nil))
	return cmd
}

// MemoriesOptions are the inputs of `import memories`.
type MemoriesOptions struct {
	IO   *iostreams.IOStreams
	F    *cmdutil.Factory
	File string
}

// NewCmdMemories loads a JSON Lines file of memories.
func NewCmdMemories(f *cmdutil.Factory, runF func(*MemoriesOptions) error) *cobra.Command {
	opts := &MemoriesOptions{IO: f.IOStreams, F: f}
	return &cobra.Command{
		Use:   "memories FILE.jsonl|-",
		Short: "Bulk-load memories from JSON Lines",
		Long: `Bulk-load memories from a JSON Lines file (or - for stdin), one object per line
with the memories columns:

  {"user_id": "…", "type": "episodic|semantic|procedural", "content": "…",
   "embedding": [0.1, …], "emotional_valence": -0.4,
   "created_at": "2026-10-01T08:30:00Z", "last_accessed": "…", "id": "…"}

id, embedding, emotional_valence, last_accessed and access_count are optional.
A missing id is derived from the user, type, time and content, so importing
the same file twice adds nothing the second time. Every line is validated
before anything is written: one bad line (or an unknown field) loads nothing
and the error names its line (exit 2).

EXAMPLES
  helix import memories testdata/demo/memories.jsonl
  export-memories | helix import memories - --output json

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			return memoriesRun(cmd.Context(), opts)
		},
	}
}

func memoriesRun(ctx context.Context, opts *MemoriesOptions) error {
	var r io.Reader = opts.IO.In
	name := "stdin"
	if opts.File != "-" {
		fh, err := os.Open(opts.File)
		if err != nil {
			return cmdutil.InputError(err)
		}
		defer fh.Close()
		r, name = fh, opts.File
	}
	ms, err := memories.Parse(r, opts.F.Now())
	if err != nil {
		var le *memories.LineError
		if errors.As(err, &le) {
			return cmdutil.InputError(fmt.Errorf("%s: %w (nothing was imported)", name, err))
		}
		return cmdutil.InputError(fmt.Errorf("read %s: %w", name, err))
	}
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	res, err := memories.Insert(ctx, pool, ms)
	if err != nil {
		return fmt.Errorf("import %s: %w (nothing was imported)", name, err)
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	_, err = fmt.Fprintf(opts.IO.Out, "imported %d memories from %s (%d read, %d already present)\n", res.Inserted, name, res.Read, res.Existing)
	return err
}
