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

// retire marks pending request i of r answered (or unusable, Karn) and
// drops the ring when nothing is pending.
func (t *Tracker) retire(r *reqStream, i int) {
	p := r.pending
	if !p.o[i].valid {
		return
	}
	p.o[i].valid = false
	if p.live--; p.live == 0 {
		r.pending = nil
		t.spareRing(p)
	}
}

// maxSpareRings bounds the rings kept for reuse: a burst of requests over
// many flows, then calm, leaves at most this many (~17 KiB each 32).
const maxSpareRings = 256

// spareRing keeps p (no longer any flow's) for newRing.
func (t *Tracker) spareRing(p *pendingRing) {
	if p != nil && len(t.rings) < maxSpareRings {
		*p = pendingRing{}
		t.rings = append(t.rings, p)
	}
}

// newRing returns an empty pending-request ring: a spare one, or new.
func (t *Tracker) newRing() *pendingRing {
	if n := len(t.rings); n > 0 {
		p := t.rings[n-1]
		t.rings = t.rings[:n-1]
		return p
	}
	return &pendingRing{}
}
