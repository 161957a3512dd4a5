package capture

import (
	"runtime"
	"sync"
)

// parallelFlows is the number of flows from which a summary is built on
// several goroutines: below it, starting them costs more than it saves.
const parallelFlows = 8192

// fillFlows calls fill over [0, n) in ranges, on up to GOMAXPROCS
// goroutines when n is large, each range with its own address names (the
// tracker's is not shared between goroutines). fill writes only its own
// range of a summary's flows and reads the flows, which nothing changes
// meanwhile: the caller holds the tracker until fillFlows returns.
//
// A summary of 65,536 flows is some 40 MB written to fresh memory; on one
// core it was a tenth of a replay of 100,000 QPs.
func (t *Tracker) fillFlows(n int, fill func(lo, hi int, names *addrNames)) {
	workers := min(runtime.GOMAXPROCS(0), n/parallelFlows)
	if workers < 2 {
		fill(0, n, &t.names)
		return
	}
	step := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += step {
		names := &t.names
		if lo > 0 {
			names = &addrNames{}
		}
		wg.Go(func() { fill(lo, min(lo+step, n), names) })
	}
	wg.Wait()
}

// newFlowSummaries returns n zero summaries whose memory is already
// written. A summary of 65,536 flows is a 42 MB array, larger than
// anything the heap has free at the end of a replay, so it comes fresh
// from the kernel, and the collection its allocation starts scans it
// while fillFlows writes it. The scan's reads map each untouched page to
// the kernel's shared zero page; the first write then copies that page and
// must flush the old mapping from every core running the process (an
// interrupt to the other core, microseconds in a virtual machine). On the
// one-pair replay of 120,000 QPs those copies were a fifth of the CPU
// (docs/bench.md). Writing a number field of each summary first, on this
// goroutine and with no allocation between (the collector's assists come
// with allocations), maps most pages writable before the scan reaches
// them: a number, not a pointer, so that no write barrier reads the slot.
func newFlowSummaries(n int) []FlowSummary {
	fs := make([]FlowSummary, n)
	for i := range fs {
		fs[i].ID = 0
	}
	return fs
}
