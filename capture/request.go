package capture

// The requester side: each flow's request PSN stream (in order, gaps,
// retransmissions, reordering) and the path MTU that READs depend on.

import "github.com/rdmatop/rdmatop/capture/roce"

// learnPMTU takes the path MTU from a FIRST or MIDDLE packet's payload,
// which is exactly one path MTU by definition.
func (t *Tracker) learnPMTU(f *Flow, p *roce.Packet) {
	op := p.BTH.Opcode.Operation()
	switch op {
	case roce.OpSendFirst, roce.OpSendMiddle, roce.OpWriteFirst, roce.OpWriteMiddle,
		roce.OpReadResponseFirst, roce.OpReadResponseMiddle:
	default:
		return
	}
	if m := p.PayloadLen; isPMTU(m) {
		f.pmtu = int32(m)
		t.pmtu = m
		if f.peer != nil && f.peer.pmtu == 0 {
			f.peer.pmtu = int32(m)
		}
	}
}

func isPMTU(m int) bool { return m == 256 || m == 512 || m == 1024 || m == 2048 || m == 4096 }

func (t *Tracker) pathMTU(f *Flow) int {
	switch {
	case t.cfg.PMTU > 0:
		return t.cfg.PMTU
	case f.pmtu > 0:
		return int(f.pmtu)
	}
	return t.pmtu
}

// consumed returns how many PSNs a request uses: one, or one per READ
// response packet; slack > 0 when the path MTU is unknown and the READ may
// use up to slack more.
func (t *Tracker) consumed(f *Flow, p *roce.Packet) (n, slack int) {
	if p.BTH.Opcode.Operation() != roce.OpReadRequest {
		return 1, 0
	}
	l := int(p.RETH.DMALength)
	if m := t.pathMTU(f); m > 0 {
		return max(1, ceilDiv(l, m)), 0
	}
	lo, hi := max(1, ceilDiv(l, 4096)), max(1, ceilDiv(l, mtuFloor(f)))
	return lo, hi - lo
}

// mtuFloor is the smallest path MTU the connection's payloads allow: a
// packet never carries more than its path MTU (IBTA 9.7.7), and both ends
// of a connection use the same one. A READ response ONLY of 512 bytes
// rules out an MTU of 256, so a READ of 512 bytes uses exactly one PSN.
func mtuFloor(f *Flow) int {
	p := int(f.maxPayload)
	if f.peer != nil {
		p = max(p, int(f.peer.maxPayload))
	}
	m := 256
	for m < 4096 && m < p {
		m *= 2
	}
	return m
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// request follows the requester's PSN stream: in order, gap, or behind
// (retransmission, go-back-N, or reordering).
// A request the path copied is a duplicate, not a resend. With IPv4 IDs a
// copy has the ID of a packet seen before (sendorder.go). Without
// them (IPv6, or NICs that send ID 0) only a copy of the request just
// before it within dupWindow counts: netem copies arrive within ~10 µs on
// hardware. Beyond that a copy and the sender's own immediate resend are
// alike to one point: Soft-RoCE sends a PSN again with no NAK 169-389 µs
// behind its first sending (testdata/rxe/pcap/lossy1.pcap PSN 7960432;
// testdata/wiretruth/dup5-send), while lab copies came 17-581 µs behind
// theirs; the two-point truth counts such packets as either
// (wiretruth.Observed.UnclearCopies).
const dupWindow = 50_000 // ns

// copyOfLast reports whether a request without an IPv4 ID is a copy of
// the request just before it: the same PSN and opcode, within dupWindow,
// no NAK or RNR NAK to its sender within lateHorizon, and the request
// before it new to the stream. Behind the stream, that one was a resend
// or a late original, and the two of a resend and its late original
// leave a rate-limited queue back to back (lab seed 20, s20-14: 82 READ
// requests twice within 50 µs, none copied). After a NAK the sender goes
// back and resends everything from the PSN it names up to the newest it
// had sent, which may still be on the way, held back: until the path's
// delay variation (lateHorizon bounds it) has passed, an original and its
// resend can arrive back to back even ahead of the stream, on a path
// that holds packets back - which the flow's own packets out of order
// show (training seed 23, s23-25: READ requests under 2 ms ± 1.4 ms of
// jitter, 61 "copies" at the responder where the truth has none). A
// path that only copies shows none: there a NAK's episode ends where
// the sender has gone back and on past where it was (nakSeen), and
// copies after it are copies (lab run dup5-send).
func copyOfLast(f *Flow, psn uint32, op roce.Opcode, ts int64) bool {
	r := &f.req
	tr := f.troubles()
	rs := tr.resend
	d := ts - r.lastTS
	sinceNAK := ts - rs.nakTS
	nakRecent := tr.outOfOrder > 0 && rs.nakTS != 0 && sinceNAK >= 0 && sinceNAK <= lateHorizon
	return psn == r.last && op == r.lastOp && r.lastNew && !rs.nakSeen && !nakRecent && d >= 0 && d <= dupWindow
}

// nakHorizon: a resend from the PSN a NAK named is that NAK's within this
// long (ns). A requester answers a NAK within a round trip (microseconds on
// hardware, milliseconds under emulation); its ACK timer is 4.096 µs ×
// 2^timeout, at least 8 ms for any timeout a fabric uses (≥ 11), and
// one second bounds both.
const nakHorizon = 1_000_000_000

func (t *Tracker) request(f *Flow, p *roce.Packet, seq idSeq, copied bool, ts int64, pkt uint64) {
	r := &f.req
	psn := p.BTH.PSN
	op := p.BTH.Opcode
	// A copy is always behind the stream (its original was seen): only
	// then is the flow's recent IDs looked through.
	if r.init && psnDiff(r.next, psn) < 0 && (copied || seq == 0 && copyOfLast(f, psn, op, ts)) {
		f.troubled().duplicates++
		r.lastTS = ts
		return
	}
	late := r.order.late(seq)
	r.order.note(seq)
	r.prevTS = r.lastTS
	r.lastOp, r.lastTS = op, ts
	r.lastNew = !r.init || psnDiff(r.next, psn) >= 0
	if late {
		// Sent before a packet already captured: the path reordered it.
		f.troubled().outOfOrder++
	}
	n, slack := t.consumed(f, p)
	if p.BTH.Opcode.Operation() == roce.OpReadRequest {
		r.noteRead(f, psn, n+slack)
	}
	if !r.init {
		r.init, r.first, r.last = true, psn, psn
		r.next, r.readSlack = psnAdd(psn, n), slack
		r.readPSN, r.readLen = psn, p.RETH.DMALength
		t.index(f)
		t.expect(f, p, ts)
		return
	}
	r.last = psn
	d := psnDiff(r.next, psn)
	if d > 0 && d <= r.readSlack {
		// The READ before used d more PSNs than the minimum: learn the MTU.
		if m := pmtuFor(int(r.readLen), psnDiff(r.readPSN, psn), mtuFloor(f)); m > 0 && t.cfg.PMTU == 0 {
			f.pmtu, t.pmtu = int32(m), m
		}
		d = 0
	}
	switch {
	case d == 0:
		if tr := f.trouble; tr != nil {
			tr.resend.undo.active, tr.resend.inRetrans = false, false
			if tr.resend.nakAnswered {
				// Past where it went back for the NAK: that episode is
				// over, and a PSN seen twice now is not its resend.
				tr.resend.nakSeen, tr.resend.nakAnswered = false, false
			}
		}
		r.next, r.readSlack = psnAdd(psn, n), slack
		r.readPSN, r.readLen = psn, p.RETH.DMALength
		t.advanced(f)
		t.expect(f, p, ts)
	case d > 0:
		tr := f.troubled()
		tr.resend.undo.active, tr.resend.inRetrans = false, false
		missing := d - r.readSlack // with an unknown MTU, count what surely went missing
		if missing <= 0 {
			missing = d
		}
		tr.gaps++
		tr.missing += uint64(missing)
		tr.resend.nakSeen = false
		openHole(&r.holes, r.next, d, missing, seq, ts)
		t.note(anomaly{kind: anGap, packet: pkt, ts: ts, flow: f.id, psn: psn, a: r.next, b: uint32(missing)})
		r.next, r.readSlack = psnAdd(psn, n), slack
		r.readPSN, r.readLen = psn, p.RETH.DMALength
		t.advanced(f)
		t.expect(f, p, ts)
	default:
		t.behind(f, psn, n, seq, late, ts, pkt)
	}
}

// pmtuFor is the one path MTU of at least floor with which a READ of
// length uses used PSNs; 0 when none or several do.
func pmtuFor(length, used, floor int) int {
	found := 0
	for m := floor; m <= 4096; m *= 2 {
		if max(1, ceilDiv(length, m)) == used {
			if found != 0 {
				return 0 // ambiguous
			}
			found = m
		}
	}
	return found
}

// behind handles a request PSN below the next expected one: a packet
// that fills a hole, or a PSN seen before. With the sender's IPv4 IDs the
// packet says itself whether it was sent before the one that skipped it
// (the original, late: reordered, not lost) or after (a resend); without
// them a fill counts as reordering when it comes within the reorder window
// and no NAK or go-back-N came between.
//
// A READ request stands for the n PSNs of its responses: late, it fills
// all of them (a READ overtaken by the next leaves a hole of its whole
// range, 128 PSNs for 128 KiB at MTU 1024, that its own arrival closes).
func (t *Tracker) behind(f *Flow, psn uint32, n int, seq idSeq, late bool, ts int64, pkt uint64) {
	r := &f.req
	if i := r.holes.find(psn); i >= 0 {
		h := r.holes.h[i]
		var reorder, byID bool
		if seq != 0 && h.openSeq != 0 && ts-h.ts <= lateHorizon {
			reorder, byID = idBefore(seq, h.openSeq), true
		} else {
			rs := &f.troubles().resend
			reorder = !h.nak && !rs.nakSeen && !rs.inRetrans && ts-h.ts <= int64(t.cfg.ReorderWindow)
		}
		r.holes.fill(i, psn)
		if reorder {
			if !late { // a late packet was counted out of order already
				f.troubled().outOfOrder++
			}
			whole := t.unmiss(f, r.holes, h.gap)
			rest := t.fillRange(f, psn, n, true)
			if !byID {
				f.troubled().resend.undo = fillUndo{active: true, psn: psn, gap: h.gap, whole: whole, rest: rest}
			}
			t.note(anomaly{kind: anReorder, packet: pkt, ts: ts, flow: f.id, psn: psn})
			return
		}
		t.fillRange(f, psn, n, false)
		switch {
		case byID:
			r.holes.noteRefill(psn, &h, 0)
		case seq == 0 && (h.nak || onceNAKed(f, psn)):
			r.holes.noteNoIDFill(psn, &h, ts, onceNAKed(f, psn)) // the resend, or its original held back
		}
		t.retransmit(f, psn, n, late, ts, pkt)
		return
	}
	// Sent before the first packet captured, with a PSN before it: the
	// capture began while the path had it held back. Reordered (counted as
	// late already), not resent.
	if late && psnDiff(r.first, psn) < 0 {
		// The PSNs between it and the first are held back too: a hole
		// that misses nothing, so that they fill it as late packets.
		if n := psnDiff(psnAdd(psn, 1), r.first); n > 0 {
			openHole(&r.holes, psnAdd(psn, 1), n, 0, r.order.max, ts)
		}
		r.first = psn
		return
	}
	// A PSN seen before: the original of one whose resend came first, or
	// a retransmission.
	if gap, ok := r.holes.lateOriginal(psn, seq, ts); ok {
		if !late {
			f.troubled().outOfOrder++
		}
		// A READ request stands for its n response PSNs: its resend
		// filled them all, and the original takes them all back.
		for range n {
			if taken, _ := t.unmissOne(f, r.holes, gap); !taken {
				break
			}
		}
		t.note(anomaly{kind: anReorder, packet: pkt, ts: ts, flow: f.id, psn: psn})
		return
	}
	r.holes.repeated()
	// If the packet before was taken for reordering by its timing, it was
	// in fact the start of this go-back-N.
	if tr := f.trouble; tr != nil && tr.resend.undo.active && psnDiff(tr.resend.undo.psn, psn) > 0 {
		u := &tr.resend.undo
		tr.outOfOrder--
		for range 1 + u.rest {
			tr.missing++
			if r.holes.remiss(u.gap) {
				tr.gaps++
			}
		}
		u.active = false
		t.retransmit(f, u.psn, 1, false, ts, pkt)
	}
	t.retransmit(f, psn, n, late, ts, pkt)
}

// fillRange fills the PSNs after psn that a READ request of n stands
// for, where holes hold them, taking them back from missing when the
// request came late (reorder); it returns how many it took back.
func (t *Tracker) fillRange(f *Flow, psn uint32, n int, reorder bool) (taken int) {
	s := f.req.holes
	for k := 1; k < n && s != nil && s.n > 0; k++ {
		p := psnAdd(psn, k)
		i := s.find(p)
		if i < 0 {
			continue
		}
		gap := s.h[i].gap
		s.fill(i, p)
		if !reorder {
			continue
		}
		was, whole := s.unmiss(gap)
		if was {
			f.troubled().missing--
			taken++
		}
		if whole {
			f.troubled().gaps--
		}
	}
	return taken
}

// onceNAKed reports whether the last NAK to f's requester was for psn,
// and the only one: the requester then goes back over psn once, for that
// NAK (see noIDLateWindow). A NAK names the PSN the responder expected
// (IBTA); Soft-RoCE names the one before it, its last acknowledged, and
// its requester goes back from there: either is this hole's NAK. A fill
// of a PSN further on may belong to an earlier go-back (a timer's) that
// the NAK's will repeat.
func onceNAKed(f *Flow, psn uint32) bool {
	rs := &f.troubles().resend
	d := psnDiff(rs.nakPSN, psn)
	return rs.nakTS != 0 && rs.nakRepeat == 1 && (d == 0 || d == 1)
}

// unmiss takes a PSN counted missing back (it came late) and the gap with
// it once all of the gap's PSNs have come.
func (t *Tracker) unmiss(f *Flow, s *holeSet, gap uint32) (whole bool) {
	_, whole = t.unmissOne(f, s, gap)
	return whole
}

// unmissOne is unmiss that also says whether the gap still counted a PSN.
func (t *Tracker) unmissOne(f *Flow, s *holeSet, gap uint32) (taken, whole bool) {
	taken, whole = s.unmiss(gap)
	if taken {
		f.troubled().missing--
	}
	if whole {
		f.troubled().gaps--
	}
	return taken, whole
}

// retransmit counts a resend. A new go-back-N episode starts when the
// sender goes back again: the first retransmission, or one at or below
// the previous one, unless the packet is late (the path, not the sender,
// put it behind the one before).
func (t *Tracker) retransmit(f *Flow, psn uint32, n int, late bool, ts int64, pkt uint64) {
	r := &f.req
	tr := f.troubled()
	rs := &tr.resend
	tr.retrans++
	rs.undo.active = false
	// The oldest request still awaiting its answer: how long the
	// requester waited before going back. Karn: a retransmitted request
	// gives no RTT sample.
	oldest := int64(-1)
	if p := r.pending; p != nil {
		p.each(func(i int) {
			if oldest < 0 || p.o[i].ts < oldest {
				oldest = p.o[i].ts
			}
			if p.o[i].psn == psn {
				t.retire(r, i)
			}
		})
	}
	// At or below what the last resend stood for: a READ re-issued for
	// PSNs 18-19 and then again for 19 went back twice (its timer fired
	// again after the answer to 18; training seed 25's s25-44).
	newEpisode := !rs.inRetrans || (psnDiff(rs.lastRetx, psn) <= 0 && !late)
	// Sent once before this resend: no earlier resend of it can be on
	// the way (what an ACK of it proves depends on that).
	sentOnce := !rs.resent || psnDiff(rs.maxRetx, psn) > 0
	if !rs.resent || psnDiff(rs.maxRetx, psn) > 0 {
		rs.maxRetx, rs.resent = psn, true
	}
	rs.inRetrans = true
	if last := psnAdd(psn, max(n, 1)-1); !late || psnDiff(rs.lastRetx, last) > 0 {
		rs.lastRetx = last
	}
	if newEpisode {
		tr.goBackN++
		timer := !(rs.nakTS != 0 && rs.nakPSN == psn && ts-rs.nakTS >= 0 && ts-rs.nakTS <= nakHorizon)
		rs.nakAnswered = rs.nakAnswered || !timer
		if timer {
			// No NAK asked for this resend: the requester's timer fired.
			tr.timerEpisodes++
			if w := ts - oldest; oldest >= 0 && (tr.timerWait == 0 || w < tr.timerWait) {
				tr.timerWait = w
			}
		}
		rs.episode = openEpisode{}
		if a := f.peer; a != nil && a.ackSeen && psnDiff(psn, a.highestACK) >= 0 {
			// The capture saw the responder acknowledge this PSN before
			// the requester resent it: the ACK went missing or late
			// after the capture point.
			tr.resendsAfterACK++
			if !timer && sentOnce {
				// And a NAK asked for it: the responder NAKed the PSN
				// and then acknowledged it (an ACK is cumulative: it
				// had received it). Sent only once until now, the
				// packet reached it after all, late - the NAK was
				// reordering's, as when it acknowledges again after the
				// resend (undoNAKEpisode). With an earlier resend of it
				// on the way, that copy may be what got there.
				tr.undoneNAKEpisodes++
			}
		} else if timer || !rs.nakUsed {
			// A NAK's verdict is read once: going back again on the same
			// NAK (its timer fired meanwhile) resends what the first
			// resend may already have delivered.
			rs.episode = openEpisode{open: true, timer: timer, psn: psn, ts: ts}
			rs.nakUsed = rs.nakUsed || !timer
		}
		t.note(anomaly{kind: anGoBackN, packet: pkt, ts: ts, flow: f.id, psn: psn, a: psnAdd(r.next, -1)})
	}
}

// expect records a request that will be answered (ACK or READ response) for
// the round-trip time.
func (t *Tracker) expect(f *Flow, p *roce.Packet, ts int64) {
	op := p.BTH.Opcode.Operation()
	if !p.BTH.AckReq && op != roce.OpReadRequest && op != roce.OpCompareSwap && op != roce.OpFetchAdd {
		return
	}
	r := &f.req
	if r.pending == nil {
		r.pending = t.newRing()
	}
	q := r.pending
	q.o[q.next] = outstanding{psn: p.BTH.PSN, ts: ts, jumbo: r.jumbo&jumboPending != 0}
	r.jumbo &^= jumboPending // the answer to this one covers the ones before
	q.valid |= 1 << q.next
	q.next = (q.next + 1) % pendingLen
}
