package main

import (
	"math"
	"os"
	"runtime/debug"
)

// Heap budget: a base for everything but the flows, and per flow of the
// table its state (under 1 KiB, TestIdleFlowBytes) plus its summaries
// (the interval's and the capture's, about 0.5 KiB each).
const (
	memBase    = 64 << 20
	memPerFlow = 3 << 9 // 1.5 KiB
)

// memoryLimit is the soft heap limit for an analysis whose flow table
// holds maxFlows: the garbage collector works harder near it instead of
// letting garbage double the footprint (Go's default pacing), so a replay
// of a 100,000-QP capture stays near what its tables need. It is soft:
// an analysis that needs more gets it, at the price of more collection.
func memoryLimit(maxFlows int) int64 {
	return memBase + int64(max(maxFlows, 0))*memPerFlow
}

// gcPercent is the garbage collector's pacing under the soft limit: a
// collection when the heap has grown to three times what survived the
// last, not Go's default two. The limit, not the pacing, bounds the
// footprint (the many-QP replay peaks at 183 MB either way), and a replay
// building a flow table collects less often: 1-6 % faster on the
// benchmark captures in alternating runs (docs/bench.md).
const gcPercent = 200

// batchMemoryLimit applies memoryLimit unless the user set GOMEMLIMIT, and
// gcPercent with it unless the user set GOGC. Only a batch replay (replay
// and check of a file, without the screen) sets them: it is the one job
// that builds a large flow table as fast as it can and then exits, where
// the benchmarks show the gain (docs/bench.md). A live run, the exporter
// and the screen (whose Timeline keeps a window of its own budget,
// monitor.WindowBytes) run with Go's defaults: a process-wide knob tuned
// on replays would make them collect hard near a limit their data does
// not explain.
func batchMemoryLimit(maxFlows int) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	if cur := debug.SetMemoryLimit(-1); cur != math.MaxInt64 {
		return // already set (a test, or an earlier call)
	}
	debug.SetMemoryLimit(memoryLimit(maxFlows))
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}
