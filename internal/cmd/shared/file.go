package shared

import (
	"fmt"
	"io"
	"os"

	"github.com/helixhq/helix/internal/size"
)

// ReadCapped reads a file of at most max bytes.
func ReadCapped(name string, max int64) ([]byte, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: over %s", name, size.Format(max))
	}
	return b, nil
}
