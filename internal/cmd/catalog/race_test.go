//go:build race

package catalog

// raceEnabled skips the full-size snapshot tests, which the race detector makes too slow.
// make test runs the tests that check it again without -race: add any new
// one to the Makefile's NORACE_TESTS.
const raceEnabled = true
