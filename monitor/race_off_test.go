//go:build !race

package monitor

const raceOn = false
