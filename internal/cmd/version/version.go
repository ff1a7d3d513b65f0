// Package version implements `helix version`.
package version

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/build"
	"github.com/helixhq/helix/internal/cmdutil"
)

// NewCmdVersion prints the version, commit and build date set by the linker.
func NewCmdVersion(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print helix's version, commit and build date",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := f.IOStreams.Out
			if f.Global.JSON() {
				return cmdutil.WriteJSON(out, map[string]string{
					"version": build.Version, "commit": build.Commit, "date": build.Date, "go": runtime.Version(),
				})
			}
			_, err := fmt.Fprintf(out, "helix %s (commit %s, built %s, %s)\n", build.Version, build.Commit, build.Date, runtime.Version())
			return err
		},
	}
}
