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
const maxReads = 8

// readRange is one READ request's response PSNs.
type readRange struct {
	psn  uint32 // the request's PSN: its first response PSN
	n    int    // response PSNs it can use (an upper bound while the path MTU is unknown)
	next uint32 // the next response PSN expected
	// reissue: the request asks again for responses an older request
	// still in the list covers (a READ re-issued from the middle).
	reissue bool
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
		f.readReissues++
		if unanswered {
			f.readReissuesUnanswered++
		}
	}
	if r.reads == nil {
		r.reads = &readSet{}
	}
	s := r.reads
	if s.n < maxReads {
		s.r[s.n] = rr
		s.n++
		return
	}
	copy(s.r[:], s.r[1:])
	s.r[maxReads-1] = rr
}

// readFor returns the READ request a response PSN answers: the newest
// whose responses continue exactly at psn, else the newest whose range
// holds it; nil when none does (the request was not captured).
func (r *reqStream) readFor(psn uint32) *readRange {
	var holder *readRange
	if r.reads == nil {
		return nil
	}
	for i := r.reads.n - 1; i >= 0; i-- {
		rr := &r.reads.r[i]
		if !rr.contains(psn) {
			continue
		}
		if rr.next == psn {
			return rr
		}
		if holder == nil {
			holder = rr
		}
	}
	return holder
}

// readResponseIn judges a READ response against the request it answers.
// A skip within a request is a gap, unless the request was itself a
// re-issue (see below). A response another request already got (a READ
// re-issued from the middle overlaps the one it repeats) is sent again: a
// retransmission.
func (t *Tracker) readResponseIn(f *Flow, r *reqStream, rr *readRange, p *roce.Packet, ts int64, pkt uint64) {
	psn := p.BTH.PSN
	again := false
	for i := 0; r.reads != nil && i < r.reads.n; i++ {
		if o := &r.reads.r[i]; o != rr && o.contains(psn) && psnDiff(psn, o.next) > 0 {
			again = true
		}
	}
	switch d := psnDiff(rr.next, psn); {
	case d > 0 && rr.reissue:
		// The requester had already asked again for these responses when
		// the responder skipped them: it is juggling its response streams
		// (Soft-RoCE does), not losing packets. A lost response shows the
		// other way round: the skip first, the request again after it.
		// Nor is it reordering on the path, so it counts as neither.
	case d > 0:
		f.gaps++
		f.missing += uint64(d)
		t.note(anomaly{kind: anGap, packet: pkt, ts: ts, flow: f.id, psn: psn, a: rr.next, b: uint32(d)})
	case d < 0 || again:
		f.retrans++ // the responder sent this response again
	}
	if psnDiff(rr.next, psn) >= 0 {
		rr.next = psnAdd(psn, 1)
	}
}
