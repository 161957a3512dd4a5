package capture

import (
	"time"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// TrackerConfig bounds and tunes a Tracker.
type TrackerConfig struct {
	// PMTU is the path MTU in bytes (256..4096) used to count the PSNs a
	// READ request consumes; 0 infers it from FIRST/MIDDLE payloads.
	PMTU int
	// MaxFlows caps the flow table; the least recently seen flows are
	// evicted (and counted) beyond it. 0 means DefaultMaxFlows.
	MaxFlows int
	// MaxAnomalies caps the anomaly log; 0 means DefaultMaxAnomalies.
	MaxAnomalies int
	// ReorderWindow: a packet filling a PSN gap within this time, with no
	// NAK in between, is counted as reordered rather than retransmitted.
	// 0 means DefaultReorderWindow.
	ReorderWindow time.Duration
}

// Defaults for TrackerConfig.
const (
	DefaultMaxFlows      = 65536
	DefaultMaxAnomalies  = 10000
	DefaultReorderWindow = 3 * time.Millisecond
)

// Tracker follows every flow's PSN stream. It never reads the clock: time
// comes from the packets. Not safe for concurrent use.
type Tracker struct {
	cfg     TrackerConfig
	flows   map[flowKey]*Flow
	pairs   map[pairKey][]*Flow
	last    *Flow
	nextID  int
	pmtu    int
	evicted uint64
	gone    Totals // totals of evicted flows, so that totals stay whole

	anomalies        []anomaly
	anomaliesDropped uint64

	recent recentRing
}

// anomaly is the raw form of an Anomaly, formatted only when reported.
type anomaly struct {
	kind   anomalyKind
	packet uint64
	ts     int64
	flow   int
	psn    uint32
	a, b   uint32
}

type anomalyKind uint8

const (
	anGap anomalyKind = iota
	anGoBackN
	anReorder
	anNAK
	anRNR
	anICRC
	anMalformed
	anCE
	anCNP
	anEvicted
)

// NewTracker returns a tracker with cfg's bounds.
func NewTracker(cfg TrackerConfig) *Tracker {
	if cfg.MaxFlows <= 0 {
		cfg.MaxFlows = DefaultMaxFlows
	}
	if cfg.MaxAnomalies <= 0 {
		cfg.MaxAnomalies = DefaultMaxAnomalies
	}
	if cfg.ReorderWindow <= 0 {
		cfg.ReorderWindow = DefaultReorderWindow
	}
	return &Tracker{cfg: cfg, flows: make(map[flowKey]*Flow), pairs: make(map[pairKey][]*Flow)}
}

func (t *Tracker) note(a anomaly) {
	if len(t.anomalies) >= t.cfg.MaxAnomalies {
		t.anomaliesDropped++
		return
	}
	t.anomalies = append(t.anomalies, a)
}

func (t *Tracker) flow(k *flowKey, d *Decoded, ts int64, pkt uint64) *Flow {
	if f := t.last; f != nil && f.key == *k {
		return f
	}
	f := t.flows[*k]
	if f == nil {
		if len(t.flows) >= t.cfg.MaxFlows {
			t.evictOne(ts, pkt)
		}
		t.nextID++
		f = &Flow{key: *k, id: t.nextID, ipv4: d.IPv4, encap: d.Encap, firstTS: ts, firstPacket: pkt}
		t.flows[*k] = f
	}
	t.last = f
	return f
}

// evictOne drops the least recently seen of a few flows, like Redis's
// approximated LRU: map iteration order is random, so this is fair and O(1).
func (t *Tracker) evictOne(ts int64, pkt uint64) {
	var victim *Flow
	n := 0
	for _, f := range t.flows {
		if victim == nil || f.lastTS < victim.lastTS {
			victim = f
		}
		if n++; n == 8 {
			break
		}
	}
	if victim == nil {
		return
	}
	t.evicted++
	t.note(anomaly{kind: anEvicted, packet: pkt, ts: ts, flow: victim.id, a: uint32(victim.packets)})
	addTotals(&t.gone, victim)
	t.gone.Flows++
	delete(t.flows, victim.key)
	if victim.indexed {
		pk := pairKey{victim.key.src, victim.key.dst}
		list := t.pairs[pk]
		for i, f := range list {
			if f == victim {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(t.pairs, pk)
		} else {
			t.pairs[pk] = list
		}
	}
	if victim.peer != nil {
		victim.peer.peer = nil
	}
	if t.last == victim {
		t.last = nil
	}
}

// Track accounts one decoded RoCE packet. pkt is its 1-based number in the
// capture, ts its timestamp in Unix nanoseconds.
func (t *Tracker) Track(d *Decoded, ts int64, pkt uint64) {
	p := &d.RoCE
	k := flowKey{src: d.Src, dst: d.Dst, qp: p.BTH.DestQP}
	f := t.flow(&k, d, ts, pkt)
	op := p.BTH.Opcode
	f.lastTS, f.lastPacket = ts, pkt
	f.packets++
	f.bytes += uint64(d.WireLen)
	f.payload += uint64(p.PayloadLen)
	f.transports |= 1 << op.Transport()
	f.countOpcode(op)
	f.dscp = d.DSCP
	if d.VLAN {
		f.vlan, f.vlanID, f.pcp = true, d.VLANID, d.PCP
	}
	switch d.ECN {
	case 0:
		f.ecn.NotECT++
	case 1:
		f.ecn.ECT1++
	case 2:
		f.ecn.ECT0++
	case 3:
		if f.ecn.CE == 0 {
			t.note(anomaly{kind: anCE, packet: pkt, ts: ts, flow: f.id, psn: p.BTH.PSN})
		}
		f.ecn.CE++
	}
	if p.BTH.BECN {
		f.becn++
	}
	if p.BTH.FECN {
		f.fecn++
	}
	switch d.ICRC {
	case ICRCOK:
		f.icrcOK++
	case ICRCBad:
		f.icrcBad++
		t.note(anomaly{kind: anICRC, packet: pkt, ts: ts, flow: f.id, psn: p.BTH.PSN, a: p.ICRC})
	case ICRCUnverifiable:
		f.icrcUnver++
	}
	syn := int16(-1)
	if p.Has(roce.HasAETH) {
		syn = int16(p.AETH.Syndrome)
	}
	t.recent.add(PacketLine{Packet: pkt, TS: ts, FlowID: f.id, Opcode: op, PSN: p.BTH.PSN, AckReq: p.BTH.AckReq,
		Syndrome: syn, Length: uint16(min(d.WireLen, 65535)), ECN: d.ECN, ICRC: d.ICRC})
	tr := op.Transport()
	switch {
	case op.IsCNP():
		t.cnp(f, ts, pkt)
	case !op.Valid():
		// Reserved or vendor opcode: counted, not interpreted.
	case op.IsRequest():
		f.requests++
		if op.IsLast() {
			f.messages++
		}
		t.learnPMTU(f, p)
		if psnTracked(tr) {
			t.request(f, p, ts, pkt)
		} else {
			// UD/RD flows mix senders' PSN spaces: report, don't track.
			r := &f.req
			if !r.init {
				r.init, r.first = true, p.BTH.PSN
			}
			r.last = p.BTH.PSN
		}
	case op.IsResponse():
		f.responses++
		t.learnPMTU(f, p)
		t.response(f, p, ts, pkt)
	}
}

// psnTracked reports whether a transport's requests form one PSN stream
// per flow. UD and RD flows mix several senders' PSN spaces.
func psnTracked(tr roce.Transport) bool {
	return tr == roce.TransportRC || tr == roce.TransportXRC || tr == roce.TransportUC
}

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
func (t *Tracker) request(f *Flow, p *roce.Packet, ts int64, pkt uint64) {
	r := &f.req
	psn := p.BTH.PSN
	n, slack := t.consumed(f, p)
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
		h := &r.holes[i]
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
	for i := range r.pending {
		if r.pending[i].valid && r.pending[i].psn == psn {
			r.pending[i].valid = false
		}
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
	for i := 0; i < r.nholes; i++ {
		h := &r.holes[i]
		if d := psnDiff(h.start, psn); d >= 0 && d < h.n {
			return i
		}
	}
	return -1
}

// fill removes psn from hole i and reports whether the hole closed.
func (r *reqStream) fill(i int, psn uint32) bool {
	h := &r.holes[i]
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
		if r.nholes < maxHoles {
			r.holes[r.nholes] = tail
			r.nholes++
		}
	}
	return false
}

func (r *reqStream) removeHole(i int) {
	copy(r.holes[i:], r.holes[i+1:r.nholes])
	r.nholes--
}

func (t *Tracker) addHole(r *reqStream, start uint32, n int, ts int64) {
	r.nakSeen = false
	if r.nholes == maxHoles {
		r.removeHole(0) // forget the oldest
	}
	r.holes[r.nholes] = hole{start: start, n: n, ts: ts}
	r.nholes++
}

// expect records a request that will be answered (ACK or READ response) for
// the round-trip time.
func (t *Tracker) expect(f *Flow, p *roce.Packet, ts int64) {
	op := p.BTH.Opcode.Operation()
	if !p.BTH.AckReq && op != roce.OpReadRequest && op != roce.OpCompareSwap && op != roce.OpFetchAdd {
		return
	}
	r := &f.req
	r.pending[r.pendingNext] = outstanding{psn: p.BTH.PSN, ts: ts, valid: true}
	r.pendingNext = (r.pendingNext + 1) % pendingLen
}

// index makes a request-carrying flow findable by the responses coming back.
func (t *Tracker) index(f *Flow) {
	if f.indexed {
		return
	}
	f.indexed = true
	pk := pairKey{f.key.src, f.key.dst}
	t.pairs[pk] = append(t.pairs[pk], f)
}

// requester finds the request flow a response on f answers: the paired
// flow, or the request flow in the other direction whose outstanding
// requests include psn, or the only one there is.
func (t *Tracker) requester(f *Flow, psn uint32) *Flow {
	if f.peer != nil {
		return f.peer
	}
	cands := t.pairs[pairKey{f.key.dst, f.key.src}]
	var only, match *Flow
	free := 0
	for _, c := range cands {
		if c.peer != nil {
			continue
		}
		free++
		only = c
		r := &c.req
		if d := psnDiff(psn, r.next); d > 0 && d <= 1<<16 {
			if match != nil {
				return nil // ambiguous
			}
			match = c
		}
	}
	if match == nil && free == 1 {
		match = only
	}
	if match != nil {
		match.peer, f.peer = f, match
		if f.pmtu != 0 && match.pmtu == 0 {
			match.pmtu = f.pmtu
		}
	}
	return match
}

// response handles ACKs, NAKs and READ responses arriving on f.
func (t *Tracker) response(f *Flow, p *roce.Packet, ts int64, pkt uint64) {
	psn := p.BTH.PSN
	op := p.BTH.Opcode.Operation()
	req := t.requester(f, psn)
	if p.Has(roce.HasAETH) {
		a := &p.AETH
		switch a.Type() {
		case roce.AckTypeACK:
			if op == roce.OpAcknowledge || op == roce.OpAtomicAcknowledge {
				f.acks++
				// Credits advertise the responder's posted receive WQEs;
				// zero is the step before RNR NAKs.
				if c, ok := a.Credits(); ok {
					f.lastCredits, f.hasCredits = c, true
					if c == 0 {
						f.zeroCreditACKs++
					}
				}
			}
			if req != nil {
				t.acked(req, f, psn, ts)
			}
		case roce.AckTypeRNRNAK:
			f.naks.RNR++
			f.lastNAKPSN, f.hasNAK = psn, true
			t.note(anomaly{kind: anRNR, packet: pkt, ts: ts, flow: f.id, psn: psn, a: uint32(a.Value())})
			if req != nil {
				req.req.nakSeen = true
				markNAK(&req.req)
			}
		case roce.AckTypeNAK:
			switch a.NAKCode() {
			case roce.NAKPSNSequenceError:
				f.naks.PSNSequenceError++
			case roce.NAKInvalidRequest:
				f.naks.InvalidRequest++
			case roce.NAKRemoteAccessError:
				f.naks.RemoteAccessError++
			case roce.NAKRemoteOperationalError:
				f.naks.RemoteOperationalError++
			case roce.NAKInvalidRDRequest:
				f.naks.InvalidRDRequest++
			default:
				f.naks.Reserved++
			}
			f.lastNAKPSN, f.hasNAK = psn, true
			t.note(anomaly{kind: anNAK, packet: pkt, ts: ts, flow: f.id, psn: psn, a: uint32(a.NAKCode())})
			if req != nil {
				req.req.nakSeen = true
				markNAK(&req.req)
			}
		default:
			f.naks.Reserved++
			t.note(anomaly{kind: anNAK, packet: pkt, ts: ts, flow: f.id, psn: psn, a: uint32(a.Value()) | 0x100})
		}
	}
	if p.BTH.Opcode.IsReadResponse() {
		t.readResponse(f, p, ts, pkt)
	}
}

func markNAK(r *reqStream) {
	for i := 0; i < r.nholes; i++ {
		r.holes[i].nak = true
	}
}

// acked takes an RTT sample when psn answers an outstanding request, and
// retires every request the (possibly coalesced) ACK covers.
func (t *Tracker) acked(req, resp *Flow, psn uint32, ts int64) {
	r := &req.req
	for i := range r.pending {
		o := &r.pending[i]
		if !o.valid {
			continue
		}
		d := psnDiff(o.psn, psn)
		if d < 0 {
			continue
		}
		if d == 0 && ts >= o.ts {
			if req.rtt == nil {
				req.rtt = &rttHist{}
			}
			req.rtt.add(ts - o.ts)
		}
		o.valid = false
	}
}

// readResponse checks that READ response PSNs are contiguous within a READ
// and that a new READ's responses do not repeat ones already seen.
func (t *Tracker) readResponse(f *Flow, p *roce.Packet, ts int64, pkt uint64) {
	s := &f.resp
	psn := p.BTH.PSN
	op := p.BTH.Opcode
	if op.IsFirst() {
		if s.init && psnDiff(s.highest, psn) <= 0 {
			f.retrans++ // the responder resends data of a repeated READ
		}
	} else if s.inRead {
		if d := psnDiff(s.readNext, psn); d > 0 {
			f.gaps++
			f.missing += uint64(d)
			t.note(anomaly{kind: anGap, packet: pkt, ts: ts, flow: f.id, psn: psn, a: s.readNext, b: uint32(d)})
		} else if d < 0 {
			f.retrans++
		}
	}
	if !s.init || psnDiff(s.highest, psn) > 0 {
		s.highest = psn
	}
	s.init = true
	s.inRead = !op.IsLast()
	s.readNext = psnAdd(psn, 1)
}

// cnp credits a congestion notification to the flow it throttles: the
// flow in the other direction that the CNP's destination QP sends.
func (t *Tracker) cnp(f *Flow, ts int64, pkt uint64) {
	f.cnpsCarried++
	target := f.peer
	if target == nil {
		if cands := t.pairs[pairKey{f.key.dst, f.key.src}]; len(cands) == 1 {
			target = cands[0]
		}
	}
	if target == nil {
		target = f
	}
	if target.cnps == 0 {
		t.note(anomaly{kind: anCNP, packet: pkt, ts: ts, flow: target.id})
	}
	target.cnps++
}

// Malformed notes a RoCE packet whose headers could not be decoded.
func (t *Tracker) Malformed(ts int64, pkt uint64, reason uint32) {
	t.note(anomaly{kind: anMalformed, packet: pkt, ts: ts, a: reason})
}

// Flows returns the number of flows in the table.
func (t *Tracker) Flows() int { return len(t.flows) }
