package capture

// The responder side: pairing responses with the requests they answer,
// ACK/NAK syndromes, round trips, READ responses and CNPs.

import "github.com/rdmatop/rdmatop/capture/roce"

// index makes a request-carrying flow findable by the responses coming back.
func (t *Tracker) index(f *Flow) {
	if f.indexed {
		return
	}
	f.indexed = true
	f.pair.requests.add(f, requestSlot)
	if f.peer == nil {
		t.enlist(f)
	}
}

// enlist puts an indexed request flow without a peer in the unpaired
// indexes.
func (t *Tracker) enlist(f *Flow) {
	f.pair.unpaired.add(f, unpairedSlot)
	f.block = psnBlock(f.req.next)
	t.unpairedAt.add(f.pair, f.block, f)
}

// advanced keeps an unpaired flow listed under the block of its next PSN
// after the PSN moved: once every 2^16 PSNs at most.
func (t *Tracker) advanced(f *Flow) {
	if f.blockPos == 0 || psnBlock(f.req.next) == f.block {
		return
	}
	t.unpairedAt.remove(f.pair, f.block, f)
	f.block = psnBlock(f.req.next)
	t.unpairedAt.add(f.pair, f.block, f)
}

// link pairs a request flow with the flow of its responses. Paired flows
// leave the unpaired index: an ACK's lookup scans only flows still
// waiting for their peer, not every QP between the two hosts (thousands
// in a cluster, which made pairing quadratic).
func (t *Tracker) link(req, resp *Flow) {
	req.peer, resp.peer = resp, req
	t.unlist(req)
	t.unlist(resp)
}

// unlist removes f from the unpaired indexes.
func (t *Tracker) unlist(f *Flow) {
	if f.indexed {
		f.pair.unpaired.remove(f, unpairedSlot)
		t.unpairedAt.remove(f.pair, f.block, f)
	}
}

// requester finds the request flow a response on f answers: the paired
// flow, or among the request flows in the other direction whose next PSN
// lies within 2^16 past psn (their outstanding requests include psn) the
// one whose last request or an awaited one has PSN psn, or the only one
// in that window, or the only one there is. The exact PSN decides where
// the window alone cannot: between one server and one storage target a
// thousand QPs may await their first ACK at once, and with random 24-bit
// first PSNs about four of them share any window of 2^16. Only the two
// PSN blocks the window spans are looked through, not every unpaired flow
// of the pair.
func (t *Tracker) requester(f *Flow, psn uint32) *Flow {
	if f.peer != nil {
		return f.peer
	}
	rp := t.hosts.reverseOf(f.pair)
	if rp == nil || len(rp.unpaired) == 0 {
		return nil
	}
	free := rp.unpaired
	var match, exact *Flow
	inWindow, exacts := 0, 0
	b := psnBlock(psn + 1)
	for _, blk := range [2]uint8{b, b + 1} {
		for _, c := range t.unpairedAt.get(rp, blk) {
			r := &c.req
			if d := psnDiff(psn, r.next); d > 0 && d <= 1<<16 {
				inWindow++
				match = c
				if d == 1 || r.awaits(psn) {
					exacts++
					exact = c
				}
			}
		}
	}
	switch {
	case exacts == 1:
		match = exact
	case inWindow > 1:
		match = nil // ambiguous
	}
	if match == nil && len(free) == 1 {
		match = free[0]
	}
	if match != nil {
		t.link(match, f)
		if f.pmtu != 0 && match.pmtu == 0 {
			match.pmtu = f.pmtu
		}
	}
	return match
}

// answeredUpTo reports whether f's answers had reached p's PSN already, as
// the copy of one seen must have: an ID seen again is a copy only from a
// sender that counts its IDs up, and the PSN says so as well. A sequence
// NAK names the PSN after the one it acknowledges.
func answeredUpTo(f *Flow, p *roce.Packet) bool {
	psn := p.BTH.PSN
	if p.BTH.Opcode.IsReadResponse() {
		return f.resp.init && psnDiff(f.resp.highest, psn) <= 0
	}
	return f.ackSeen && psnDiff(f.highestACK, psn) <= 1
}

// response handles ACKs, NAKs and READ responses arriving on f.
func (t *Tracker) response(f *Flow, p *roce.Packet, seq idSeq, copied bool, ts int64, pkt uint64) {
	if copied && answeredUpTo(f, p) {
		// A copy the path made of an answer already seen (its IPv4 ID
		// again, sendorder.go): not a second answer.
		f.troubled().duplicates++
		return
	}
	psn := p.BTH.PSN
	op := p.BTH.Opcode.Operation()
	req := t.requester(f, psn)
	if p.Has(roce.HasAETH) {
		a := &p.AETH
		switch a.Type() {
		case roce.AckTypeACK:
			if op == roce.OpAcknowledge || op == roce.OpAtomicAcknowledge {
				f.acks++
				t.ackSequence(f, req, psn, ts)
				// Credits advertise the responder's posted receive WQEs;
				// zero is the step before RNR NAKs.
				if c, ok := a.Credits(); ok {
					f.lastCredits, f.hasCredits = c, true
					if c == 0 {
						f.troubled().zeroCreditACKs++
					}
				}
			}
			if req != nil {
				t.acked(req, f, psn, ts)
			}
		case roce.AckTypeRNRNAK:
			tr := f.troubled()
			tr.naks.RNR++
			tr.lastNAKPSN, tr.hasNAK = psn, true
			t.note(anomaly{kind: anRNR, packet: pkt, ts: ts, flow: f.id, psn: psn, a: uint32(a.Value())})
			if req != nil {
				rs := &req.troubled().resend
				rs.nakSeen, rs.nakTS, rs.nakPSN, rs.nakAnswered = true, ts, psn, false
				markNAK(&req.req)
			}
		case roce.AckTypeNAK:
			tr := f.troubled()
			switch a.NAKCode() {
			case roce.NAKPSNSequenceError:
				tr.naks.PSNSequenceError++
				// It acknowledges every PSN before the one it names.
				if prev := psnAdd(psn, -1); !f.ackSeen || psnDiff(f.highestACK, prev) > 0 {
					f.highestACK, f.ackSeen = prev, true
				}
			case roce.NAKInvalidRequest:
				tr.naks.InvalidRequest++
			case roce.NAKRemoteAccessError:
				tr.naks.RemoteAccessError++
			case roce.NAKRemoteOperationalError:
				tr.naks.RemoteOperationalError++
			case roce.NAKInvalidRDRequest:
				tr.naks.InvalidRDRequest++
			default:
				tr.naks.Reserved++
			}
			tr.lastNAKPSN, tr.hasNAK = psn, true
			t.note(anomaly{kind: anNAK, packet: pkt, ts: ts, flow: f.id, psn: psn, a: uint32(a.NAKCode())})
			if req != nil {
				rs := &req.troubled().resend
				switch {
				case rs.nakTS == 0 || rs.nakPSN != psn:
					rs.nakRepeat = 1
				case rs.nakRepeat < 255:
					rs.nakRepeat++
				}
				rs.nakSeen, rs.nakTS, rs.nakPSN, rs.nakUsed, rs.nakAnswered = true, ts, psn, false, false
				markNAK(&req.req)
			}
		default:
			f.troubled().naks.Reserved++
			t.note(anomaly{kind: anNAK, packet: pkt, ts: ts, flow: f.id, psn: psn, a: uint32(a.Value()) | 0x100})
		}
	}
	if p.BTH.Opcode.IsReadResponse() {
		t.readResponse(f, req, p, seq, ts, pkt)
	} else if tr := f.resp.track; tr != nil {
		// An ACK or NAK between READ responses takes an ID from the same
		// counter: the responder's order must count it.
		tr.order.note(seq)
	}
}

// ackSequence follows the PSNs f's ACKs acknowledge. An ACK of the latest
// PSN again acknowledges nothing new: the responder got a request again
// and, as it must for a duplicate (IBTA C9-105), acknowledged it again
// instead of executing it - with the PSN it last acknowledged (Soft-RoCE's
// duplicate_request sends ack_psn-1; a replayed atomic answer carries the
// duplicate's PSN, the latest when the duplicate is). What got there
// twice tells what the network did. An ACK of an older PSN than the
// latest repeats nothing: it was overtaken on the path by a later one
// (the ACKs themselves reordered), which a jitter on the ACKs' way makes
// by the thousand with nothing copied. A resend from a PSN the ACK covers found its original already
// there: the requester's episode was not needed, the original came late
// (reordered, or its answer was late), it was not lost. Each resent
// packet draws at most one repeat: repeats beyond the requester's resends
// are requests the path copied after the capture point (packet-duplication).
func (t *Tracker) ackSequence(f, req *Flow, psn uint32, ts int64) {
	if !f.ackSeen || psnDiff(f.highestACK, psn) > 0 {
		f.highestACK, f.ackSeen = psn, true
		if req != nil {
			lateAnswer(req, psn, ts)
		}
		return
	}
	if psn != f.highestACK {
		return // overtaken on the path, not repeated
	}
	f.troubled().repeatedACKs++
	if req == nil {
		return
	}
	undoNAKEpisode(req, psn)
}

// undoNAKEpisode closes req's open NAK episode as not needed when the
// responder shows it had the PSN it NAKed when the resend came: it
// acknowledged again a PSN at or after the one the requester went back
// to, or answered a READ there twice (the original, late, and the
// resend; a READ the responder never got it answers once). Known blind
// spot: where an earlier resend of that PSN was still on the way (a slow
// queue holding the timer's go-back and the NAK's), that copy may be
// what got there; asking for a PSN sent once, as the ACK-before-resend
// path does (Tracker.retransmit), costs 22 of 1,728 right first
// findings on the campaign's training seeds, so this path does not. Not for a
// timer episode: after a lost ACK the requester resends its whole window,
// and every resend after the first is a duplicate too (see lateAnswer).
func undoNAKEpisode(req *Flow, psn uint32) {
	if tr := req.trouble; tr != nil {
		if e := &tr.resend.episode; e.open && !e.timer && psnDiff(e.psn, psn) >= 0 {
			e.open = false
			tr.undoneNAKEpisodes++
		}
	}
}

// lateAnswer judges a timer episode by the first ACK covering the PSN it
// went back to. Sooner after the resend than the flow's shortest round
// trip, that ACK cannot answer the resend: it answers the original, which
// got there and whose answer came after the timeout (Karn's samples keep
// the minimum honest: resent requests give none). Later, it may answer
// either: no verdict (a lost ACK, or a late one whose path was that slow).
func lateAnswer(req *Flow, psn uint32, ts int64) {
	tr := req.trouble
	if tr == nil {
		return // no resend, no episode
	}
	e := &tr.resend.episode
	if !e.open || !e.timer || psnDiff(e.psn, psn) < 0 {
		return
	}
	e.open = false
	if req.rtt != nil && req.rtt.n > 0 && ts-e.ts >= 0 && ts-e.ts < req.rtt.min {
		tr.undoneTimerEpisodes++
	}
}

func markNAK(r *reqStream) {
	if r.holes != nil {
		r.holes.markNAK()
	}
}

// acked takes an RTT sample when psn answers an outstanding request, and
// retires every request the (possibly coalesced) ACK covers.
func (t *Tracker) acked(req, resp *Flow, psn uint32, ts int64) {
	r := &req.req
	p := r.pending
	if p == nil {
		return
	}
	p.each(func(i int) {
		o := &p.o[i]
		d := psnDiff(o.psn, psn)
		if d < 0 {
			return
		}
		if d == 0 && ts >= o.ts {
			if req.rtt == nil {
				req.rtt = &rttHist{}
			}
			req.rtt.add(ts - o.ts)
		}
		if o.jumbo {
			r.jumbo |= jumboACKed
		}
		t.retire(r, i)
	})
}

// readResponse checks a READ response: within the READ request it
// answers when the capture holds that request (reads.go), else as one
// stream: contiguous within a READ, a new READ's responses not repeating
// ones already seen.
func (t *Tracker) readResponse(f *Flow, req *Flow, p *roce.Packet, seq idSeq, ts int64, pkt uint64) {
	s := &f.resp
	psn := p.BTH.PSN
	op := p.BTH.Opcode
	if req != nil {
		if rr := req.req.readFor(psn); rr != nil {
			// The request is known: judge the response within it.
			t.readResponseIn(f, req, rr, p, seq, ts, pkt)
			if !s.init || psnDiff(s.highest, psn) > 0 {
				s.highest = psn
			}
			s.init = true
			s.inRead = !op.IsLast()
			s.readNext = psnAdd(psn, 1)
			return
		}
	}
	if op.IsFirst() {
		if s.init && psnDiff(s.highest, psn) <= 0 {
			f.troubled().retrans++ // the responder resends data of a repeated READ
		}
	} else if s.inRead {
		if d := psnDiff(s.readNext, psn); d > 0 {
			f.troubled().gaps++
			f.troubled().missing += uint64(d)
			t.note(anomaly{kind: anGap, packet: pkt, ts: ts, flow: f.id, psn: psn, a: s.readNext, b: uint32(d)})
		} else if d < 0 {
			f.troubled().retrans++
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
func (t *Tracker) cnp(f *Flow, d *Decoded, ts int64, pkt uint64) {
	ft := f.troubled()
	ft.cnpsCarried++
	ft.cnpDSCP, ft.cnpECN, ft.cnpPCP, ft.cnpTagged = d.DSCP, d.ECN, d.PCP, d.VLAN
	target := f.peer
	if target == nil {
		if rp := t.hosts.reverseOf(f.pair); rp != nil && len(rp.requests) == 1 {
			target = rp.requests[0]
		}
	}
	if target == nil {
		target = f
	}
	t.touch(target, ts, pkt, target.req.last)
	tr := target.troubled()
	if tr.cnps == 0 {
		t.note(anomaly{kind: anCNP, packet: pkt, ts: ts, flow: target.id})
	}
	tr.cnps++
}

// Malformed notes a RoCE packet whose headers could not be decoded.
func (t *Tracker) Malformed(ts int64, pkt uint64, reason uint32) {
	t.note(anomaly{kind: anMalformed, packet: pkt, ts: ts, a: reason})
}

// Flows returns the number of flows in the table.
func (t *Tracker) Flows() int { return t.flows.len() }
