//go:build race

package skill

// raceEnabled: the race detector's runtime cannot start under an address-space limit.
const raceEnabled = true
