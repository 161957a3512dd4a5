package capture

import "slices"

// PSN holes: runs of PSNs a stream skipped, kept so that the packet that
// later brings one can be judged — the original arriving late (the path
// reordered it: not lost after all) or a resend (it was lost). Both
// request streams and READ response streams keep them.

const (
	maxHoles = 32
	// gapSlots: gap events whose missing PSNs can still be taken back.
	gapSlots = 64
	// maxRefills: PSNs of holes a resend filled, remembered in case the
	// original turns up after its resend (it then was late, not lost).
	maxRefills = 32
)

// hole is a run of PSNs skipped by a forward jump.
type hole struct {
	start uint32
	n     int
	ts    int64
	gap   uint32 // the gap event that opened it
	// openSeq is the sender's order (idSeq) of the packet that skipped
	// the run (0: unknown): an original of the run was sent before it.
	openSeq idSeq
	nak     bool // NAKed or timed out since: a fill is a retransmission
}

// gapLeft is what remains missing of one gap event.
type gapLeft struct {
	seq  uint32
	left int
}

// refill is a PSN of a hole that a resend filled (or, without IPv4 IDs,
// a fill after a NAK: the resend, or the original just before it).
type refill struct {
	psn     uint32
	openSeq idSeq
	ok      bool
	ts      int64 // when the hole opened
	gap     uint32
	// filled: when a fill without IDs came, for noIDLateWindow; 0 for one
	// judged by ID, or by the go-back pass alone (noIDPass).
	filled int64
	// noIDPass: a fill without IDs after a NAK, to be judged by what came
	// between it and the PSN's next copy (see holeSet.repeats); repeats is
	// the stream's count of them when it was filled.
	noIDPass bool
	repeats  uint32
}

// noIDLateWindow: without IPv4 IDs, a second copy of a PSN that a fill
// after a NAK brought, arriving within this long of that fill, means both
// the original and the NAK's resend reached the point - the original was
// late, not lost - when the responder NAKed that very PSN once (the fill
// is noted only then: a requester goes back once for each NAK, and a
// fill a timer's go-back brought is repeated by a later NAK's go-back to
// a PSN before it). Nothing else sends
// a PSN twice so soon: the requester's ACK timer is 4.096 µs × 2^timeout,
// at least 8 ms for any timeout a fabric uses (>= 11; perftest and
// rdma_cm default to 14, 67 ms), and copies the path makes are counted
// apart (packet-duplication).
const noIDLateWindow = 8_000_000 // ns

// holeSet is a stream's open holes, allocated on a stream's first gap.
type holeSet struct {
	h       [maxHoles]hole
	n       int
	gaps    [gapSlots]gapLeft
	gapSeq  uint32
	refills [maxRefills]refill
	ri      int
	live    int // refills still ok: none, and a PSN seen before costs no scan
	// repeats counts copies of PSNs the stream had received before any
	// hole of theirs (plain repeats): a go-back-N pass resends from where
	// it went back through the highest PSN sent, so one that filled a
	// hole repeats the PSNs after the hole next (see lateOriginal).
	repeats uint32
}

func (s *holeSet) list() []hole {
	if s == nil {
		return nil
	}
	return s.h[:s.n]
}

// open records a gap event of missing PSNs: the run [start, start+n) (n
// may exceed missing when a READ's length left the count uncertain).
func openHole(sp **holeSet, start uint32, n, missing int, openSeq idSeq, ts int64) {
	if *sp == nil {
		*sp = &holeSet{}
	}
	s := *sp
	if s.n == maxHoles {
		s.remove(0) // forget the oldest
	}
	s.gapSeq++
	s.gaps[s.gapSeq%gapSlots] = gapLeft{seq: s.gapSeq, left: missing}
	s.h[s.n] = hole{start: start, n: n, ts: ts, gap: s.gapSeq, openSeq: openSeq}
	s.n++
}

func (s *holeSet) find(psn uint32) int {
	for i, h := range s.list() {
		if d := psnDiff(h.start, psn); d >= 0 && d < h.n {
			return i
		}
	}
	return -1
}

// fill removes psn from hole i and reports whether the hole closed.
func (s *holeSet) fill(i int, psn uint32) bool {
	h := &s.h[i]
	d := psnDiff(h.start, psn)
	switch {
	case h.n == 1:
		s.remove(i)
		return true
	case d == 0:
		h.start = psnAdd(h.start, 1)
		h.n--
	case d == h.n-1:
		h.n--
	default: // split
		tail := *h
		tail.start, tail.n = psnAdd(psn, 1), h.n-d-1
		h.n = d
		if s.n < maxHoles {
			s.h[s.n] = tail
			s.n++
		}
	}
	return false
}

func (s *holeSet) remove(i int) {
	copy(s.h[i:], s.h[i+1:s.n])
	s.n--
}

// unmiss takes one PSN of gap event seq back from missing (it arrived
// late): taken when the gap still counted it, whole when that was the
// gap's last.
func (s *holeSet) unmiss(seq uint32) (taken, whole bool) {
	g := &s.gaps[seq%gapSlots]
	if g.seq != seq || g.left == 0 {
		return false, false
	}
	g.left--
	return true, g.left == 0
}

// remiss undoes unmiss and reports whether the gap counts again.
func (s *holeSet) remiss(seq uint32) (again bool) {
	g := &s.gaps[seq%gapSlots]
	if g.seq != seq {
		return false
	}
	g.left++
	return g.left == 1
}

// pending adds to gaps and missing the gap events that are still
// undecided at now: one of their holes open and a fill still able to
// count as the late original (see Tracker.pendingGaps). window is the
// reorder window for holes without an IPv4 ID, noIDs whether such a fill
// can still count as reordering at all.
func (s *holeSet) pending(now, window int64, noIDs bool, gaps, missing uint64) (uint64, uint64) {
	if s == nil {
		return gaps, missing
	}
	var counted [maxHoles]uint32
	n := 0
	for _, h := range s.list() {
		age := now - h.ts
		open := h.openSeq != 0 && age <= lateHorizon || h.openSeq == 0 && noIDs && !h.nak && age <= window
		if !open || slices.Contains(counted[:n], h.gap) {
			continue
		}
		counted[n] = h.gap
		n++
		if g := s.gaps[h.gap%gapSlots]; g.seq == h.gap && g.left > 0 {
			gaps++
			missing += uint64(g.left)
		}
	}
	return gaps, missing
}

func (s *holeSet) noteRefill(psn uint32, h *hole, filled int64) {
	s.note(refill{psn: psn, openSeq: h.openSeq, ok: true, ts: h.ts, gap: h.gap, filled: filled})
}

// noteNoIDFill notes a fill without IDs of a hole NAKed since it opened:
// the NAK's resend, or the original held back. window: the fill came
// right after a single NAK of its PSN, and noIDLateWindow judges it too.
func (s *holeSet) noteNoIDFill(psn uint32, h *hole, ts int64, window bool) {
	r := refill{psn: psn, ok: true, ts: h.ts, gap: h.gap, noIDPass: true, repeats: s.repeats}
	if window {
		r.filled = ts
	}
	s.note(r)
}

func (s *holeSet) note(r refill) {
	if !s.refills[s.ri].ok {
		s.live++
	}
	s.refills[s.ri] = r
	s.ri = (s.ri + 1) % maxRefills
}

// repeated counts a plain repeat (see holeSet.repeats).
func (s *holeSet) repeated() {
	if s != nil {
		s.repeats++
	}
}

// lateOriginal reports whether a packet with psn and sender's order seq
// is the original of a PSN whose resend filled its hole: sent before the
// packet that skipped it, within lateHorizon of it; or, without IDs, a second copy
// of a PSN filled after a NAK, within noIDLateWindow of a fill after a
// single NAK, or with no plain repeat between the fill and it. A go-back
// pass that brought the fill would have gone on past the hole, repeating
// the PSNs the stream received after it, before any later pass could
// bring the PSN again; a fill followed by no such repeat was no pass but
// the original, held back, and this copy is the NAK's resend. (Only a
// pass whose every packet after the hole was lost again looks the same.)
// It forgets the refill, so the original counts once.
func (s *holeSet) lateOriginal(psn uint32, seq idSeq, ts int64) (gap uint32, ok bool) {
	if s == nil || s.live == 0 {
		return 0, false
	}
	for i := range s.refills {
		r := &s.refills[i]
		if !r.ok || r.psn != psn {
			continue
		}
		byID := idBefore(seq, r.openSeq) && ts-r.ts <= lateHorizon
		noID := seq == 0 && (r.filled != 0 && ts-r.filled >= 0 && ts-r.filled <= noIDLateWindow ||
			r.noIDPass && r.repeats == s.repeats)
		if byID || noID {
			r.ok = false
			s.live--
			return r.gap, true
		}
	}
	return 0, false
}

// markNAK marks every open hole NAKed: a fill from now on, without an ID
// to tell otherwise, is the sender's resend.
func (s *holeSet) markNAK() {
	for i := range s.list() {
		s.h[i].nak = true
	}
}

// psnWindow is the set of PSNs seen among the last windowLen below the
// highest: a READ response that skips ahead may pass over responses that
// reordering brought earlier.
type psnWindow struct {
	high uint32
	init bool
	bits [windowLen / 64]uint64
}

// windowLen: how far back seen PSNs are remembered, more than a READ's
// run at the smallest MTU (a 64 KiB READ at 256 bytes is 256 PSNs).
const windowLen = 512

func (w *psnWindow) mark(psn uint32) {
	switch d := psnDiff(w.high, psn); {
	case !w.init:
		w.init, w.high = true, psn
	case d > 0:
		// Clear what slides out: the slots of PSNs high+1 .. psn.
		for i := range min(d, windowLen) {
			p := psnAdd(w.high, i+1) % windowLen
			w.bits[p/64] &^= 1 << (p % 64)
		}
		w.high = psn
	case d <= -windowLen:
		return
	}
	p := psn % windowLen
	w.bits[p/64] |= 1 << (p % 64)
}

func (w *psnWindow) has(psn uint32) bool {
	if !w.init {
		return false
	}
	if d := psnDiff(w.high, psn); d > 0 || d <= -windowLen {
		return false
	}
	p := psn % windowLen
	return w.bits[p/64]&(1<<(p%64)) != 0
}

// holes opens one gap event for the PSNs of [start, start+n) the window
// has not seen, a hole for each run of them, and returns how many.
func (w *psnWindow) holes(sp **holeSet, start uint32, n int, openSeq idSeq, ts int64) int {
	missing := 0
	for i := range n {
		if !w.has(psnAdd(start, i)) {
			missing++
		}
	}
	if missing == 0 {
		return 0
	}
	first := true
	for i := 0; i < n; {
		if w.has(psnAdd(start, i)) {
			i++
			continue
		}
		j := i
		for j < n && !w.has(psnAdd(start, j)) {
			j++
		}
		if first {
			openHole(sp, psnAdd(start, i), j-i, missing, openSeq, ts)
			first = false
		} else {
			(*sp).addHole(psnAdd(start, i), j-i, openSeq, ts)
		}
		i = j
	}
	return missing
}

// addHole adds a run to the gap event opened last.
func (s *holeSet) addHole(start uint32, n int, openSeq idSeq, ts int64) {
	if s.n == maxHoles {
		s.remove(0)
	}
	s.h[s.n] = hole{start: start, n: n, ts: ts, gap: s.gapSeq, openSeq: openSeq}
	s.n++
}
