//go:build race

package syncer

// raceEnabled cuts the property and reconcile tests' sizes under the race
// detector. make test runs the tests that check it again without -race:
// add any new one to the Makefile's NORACE_TESTS.
const raceEnabled = true
