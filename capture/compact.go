package capture

// Per-flow state that only some flows use at a time lives behind
// pointers, allocated on first use and dropped when empty: a capture of
// 100,000 QPs that each sent a few packets then went idle keeps a few
// hundred bytes per flow, not the 1.3 KB the fixed arrays took.

// holeSet is a flow's open PSN holes (see hole).
type holeSet struct {
	h [maxHoles]hole
	n int
}

// pendingRing is a flow's requests awaiting an ACK or response, for RTT
// samples: the last pendingLen of them, live counting the valid ones.
type pendingRing struct {
	o    [pendingLen]outstanding
	next int
	live int
}

// readSet is a flow's last READ requests (reads.go). Kept once a flow
// reads: re-issued READs are judged against it.
type readSet struct {
	r [maxReads]readRange
	n int
}

// holeList is the open holes.
func (r *reqStream) holeList() []hole {
	if r.holes == nil {
		return nil
	}
	return r.holes.h[:r.holes.n]
}

// retire marks pending request i answered (or unusable, Karn) and drops
// the ring when nothing is pending.
func (r *reqStream) retire(i int) {
	p := r.pending
	if !p.o[i].valid {
		return
	}
	p.o[i].valid = false
	if p.live--; p.live == 0 {
		r.pending = nil
	}
}
