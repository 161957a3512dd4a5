package capture

import "cmp"

// rank is what the flows of a summary are ordered by, everywhere
// (Summary, Cut, RunningView, MergeSummaries): troubled first (score:
// gaps and NAKs weigh most), then the busiest, then by id, so that the
// order is the same on every run.
type rank struct {
	score, packets uint64
	id             int
}

func (a rank) compare(b rank) int {
	if a.score != b.score {
		return cmp.Compare(b.score, a.score)
	}
	if a.packets != b.packets {
		return cmp.Compare(b.packets, a.packets)
	}
	return cmp.Compare(a.id, b.id)
}
