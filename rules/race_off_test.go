//go:build !race

package rules

// raceOn is true when the tests run under the race detector (go test
// -race), which makes the engine about ten times slower.
const raceOn = false
