package capture

import "github.com/rdmatop/rdmatop/capture/roce"

// READ responses: the responder answers each READ request with a run of
// response PSNs starting at the request's PSN. A requester that re-issues
// a READ from the middle (after a timeout or a NAK) makes the responder
// resend from there, and Soft-RoCE interleaves that resent run with the
// responses to newer READs: the responses are not one PSN stream. So the
// requester's flow keeps its recent READ requests, each with its PSN range,
// and a response is judged within the request it answers: a gap is a PSN
// skipped within one request's responses.

// maxReads is how many recent READ requests a flow remembers.
const maxReads = 32

// readRange is one READ request's response PSNs.
type readRange struct {
	psn  uint32 // the request's PSN: its first response PSN
	n    int    // response PSNs it can use (an upper bound while the path MTU is unknown)
	next uint32 // the next response PSN expected
	// reissue: the request asks again for responses an older request
	// still in the list covers (a READ re-issued from the middle).
	reissue bool
	// unanswered: a re-issue sent before the capture saw any response
	// it asks for; answers counts the responses at its first PSN seen
	// since (see proveLateAnswer).
	unanswered bool
	answers    uint8
}

func (r *readRange) contains(psn uint32) bool {
	d := psnDiff(r.psn, psn)
	return d >= 0 && d < max(r.n, 1)
}

// noteRead remembers a READ request at psn using up to n response PSNs
// and counts it when it re-issues an earlier READ.
func (r *reqStream) noteRead(f *Flow, psn uint32, n int) {
	rr := readRange{psn: psn, n: max(n, 1), next: psn}
	// Only a request behind the stream asks again: a new READ right after
	// one whose length bounds its responses only loosely (path MTU still
	// unknown) may fall in that one's range.
	behind := r.init && psnDiff(r.next, psn) < 0
	unanswered := true
	for i := 0; r.reads != nil && i < r.reads.n && behind; i++ {
		if o := &r.reads.r[i]; o.contains(psn) {
			rr.reissue = true
			// Responses from psn on already captured: not unanswered.
			if psnDiff(o.next, psn) < 0 {
				unanswered = false
			}
		}
	}
	if rr.reissue {
		f.troubled().readReissues++
		if unanswered {
			f.troubled().readReissuesUnanswered++
			rr.unanswered = true
		}
	}
	if r.reads == nil {
		r.reads = &readSet{}
	}
	s := r.reads
	// A READ asked again at the same PSN replaces the one it repeats: the
	// list holds distinct runs, not every asking.
	for i := 0; i < s.n; i++ {
		if s.r[i].psn == psn {
			rr.next = s.r[i].next
			rr.reissue = rr.reissue || s.r[i].reissue
			copy(s.r[i:], s.r[i+1:s.n])
			s.n--
			break
		}
	}
	if s.n < maxReads {
		s.r[s.n] = rr
		s.n++
		return
	}
	copy(s.r[:], s.r[1:])
	s.r[maxReads-1] = rr
}

// readFor returns the READ request a response PSN answers: among those
// whose range holds it, the one whose responses stopped closest before it
// (exactly at it when the run continues), newest first on a tie; else the
// newest whose range holds it (a run restarting behind where it was);
// nil when none holds it (the request was not captured). A responder
// answering a re-issued READ may finish the original run instead of
// restarting it, so the run a response continues matters more than which
// request came last.
func (r *reqStream) readFor(psn uint32) *readRange {
	if r.reads == nil {
		return nil
	}
	var best, holder *readRange
	bestD := 0
	for i := r.reads.n - 1; i >= 0; i-- {
		rr := &r.reads.r[i]
		if !rr.contains(psn) {
			continue
		}
		if holder == nil {
			holder = rr
		}
		if d := psnDiff(rr.next, psn); d >= 0 && (best == nil || d < bestD) {
			best, bestD = rr, d
		}
	}
	if best != nil {
		return best
	}
	return holder
}

// readResponseIn judges a READ response against the request it answers.
// A skip within a request is a gap, unless the request was itself a
// re-issue (see below). A response another request already got (a READ
// re-issued from the middle overlaps the one it repeats) is sent again: a
// retransmission. With the responder's IPv4 IDs (sendorder.go) a response
// sent before one already captured is late: it fills its gap as
// reordering, not as a resend (a copy made on the path never gets here:
// Tracker.response).
func (t *Tracker) readResponseIn(f, req *Flow, rr *readRange, p *roce.Packet, seq idSeq, ts int64, pkt uint64) {
	r := &req.req
	psn := p.BTH.PSN
	s := &f.resp
	if s.track == nil {
		s.track = &respTrack{}
	}
	defer s.track.seen.mark(psn)
	late := s.track.order.late(seq)
	// The responder's next ID after the newest it had sent: nothing left
	// it toward this host in between, so PSNs it skipped were never sent.
	nextID := seq != 0 && seq == s.track.order.max+1
	s.track.order.note(seq)
	if late {
		f.troubled().outOfOrder++
	}
	again := false
	for i := 0; r.reads != nil && i < r.reads.n; i++ {
		if o := &r.reads.r[i]; o != rr && o.contains(psn) && psnDiff(psn, o.next) > 0 {
			again = true
		}
	}
	if seq != 0 && !nextID && psn == rr.psn {
		// The first response of a READ: the READ before it, whose run ends
		// where this one begins and had begun, must have ended. Responses
		// come in the order of their READs, so its unanswered tail was
		// lost (with IDs, a tail never sent shows as this ID following the
		// last one).
		t.readTail(f, r, psn, seq, ts, pkt)
	}
	switch d := psnDiff(rr.next, psn); {
	case s.holes.find(psn) >= 0:
		// A response skipped earlier: late, or sent again.
		t.responseBehind(f, psn, seq, late, ts, pkt)
	case d > 0 && (nextID || (seq == 0 && rr.reissue)):
		// The responder skipped responses it never sent: it is juggling
		// its response streams (Soft-RoCE serves a re-issued READ that
		// way), not losing packets. With IDs the skip's ID follows the
		// last one sent; without, the requester had already asked again
		// for these responses when they were skipped (a lost response
		// shows the other way round: the skip first, the request again
		// after it). The skipped PSNs are kept as a hole that misses
		// nothing, so that a late one still counts as reordered.
		openHole(&s.holes, rr.next, d, 0, seq, ts)
	case d > 0:
		// What the skip passes over and was not seen already (overtaken
		// responses of this run arrived before it) went missing.
		if missing := s.track.seen.holes(&s.holes, rr.next, d, seq, ts); missing > 0 {
			f.troubled().gaps++
			f.troubled().missing += uint64(missing)
			t.note(anomaly{kind: anGap, packet: pkt, ts: ts, flow: f.id, psn: psn, a: rr.next, b: uint32(missing)})
		}
	case d < 0 || again:
		t.responseBehind(f, psn, seq, late, ts, pkt)
	}
	// Every READ whose range holds psn asks for the same response PSNs (a
	// re-issue repeats part of an earlier one): the response advances them
	// all, so the next response is judged against the run as it stands.
	for i := 0; r.reads != nil && i < r.reads.n; i++ {
		o := &r.reads.r[i]
		if o.contains(psn) && psnDiff(o.next, psn) >= 0 {
			o.next = psnAdd(psn, 1)
		}
		if o.psn == psn {
			proveLateAnswer(req, o)
		}
	}
	if p.BTH.Opcode.IsLast() {
		// The READ's last response: its range is now exact (it was an
		// upper bound while the path MTU was unknown).
		rr.n = min(rr.n, psnDiff(rr.psn, psn)+1)
	}
}

// proveLateAnswer counts a response at the first PSN of READ o. A re-issue
// sent before any response it asks for had come is answered twice when
// the READ it repeats got there: first the answer to that READ, late,
// then the answer to the re-issue. Two answers prove the requester's
// timer fired before a late answer, not after a loss; one leaves it
// undecided (the first READ, or an answer, may have been lost where this
// capture point cannot see).
func proveLateAnswer(req *Flow, o *readRange) {
	if !o.unanswered || o.answers >= 2 {
		return
	}
	if o.answers++; o.answers == 2 {
		req.troubled().readReissuesLate++
	}
}

// readTail counts the unanswered end of the READ whose run ends at psn.
func (t *Tracker) readTail(f *Flow, r *reqStream, psn uint32, seq idSeq, ts int64, pkt uint64) {
	s := &f.resp
	for i := 0; i < r.reads.n; i++ {
		o := &r.reads.r[i]
		if psnAdd(o.psn, o.n) != psn {
			continue
		}
		// Only a run that had begun: Soft-RoCE may answer a READ asked
		// again several times after the READ behind it.
		if d := psnDiff(o.next, psn); d > 0 && o.next != o.psn {
			if missing := s.track.seen.holes(&s.holes, o.next, d, seq, ts); missing > 0 {
				f.troubled().gaps++
				f.troubled().missing += uint64(missing)
				t.note(anomaly{kind: anGap, packet: pkt, ts: ts, flow: f.id, psn: psn, a: o.next, b: uint32(missing)})
			}
			o.next = psn
		}
		return
	}
}

// responseBehind judges a READ response at or below one already seen: the
// late original of a skipped response (with IDs), else a resend.
func (t *Tracker) responseBehind(f *Flow, psn uint32, seq idSeq, late bool, ts int64, pkt uint64) {
	s := &f.resp
	if i := s.holes.find(psn); i >= 0 {
		h := s.holes.h[i]
		s.holes.fill(i, psn)
		if seq != 0 && h.openSeq != 0 && ts-h.ts <= lateHorizon {
			if idBefore(seq, h.openSeq) {
				if !late {
					f.troubled().outOfOrder++
				}
				t.unmiss(f, s.holes, h.gap)
				t.note(anomaly{kind: anReorder, packet: pkt, ts: ts, flow: f.id, psn: psn})
				return
			}
			s.holes.noteRefill(psn, &h, 0)
		}
	} else if gap, ok := s.holes.lateOriginal(psn, seq, ts); ok {
		if !late {
			f.troubled().outOfOrder++
		}
		t.unmiss(f, s.holes, gap)
		t.note(anomaly{kind: anReorder, packet: pkt, ts: ts, flow: f.id, psn: psn})
		return
	}
	f.troubled().retrans++ // the responder sent this response again
	if req := f.peer; req != nil {
		undoNAKEpisode(req, psn)
	}
}
