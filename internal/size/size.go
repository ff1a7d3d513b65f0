// Package size is helix's one parser and formatter of byte sizes, for every
// flag, setting and manifest field: 1048576, 512KiB, 64MiB, 1GB, 256Mi.
// Units follow Kubernetes: k, M, G, T (with or without B) are powers of 1000;
// Ki, Mi, Gi, Ti (with or without B) are powers of 1024. Case does not matter.
package size

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var units = map[string]int64{
	"": 1, "b": 1, "byte": 1, "bytes": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"ki": 1 << 10, "kib": 1 << 10, "mi": 1 << 20, "mib": 1 << 20, "gi": 1 << 30, "gib": 1 << 30, "ti": 1 << 40, "tib": 1 << 40,
}

// Parse reads a size: a whole or decimal number of bytes with an optional unit.
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	m, ok := units[unit]
	f, err := strconv.ParseFloat(num, 64)
	if num == "" || err != nil || !ok {
		return 0, fmt.Errorf("invalid size %q: use a number of bytes with an optional unit (512KiB, 64MiB, 1GB)", s)
	}
	v := f * float64(m)
	if v >= math.MaxInt64/2 {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return int64(v), nil
}

// Format renders n in the largest binary unit that divides it exactly,
// else in decimal units when one does, else in bytes: "64 MiB", "1 GB", "1000001 bytes".
func Format(n int64) string {
	for _, u := range []struct {
		s string
		m int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}} {
		if n >= u.m && n%u.m == 0 {
			return fmt.Sprintf("%d %s", n/u.m, u.s)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
