package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	if got := memoryLimit(65536); got != 160<<20 {
		t.Errorf("default table: %d MiB, want 160", got>>20)
	}
	if got := memoryLimit(1 << 20); got != (64+1536)<<20 {
		t.Errorf("1M flows: %d MiB, want 1600", got>>20)
	}
	if got := memoryLimit(-5); got != 64<<20 {
		t.Errorf("negative table: %d MiB", got>>20)
	}
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)

	t.Setenv("GOMEMLIMIT", "1GiB") // the user's choice stands
	setMemoryLimit(65536)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set, the limit became %d", got)
	}
}

// A GOGC the user set stands beside the limit rdmatop sets.
func TestSetMemoryLimitKeepsGOGC(t *testing.T) {
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)
	prevGC := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prevGC)
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT is set in this environment")
	}
	t.Setenv("GOGC", "100")
	setMemoryLimit(1000)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=100 set, the GC percent became %d", got)
	}
}

func TestSetMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)
	prevGC := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prevGC)
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT is set in this environment")
	}
	_, gogc := os.LookupEnv("GOGC")
	setMemoryLimit(1000)
	if got := debug.SetMemoryLimit(-1); got != memoryLimit(1000) {
		t.Errorf("limit %d, want %d", got, memoryLimit(1000))
	}
	if got := debug.SetGCPercent(100); !gogc && got != gcPercent {
		t.Errorf("GC percent %d, want %d", got, gcPercent)
	}
	setMemoryLimit(65536) // already set: kept
	if got := debug.SetMemoryLimit(-1); got != memoryLimit(1000) {
		t.Errorf("a second call changed the limit to %d", got)
	}
}
