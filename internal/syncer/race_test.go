//go:build race

package syncer

const raceEnabled = true
