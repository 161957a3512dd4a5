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
		f.pmtu = m
		t.pmtu = m
		if f.peer != nil && f.peer.pmtu == 0 {
			f.peer.pmtu = m
		}
	}
}

func isPMTU(m int) bool { return m == 256 || m == 512 || m == 1024 || m == 2048 || m == 4096 }

func (t *Tracker) pathMTU(f *Flow) int {
	switch {
	case t.cfg.PMTU > 0:
		return t.cfg.PMTU
	case f.pmtu > 0:
		return f.pmtu
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
	lo, hi := max(1, ceilDiv(l, 4096)), max(1, ceilDiv(l, 256))
	return lo, hi - lo
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// request follows the requester's PSN stream: in order, gap, or behind
// (retransmission, go-back-N, or reordering).
// A request with the PSN and opcode of the one just before it is a copy
// made on the path (netem duplicate, a mirror seeing a frame twice), not a
// resend, when it carries the same IPv4 identification within copyWindow:
// a sender builds a resend afresh, with a new ID. Without an ID (IPv6, or
// NICs that send ID 0) only a copy within dupWindow counts: netem copies
// arrive within ~10 µs, and even Soft-RoCE's immediate local resend after a
// qdisc drop takes hundreds of µs (testdata/rxe/pcap/lossy1-prenetem.pcap).
const (
	copyWindow = 1_000_000 // ns
	dupWindow  = 50_000    // ns
)

func (t *Tracker) request(f *Flow, p *roce.Packet, ipID uint16, ts int64, pkt uint64) {
	r := &f.req
	psn := p.BTH.PSN
	op := p.BTH.Opcode
	if r.init && psn == r.last && op == r.lastOp && !r.nakSeen && isCopy(ipID, r.lastIPID, ts-r.lastTS) {
		f.duplicates++
		r.lastTS = ts
		return
	}
	r.lastIPID = ipID
	r.lastOp, r.lastTS = op, ts
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
		if m := pmtuFor(int(r.readLen), psnDiff(r.readPSN, psn)); m > 0 && t.cfg.PMTU == 0 {
			f.pmtu, t.pmtu = m, m
		}
		d = 0
	}
	switch {
	case d == 0:
		r.undo.active = false
		r.inRetrans = false
		r.next, r.readSlack = psnAdd(psn, n), slack
		r.readPSN, r.readLen = psn, p.RETH.DMALength
		t.expect(f, p, ts)
	case d > 0:
		r.undo.active = false
		r.inRetrans = false
		missing := d - r.readSlack // with an unknown MTU, count what surely went missing
		if missing <= 0 {
			missing = d
		}
		f.gaps++
		f.missing += uint64(missing)
		t.addHole(r, r.next, d, ts)
		t.note(anomaly{kind: anGap, packet: pkt, ts: ts, flow: f.id, psn: psn, a: r.next, b: uint32(missing)})
		r.next, r.readSlack = psnAdd(psn, n), slack
		r.readPSN, r.readLen = psn, p.RETH.DMALength
		t.expect(f, p, ts)
	default:
		t.behind(f, psn, ts, pkt)
	}
}

func pmtuFor(length, used int) int {
	found := 0
	for m := 256; m <= 4096; m *= 2 {
		if max(1, ceilDiv(length, m)) == used {
			if found != 0 {
				return 0 // ambiguous
			}
			found = m
		}
	}
	return found
}

// behind handles a request PSN below the next expected one.
func (t *Tracker) behind(f *Flow, psn uint32, ts int64, pkt uint64) {
	r := &f.req
	if i := r.holeOf(psn); i >= 0 {
		h := &r.holes.h[i]
		reorder := !h.nak && !r.nakSeen && !r.inRetrans && ts-h.ts <= int64(t.cfg.ReorderWindow)
		closed := r.fill(i, psn)
		if reorder {
			f.outOfOrder++
			f.missing--
			if closed {
				f.gaps--
			}
			r.undo = fillUndo{active: true, psn: psn, closedGap: closed}
			t.note(anomaly{kind: anReorder, packet: pkt, ts: ts, flow: f.id, psn: psn})
			return
		}
		t.retransmit(f, psn, ts, pkt)
		return
	}
	// A PSN seen before: a retransmission. If the packet before was taken
	// for reordering, it was in fact the start of this go-back-N.
	if u := &r.undo; u.active && psnDiff(u.psn, psn) > 0 {
		f.outOfOrder--
		f.missing++
		if u.closedGap {
			f.gaps++
		}
		u.active = false
		t.retransmit(f, u.psn, ts, pkt)
	}
	t.retransmit(f, psn, ts, pkt)
}

func (t *Tracker) retransmit(f *Flow, psn uint32, ts int64, pkt uint64) {
	r := &f.req
	f.retrans++
	r.undo.active = false
	// Karn: a retransmitted request gives no RTT sample.
	if p := r.pending; p != nil {
		p.each(func(i int) {
			if p.o[i].psn == psn {
				t.retire(r, i)
			}
		})
	}
	// A new episode starts when the sender goes back again: the first
	// retransmission, or one at or below the previous retransmission.
	newEpisode := !r.inRetrans || psnDiff(r.lastRetx, psn) <= 0
	r.inRetrans, r.lastRetx = true, psn
	if newEpisode {
		f.goBackN++
		t.note(anomaly{kind: anGoBackN, packet: pkt, ts: ts, flow: f.id, psn: psn, a: psnAdd(r.next, -1)})
	}
}

func (r *reqStream) holeOf(psn uint32) int {
	for i, h := range r.holeList() {
		if d := psnDiff(h.start, psn); d >= 0 && d < h.n {
			return i
		}
	}
	return -1
}

// fill removes psn from hole i and reports whether the hole closed.
func (r *reqStream) fill(i int, psn uint32) bool {
	h := &r.holes.h[i]
	d := psnDiff(h.start, psn)
	switch {
	case h.n == 1:
		r.removeHole(i)
		return true
	case d == 0:
		h.start = psnAdd(h.start, 1)
		h.n--
	case d == h.n-1:
		h.n--
	default: // split
		tail := hole{start: psnAdd(psn, 1), n: h.n - d - 1, ts: h.ts, nak: h.nak}
		h.n = d
		if s := r.holes; s.n < maxHoles {
			s.h[s.n] = tail
			s.n++
		}
	}
	return false
}

func (r *reqStream) removeHole(i int) {
	s := r.holes
	copy(s.h[i:], s.h[i+1:s.n])
	if s.n--; s.n == 0 {
		r.holes = nil
	}
}

func (t *Tracker) addHole(r *reqStream, start uint32, n int, ts int64) {
	r.nakSeen = false
	if r.holes == nil {
		r.holes = &holeSet{}
	}
	if r.holes.n == maxHoles {
		r.removeHole(0) // forget the oldest
	}
	s := r.holes
	s.h[s.n] = hole{start: start, n: n, ts: ts}
	s.n++
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
	q.o[q.next] = outstanding{psn: p.BTH.PSN, ts: ts}
	q.valid |= 1 << q.next
	q.next = (q.next + 1) % pendingLen
}

// isCopy: see copyWindow.
func isCopy(id, lastID uint16, dt int64) bool {
	if dt < 0 {
		return false
	}
	if id != 0 && lastID != 0 {
		return id == lastID && dt <= copyWindow
	}
	return dt <= dupWindow
}
