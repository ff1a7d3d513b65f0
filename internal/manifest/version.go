package manifest

import (
	"fmt"
	"strings"

	"golang.org/x/mod/semver"
)

// Versions are semantic versions read with golang.org/x/mod/semver: the Go
// team's parser, without package-level regexps (Masterminds/semver compiled
// six in init, paid by every helix command at start).

// StrictVersion checks that raw is a full semantic version, MAJOR.MINOR.PATCH
// with optional -prerelease and +build, without a "v".
func StrictVersion(raw string) error {
	v := "v" + raw
	switch {
	case strings.HasPrefix(raw, "v"):
		return fmt.Errorf("no leading v")
	case !semver.IsValid(v) || semver.Canonical(v)+semver.Build(v) != v:
		return fmt.Errorf("want MAJOR.MINOR.PATCH, each a number without leading zeros, then optional -prerelease and +build")
	}
	return nil
}

// LooseVersion reads raw as a semantic version where it can ("v1.2" is
// 1.2.0, "3" is 3.0.0) and returns it in full without the "v".
func LooseVersion(raw string) (string, bool) {
	v := raw
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	if !semver.IsValid(v) {
		return "", false
	}
	return strings.TrimPrefix(semver.Canonical(v), "v") + semver.Build(v), true
}

// newer reports whether version a sorts after b: semver order, then (equal
// but for build metadata) the FormatVersion rebuild, then, for versions that
// are not semver, string order.
func newer(a, b string) bool {
	va, okA := LooseVersion(a)
	vb, okB := LooseVersion(b)
	if !okA || !okB {
		return a > b
	}
	if c := semver.Compare("v"+va, "v"+vb); c != 0 {
		return c > 0
	}
	return formatOf(a) > formatOf(b)
}
