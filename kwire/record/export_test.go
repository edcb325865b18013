package record

// RaceEnabled tells the package's external tests that the race detector,
// which makes sync.Pool drop what it is given, is on.
const RaceEnabled = raceEnabled
