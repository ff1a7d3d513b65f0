package memory

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/search"
)

// ReindexOptions are the inputs of `memory reindex`.
type ReindexOptions struct {
	IO       *iostreams.IOStreams
	JSON     bool
	DB       func(ctx context.Context) (*pgxpool.Pool, error)
	Language string
}

// NewCmdReindex builds `helix memory reindex`.
func NewCmdReindex(f *cmdutil.Factory, runF func(*ReindexOptions) error) *cobra.Command {
	opts := &ReindexOptions{IO: f.IOStreams, DB: f.DB}
	cmd := &cobra.Command{
		Use:   "reindex --language CONFIG",
		Short: "Rebuild the full-text index of memories in another language",
		Long: `Set the text search configuration of the memories' full-text index
(helix_search_settings.language; english after migration) and rebuild every
memory's tsvector in it, in one transaction. New and edited memories are then
indexed in that language by the trigger, and helix memory search stems queries
in it. The configurations are PostgreSQL's: SELECT cfgname FROM pg_ts_config
(simple, english, german, french, spanish, …).

EXAMPLES
  helix memory reindex --language german
  helix memory reindex --language simple -o json

` + cmdutil.ExitStatusLocked,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.JSON = f.Global.JSON()
			if opts.Language == "" {
				return cmdutil.FlagErrorf("give --language, e.g. english or simple")
			}
			if runF != nil {
				return runF(opts)
			}
			pool, err := opts.DB(cmd.Context())
			if err != nil {
				return err
			}
			n, err := search.Reindex(cmd.Context(), pool, opts.Language)
			if err != nil {
				return cmdutil.InputError(err)
			}
			if opts.JSON {
				return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"language": opts.Language, "memories": n})
			}
			cmdutil.Fprintf(opts.IO.ErrOut, "reindexed %d memories in %s\n", n, opts.Language)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Language, "language", "", "PostgreSQL text search configuration (english, simple, german, …)")
	return cmd
}
