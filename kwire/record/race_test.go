//go:build race

package record

// raceEnabled: the race detector makes sync.Pool drop items at random.
const raceEnabled = true
