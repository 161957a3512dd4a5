package capture

import "math/bits"

// Per-flow state that only some flows use at a time lives behind
// pointers, allocated on first use and dropped when empty: a capture of
// 100,000 QPs that each sent a few packets then went idle keeps a few
// hundred bytes per flow, not the 1.3 KB the fixed arrays took.

// pendingRing is a flow's requests awaiting an ACK or response, for RTT
// samples: the last pendingLen of them, bit i of valid set while o[i]
// awaits its answer. 520 bytes: a burst over thousands of QPs holds one
// per QP.
type pendingRing struct {
	o     [pendingLen]outstanding
	valid uint32
	next  uint32
}

// each calls fn with the index of every request still awaiting its answer.
func (p *pendingRing) each(fn func(i int)) {
	for v := p.valid; v != 0; v &= v - 1 {
		fn(bits.TrailingZeros32(v))
	}
}

// awaits says whether a request with PSN psn awaits its answer.
func (r *reqStream) awaits(psn uint32) bool {
	p := r.pending
	if p == nil {
		return false
	}
	for v := p.valid; v != 0; v &= v - 1 {
		if p.o[bits.TrailingZeros32(v)].psn == psn {
			return true
		}
	}
	return false
}

// readSet is a flow's last READ requests (reads.go). Kept once a flow
// reads: re-issued READs are judged against it.
type readSet struct {
	r [maxReads]readRange
	n int
}

// retire marks pending request i of r answered (or unusable, Karn) and
// drops the ring when nothing is pending.
func (t *Tracker) retire(r *reqStream, i int) {
	p := r.pending
	bit := uint32(1) << i
	if p.valid&bit == 0 {
		return
	}
	if p.valid &^= bit; p.valid == 0 {
		r.pending = nil
		t.spareRing(p)
	}
}

// maxSpareRings bounds the rings kept for reuse: a burst of requests over
// many flows, then calm, leaves at most this many (2 MiB). A collective
// over a large cluster has thousands of QPs awaiting ACKs at once; a
// smaller list let each burst's rings become garbage and be allocated
// again by the next.
const maxSpareRings = 4096

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
