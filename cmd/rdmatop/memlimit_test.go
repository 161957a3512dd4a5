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
	batchMemoryLimit(65536)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set, the limit became %d", got)
	}
}

// A GOGC the user set stands beside the limit rdmatop sets.
func TestSetMemoryLimitKeepsGOGC(t *testing.T) {
	freshGC(t)
	t.Setenv("GOGC", "100")
	batchMemoryLimit(1000)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=100 set, the GC percent became %d", got)
	}
}

func TestSetMemoryLimit(t *testing.T) {
	freshGC(t)
	batchMemoryLimit(1000)
	if got := debug.SetMemoryLimit(-1); got != memoryLimit(1000) {
		t.Errorf("limit %d, want %d", got, memoryLimit(1000))
	}
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GC percent %d, want %d", got, gcPercent)
	}
	batchMemoryLimit(65536) // already set: kept
	if got := debug.SetMemoryLimit(-1); got != memoryLimit(1000) {
		t.Errorf("a second call changed the limit to %d", got)
	}
}

// freshGC gives a test the garbage collector as a process starts with
// neither GOMEMLIMIT nor GOGC set (no limit, GOGC 100), and restores
// the settings and the environment afterwards.
func freshGC(t *testing.T) {
	t.Helper()
	prev, prevGC := debug.SetMemoryLimit(math.MaxInt64), debug.SetGCPercent(100)
	t.Cleanup(func() {
		debug.SetMemoryLimit(prev)
		debug.SetGCPercent(prevGC)
	})
	for _, v := range []string{"GOMEMLIMIT", "GOGC"} {
		t.Setenv(v, "") // restored at the end
		os.Unsetenv(v)
	}
}
