//go:build race

package blake3

// raceEnabled: the race detector is on (it allocates, and slows).
const raceEnabled = true
