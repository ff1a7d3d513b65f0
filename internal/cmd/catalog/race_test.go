//go:build race

package catalog

// raceEnabled skips the full-size snapshot tests, which the race detector makes too slow.
const raceEnabled = true
