package cmdutil

import (
	"github.com/spf13/pflag"

	"github.com/helixhq/helix/internal/size"
)

// SizeVar adds a byte-size flag (512KiB, 64MiB, 1GB or a plain number of
// bytes), parsed by internal/size like every other size helix reads.
func SizeVar(fs *pflag.FlagSet, p *int64, name string, def int64, usage string) {
	*p = def
	fs.Var((*sizeValue)(p), name, usage)
}

type sizeValue int64

func (v *sizeValue) String() string { return size.Format(int64(*v)) }
func (v *sizeValue) Type() string   { return "size" }

func (v *sizeValue) Set(s string) error {
	n, err := size.Parse(s)
	if err != nil {
		return err
	}
	*v = sizeValue(n)
	return nil
}
