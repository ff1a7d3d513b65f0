package manifest

import "testing"

// Versions as manifests, OpenAPI documents and MCP servers write them.
func TestVersions(t *testing.T) {
	for _, c := range []struct {
		raw    string
		strict bool
		loose  string // "" when not semver at all
	}{
		{"1.2.3", true, "1.2.3"},
		{"1.2.3-beta.1+build.7", true, "1.2.3-beta.1+build.7"},
		{"v1.2.3", false, "1.2.3"},
		{"1.2", false, "1.2.0"},
		{"3", false, "3.0.0"},
		{"01.2.3", false, ""},
		{"1.2.3.4", false, ""},
		{"2024-01-01", false, ""},
		{"", false, ""},
	} {
		if err := StrictVersion(c.raw); (err == nil) != c.strict {
			t.Errorf("StrictVersion(%q) = %v, want strict %v", c.raw, err, c.strict)
		}
		if v, ok := LooseVersion(c.raw); v != c.loose || ok != (c.loose != "") {
			t.Errorf("LooseVersion(%q) = %q, %v, want %q", c.raw, v, ok, c.loose)
		}
	}
	for _, c := range [][2]string{{"1.10.0", "1.9.0"}, {"1.0.0", "1.0.0-rc.1"}, {"2.0.0", "v1.9.9"}, {"b", "a"}} {
		if !newer(c[0], c[1]) || newer(c[1], c[0]) {
			t.Errorf("%s should sort after %s", c[0], c[1])
		}
	}
}
