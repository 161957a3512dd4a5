//go:build race

package monitor

// raceOn: the race detector makes the pipeline several times slower.
const raceOn = true
