package twopoint

import (
	"slices"
)

// Offset is B's clock minus A's, as the packets seen at both points bound
// it. A packet a sender puts on the wire passes its upstream capture
// before the downstream one, so for a packet going from A to B,
// tB - tA = delay + offset >= offset, and for one going from B to A,
// tB - tA = offset - delay <= offset: the offset lies between the largest
// tB - tA of the B-to-A packets and the smallest of the A-to-B ones. The
// estimate is the middle, the uncertainty half the width (half the
// smallest round trip between the points). With traffic one way only
// nothing bounds it from the other side: it is taken as 0, not known.
type Offset struct {
	NS            int64 `json:"b_minus_a_ns"`
	UncertaintyNS int64 `json:"uncertainty_ns"`
	Known         bool  `json:"known"`
	// Inconsistent: the bounds cross (a clock stepped or drifted during
	// the captures, or the two captures are not of one path).
	Inconsistent bool `json:"inconsistent,omitempty"`
}

// sender is one sending address's packets seen at both points: the
// time differences tB - tA of packets that each capture holds once.
type sender struct {
	addr  [16]byte
	diffs []int64
}

// bothOnce lists, for each sender, tB - tA of its packets whose signature
// each capture holds exactly once (a copy or a resend could pair with the
// wrong one). A sender none of whose packets is held once by both (no
// IPv4 IDs, and go-back-N sent every PSN again) gets the differences of
// the first copies instead: the first arrival downstream is of a copy
// sent no earlier than the first sending upstream, so these bound the
// offset as well, less tightly.
func bothOnce(a, b *point) map[[16]byte]*sender {
	out := map[[16]byte]*sender{}
	first := map[[16]byte]*sender{}
	var sc scratch
	for k, pa := range a.flows {
		pb, ok := b.flows[k]
		if !ok {
			continue
		}
		once, f := add(out, k.src), add(first, k.src)
		sc.joinBySig(pa, pb, func(us, ds []int) {
			d := pb[ds[0]].ts - pa[us[0]].ts
			if len(us) == 1 && len(ds) == 1 {
				once.diffs = append(once.diffs, d)
			}
			f.diffs = append(f.diffs, d)
		})
	}
	for k, s := range out {
		if len(s.diffs) == 0 {
			if f := first[k]; len(f.diffs) > 0 {
				out[k] = f
			} else {
				delete(out, k)
			}
		}
	}
	return out
}

// add returns m's sender at addr, made when absent.
func add(m map[[16]byte]*sender, addr [16]byte) *sender {
	s := m[addr]
	if s == nil {
		s = &sender{addr: addr}
		m[addr] = s
	}
	return s
}

// align decides which capture is upstream for each sender (aFirst) and
// bounds the clock offset. A sender's packets pass the point on its side
// first: of two senders talking to each other, the one whose packets
// show the larger tB - tA is on A's side. The senders that carry the
// traffic (a share of the packets seen at both points of at least
// minShare) are split at the largest gap between their median
// differences; every sender is then on the side of the split its median
// falls. A handful of packets does not decide the split: a bit flipped
// in a source address makes a "sender" of one packet, at any delay.
func align(senders map[[16]byte]*sender) (aFirst map[[16]byte]bool, off Offset) {
	meds, total := medians(senders)
	var big []med
	for _, m := range meds {
		if float64(len(senders[m.addr].diffs)) >= minShare*float64(total) {
			big = append(big, m)
		}
	}
	aFirst = map[[16]byte]bool{}
	cut, ok := largestGap(big)
	if !ok {
		// One side only: each sender's side is the sign of its
		// difference, on clocks taken to agree.
		for _, m := range meds {
			aFirst[m.addr] = m.m >= 0
		}
		return aFirst, Offset{}
	}
	lo, hi := int64(minInt64), int64(maxInt64)
	for _, m := range meds {
		d := senders[m.addr].diffs
		if m.m > cut {
			aFirst[m.addr] = true
			hi = min(hi, d[0]) // A to B: offset <= tB - tA
		} else {
			lo = max(lo, d[len(d)-1]) // B to A: offset >= tB - tA
		}
	}
	if lo == minInt64 || hi == maxInt64 {
		// Every sender on one side after all: as with one sender.
		for _, m := range meds {
			aFirst[m.addr] = m.m >= 0
		}
		return aFirst, Offset{}
	}
	off = Offset{NS: lo + (hi-lo)/2, UncertaintyNS: (hi - lo) / 2, Known: true}
	if hi < lo {
		off.Inconsistent, off.UncertaintyNS = true, (lo-hi)/2
	}
	return aFirst, off
}

// minShare is the share of the packets seen at both points a sender must
// carry to decide which senders are on which side.
const minShare = 0.01

// med is a sender's median tB - tA.
type med struct {
	addr [16]byte
	m    int64
}

// medians sorts each sender's differences and returns their medians in
// increasing order, and the differences in all.
func medians(senders map[[16]byte]*sender) (meds []med, total int) {
	for _, s := range senders {
		slices.Sort(s.diffs)
		meds = append(meds, med{s.addr, s.diffs[len(s.diffs)/2]})
		total += len(s.diffs)
	}
	slices.SortFunc(meds, func(x, y med) int {
		if x.m != y.m {
			return cmpInt(x.m, y.m)
		}
		return slices.Compare(x.addr[:], y.addr[:])
	})
	return meds, total
}

// largestGap returns the middle of the largest gap between consecutive
// medians; ok is false for fewer than two.
func largestGap(meds []med) (cut int64, ok bool) {
	var gap int64 = -1
	for i := 0; i+1 < len(meds); i++ {
		if g := meds[i+1].m - meds[i].m; g > gap {
			gap, cut, ok = g, meds[i].m+g/2, true
		}
	}
	return cut, ok
}

const (
	minInt64 = -1 << 63
	maxInt64 = 1<<63 - 1
)

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
