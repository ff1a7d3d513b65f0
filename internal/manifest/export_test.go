package manifest

// SharedOf is the Shared a manifest's schemas were built with, for the tests.
func SharedOf(m *Manifest) *Shared { return m.sh }
