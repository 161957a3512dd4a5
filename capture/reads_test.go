package capture

import (
	"testing"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// readWire feeds a tracker by hand: requests from A to B's QP 0x000012, READ
// responses back to A's QP 0x000011, path MTU 1024.
type readWire struct {
	t   *Tracker
	pkt uint64
	ts  int64
	id  uint16 // the next packet's IPv4 identification (0: none)
	bad bool   // the next packet's ICRC fails
}

var (
	wireA = [16]byte{10: 0xff, 11: 0xff, 12: 10, 15: 1}
	wireB = [16]byte{10: 0xff, 11: 0xff, 12: 10, 15: 2}
)

func (w *readWire) send(src, dst [16]byte, qp uint32, op roce.Opcode, psn uint32, dmaLen uint32) {
	var d Decoded
	d.Src, d.Dst, d.IPv4, d.Encap, d.WireLen = src, dst, true, EncapRoCEv2, 100
	d.IPID = w.id
	if w.bad {
		d.ICRC = ICRCBad
	}
	p := &d.RoCE
	p.BTH.Opcode, p.BTH.DestQP, p.BTH.PSN = op, qp, psn
	switch {
	case op == roce.Opcode(roce.OpReadRequest):
		p.Headers |= roce.HasRETH
		p.RETH.DMALength = dmaLen
	case op.IsReadResponse() && (op.IsFirst() || op.IsLast() || op == roce.Opcode(roce.OpReadResponseOnly)):
		p.Headers |= roce.HasAETH
		p.AETH.Syndrome = 0x1f
		p.PayloadLen = 1024
	default:
		p.PayloadLen = 1024
	}
	w.pkt++
	w.ts += 1000
	w.t.Track(&d, w.ts, w.pkt)
}

// write sends a WRITE ONLY request of A's flow.
func (w *readWire) write(psn uint32) {
	w.send(wireA, wireB, 0x12, roce.Opcode(roce.OpWriteOnly), psn, 0)
}

func (w *readWire) read(psn, n uint32) {
	w.send(wireA, wireB, 0x12, roce.Opcode(roce.OpReadRequest), psn, n*1024)
}

// response sends the response with PSN psn of a READ of k packets starting
// at first.
func (w *readWire) response(first, k, psn uint32) {
	i := psn - first
	op := roce.Opcode(roce.OpReadResponseMiddle)
	switch {
	case k == 1:
		op = roce.Opcode(roce.OpReadResponseOnly)
	case i == 0:
		op = roce.Opcode(roce.OpReadResponseFirst)
	case i == k-1:
		op = roce.Opcode(roce.OpReadResponseLast)
	}
	w.send(wireB, wireA, 0x11, op, psn, 0)
}

func respFlow(t *testing.T, tr *Tracker) FlowSummary {
	t.Helper()
	s := (&Analyzer{tracker: tr}).Summary()
	for _, f := range s.Flows {
		if f.Responses > 0 {
			return f
		}
	}
	t.Fatal("no response flow")
	return FlowSummary{}
}

// A requester re-issues a READ from its middle (its timer fired) and the
// responder interleaves the resent responses with those of a newer READ,
// as Soft-RoCE does: nothing was lost, so no gap; the resent responses are
// retransmissions.
func TestReadResponsesInterleaved(t *testing.T) {
	w := &readWire{t: NewTracker(TrackerConfig{PMTU: 1024})}
	w.read(100, 8) // PSNs 100..107
	for psn := uint32(100); psn < 104; psn++ {
		w.response(100, 8, psn) // 100..103 arrive, then the requester times out
	}
	w.read(104, 4) // re-issued from the middle: 104..107
	w.read(108, 4) // a newer READ: 108..111
	// 104..107 were in fact sent before the timeout fired, then again;
	// the resent run and the new READ's responses interleave.
	for psn := uint32(104); psn < 108; psn++ {
		w.response(100, 8, psn)
	}
	for i := uint32(0); i < 4; i++ {
		w.response(104, 4, 104+i)
		w.response(108, 4, 108+i)
	}
	f := respFlow(t, w.t)
	if f.PSNGaps != 0 || f.MissingPSNs != 0 {
		t.Errorf("interleaved READ responses: %d gaps, %d missing PSNs; nothing was lost", f.PSNGaps, f.MissingPSNs)
	}
	if f.RetransmittedPackets != 4 {
		t.Errorf("%d responses counted as resent, want 4 (104..107 twice)", f.RetransmittedPackets)
	}
}

// A response PSN skipped within one READ's responses is a gap.
func TestReadResponseGapWithinRequest(t *testing.T) {
	w := &readWire{t: NewTracker(TrackerConfig{PMTU: 1024})}
	w.read(200, 6)
	for _, psn := range []uint32{200, 201, 203, 204, 205} { // 202 lost
		w.response(200, 6, psn)
	}
	w.read(206, 2)
	w.response(206, 2, 206)
	w.response(206, 2, 207)
	f := respFlow(t, w.t)
	if f.PSNGaps != 1 || f.MissingPSNs != 1 {
		t.Errorf("one response lost: %d gaps, %d missing", f.PSNGaps, f.MissingPSNs)
	}
}

// The real Soft-RoCE sequence (testdata/incidents/healthy-read-spurious,
// nothing lost): the requester re-issues a READ from 463, and the responder
// goes on with another stream at 472 before it answers the re-issue. The
// skip is the responder's juggling, not loss. A response lost before any
// re-issue is a gap (TestReadResponseGapWithinRequest).
func TestReadResponseSkipAfterReissue(t *testing.T) {
	w := &readWire{t: NewTracker(TrackerConfig{PMTU: 1024})}
	w.read(400, 83) // 400..482
	for psn := uint32(400); psn < 463; psn++ {
		w.response(400, 83, psn)
	}
	w.read(463, 20) // the requester asks again from 463
	for psn := uint32(472); psn < 483; psn++ {
		w.response(400, 83, psn) // the responder jumps ahead
	}
	for psn := uint32(463); psn < 483; psn++ {
		w.response(463, 20, psn) // then answers the re-issue
	}
	f := respFlow(t, w.t)
	if f.PSNGaps != 0 || f.MissingPSNs != 0 {
		t.Errorf("a skip after the re-issue: %d gaps, %d missing; nothing was lost", f.PSNGaps, f.MissingPSNs)
	}
}

// A READ request stands for all the PSNs of its responses: one overtaken
// by the next READ leaves a hole of its whole range, and its own late
// arrival closes all of it (lab seed 4, s4-12: one 128 KiB READ overtaken
// read as 127 PSNs missing).
func TestLateREADRequestFillsItsRange(t *testing.T) {
	w := &readWire{t: NewTracker(TrackerConfig{PMTU: 1024})}
	w.read(100, 4)
	w.read(108, 4) // overtook the READ of 104..107
	w.read(104, 4) // which comes late
	w.read(112, 4)
	f := reqFlow(t, w.t)
	if f.MissingPSNs != 0 || f.PSNGaps != 0 || f.OutOfOrder != 1 {
		t.Errorf("a late READ: %d PSNs missing in %d gaps, %d out of order; want 0 0 1", f.MissingPSNs, f.PSNGaps, f.OutOfOrder)
	}
}

// A READ request overtaken by the next, resent after the NAK, and then
// arriving late itself (its IPv4 ID is before the one that skipped it):
// its resend filled the whole range, and the late original takes all of
// it back from missing, not only its first PSN (lab seed 5, s5-30: 18
// gaps "left" of 7 PSNs each where nothing was lost).
func TestLateREADOriginalAfterItsResend(t *testing.T) {
	w := &readWire{t: NewTracker(TrackerConfig{PMTU: 1024})}
	w.id = 10
	w.read(100, 8)
	w.id = 12
	w.read(116, 8) // skips the READ of 108..115 (ID 11)
	w.id = 13
	w.read(108, 8) // the requester's resend after the NAK
	w.id = 11
	w.read(108, 8) // the original, late
	f := reqFlow(t, w.t)
	if f.MissingPSNs != 0 || f.PSNGaps != 0 || f.OutOfOrder != 1 {
		t.Errorf("a late READ after its resend: %d PSNs missing in %d gaps, %d out of order; want 0 0 1",
			f.MissingPSNs, f.PSNGaps, f.OutOfOrder)
	}
}

// A READ the responder NAKed (it saw the next one first) and then answered
// twice - once for the original, which came late, once for the resend -
// undoes the NAK episode: reordered after the capture, not lost (seed 4's
// s4-12, seen from the requester).
func TestREADAnsweredTwiceUndoesItsNAK(t *testing.T) {
	w := &readWire{t: NewTracker(TrackerConfig{PMTU: 1024})}
	w.read(100, 4)
	w.read(104, 4)
	var nak Decoded
	nak.Src, nak.Dst, nak.IPv4, nak.Encap, nak.WireLen = wireB, wireA, true, EncapRoCEv2, 60
	nak.RoCE.BTH.Opcode, nak.RoCE.BTH.DestQP, nak.RoCE.BTH.PSN = roce.Opcode(roce.OpAcknowledge), 0x11, 100
	nak.RoCE.Headers |= roce.HasAETH
	nak.RoCE.AETH.Syndrome = 0x60 // NAK, PSN sequence error
	w.pkt++
	w.ts += 1000
	w.t.Track(&nak, w.ts, w.pkt)
	w.read(100, 4) // go back N
	w.read(104, 4)
	for range 2 { // the late original's answer, then the resend's
		for psn := uint32(100); psn < 104; psn++ {
			w.response(100, 4, psn)
		}
	}
	for psn := uint32(104); psn < 108; psn++ {
		w.response(104, 4, psn)
	}
	f := reqFlow(t, w.t)
	if f.GoBackN != 1 || f.UndoneNAKEpisodes != 1 {
		t.Errorf("a READ answered twice after its NAK: %d episodes, %d undone; want 1 1", f.GoBackN, f.UndoneNAKEpisodes)
	}
}

// A lost READ request skips its PSN. While the path MTU is unknown a skip
// this small could also be the READ before it using more PSNs (a smaller
// MTU), but not when a response already carried more than that smaller
// MTU: the responses of 1024 bytes rule out 512, the skip is a loss, and
// the READs after it are new, not resent (s11-09: a bidirectional
// ib_read_bw of 512-byte READs that went on as 658 false go-back-N
// episodes per QP after one reordered READ taught the tracker MTU 256).
func TestReadSkipDoesNotShrinkMTUBelowPayload(t *testing.T) {
	w := &readWire{t: NewTracker(TrackerConfig{})}
	for _, psn := range []uint32{0, 1, 3, 4, 5, 6} { // READ 2 lost
		w.read(psn, 1)
		w.response(psn, 1, psn)
	}
	f := reqFlow(t, w.t)
	if f.RetransmittedPackets != 0 || f.GoBackN != 0 {
		t.Errorf("new READs taken for resends: %d resent in %d episodes", f.RetransmittedPackets, f.GoBackN)
	}
	if f.MissingPSNs != 1 {
		t.Errorf("READ 2 lost: %d PSNs missing, want 1", f.MissingPSNs)
	}
}

// A responder that NAKs a PSN and then acknowledges it before the
// requester goes back had received it after all: the NAK episode is
// undone as when it acknowledges again after the resend (s17-50 at the
// requester: the ACKs overtook each other on a jittery path and the
// requester went back from a PSN already acknowledged).
func TestACKBeforeTheResendUndoesItsNAK(t *testing.T) {
	w := &readWire{t: NewTracker(TrackerConfig{PMTU: 1024})}
	for psn := uint32(100); psn < 110; psn++ {
		w.write(psn)
	}
	w.nak(104) // NAK: PSN sequence error, 104 expected
	w.ack(109) // then every PSN up to 109 acknowledged
	for psn := uint32(104); psn < 110; psn++ {
		w.write(psn) // the requester goes back for the NAK all the same
	}
	f := reqFlow(t, w.t)
	if f.GoBackN != 1 || f.UndoneNAKEpisodes != 1 || f.ResendsAfterACK != 1 {
		t.Errorf("a resend from a NAKed PSN already acknowledged: %d episodes, %d undone, %d resends after an ACK; want 1 1 1",
			f.GoBackN, f.UndoneNAKEpisodes, f.ResendsAfterACK)
	}
}

// The same NAK, ACK and resend, but the timer had already sent the PSN
// again before the NAK: that earlier copy may be the one the responder
// acknowledged (a slow queue holding both; s17-27, a rate limit), so
// the ACK proves nothing about the original.
func TestACKBeforeTheResendOfAPSNSentTwiceProvesNothing(t *testing.T) {
	w := &readWire{t: NewTracker(TrackerConfig{PMTU: 1024})}
	for psn := uint32(100); psn < 110; psn++ {
		w.write(psn)
	}
	for psn := uint32(100); psn < 110; psn++ {
		w.write(psn) // the timer's go-back, no NAK asked for it
	}
	w.nak(104)
	w.ack(109)
	for psn := uint32(104); psn < 110; psn++ {
		w.write(psn)
	}
	if f := reqFlow(t, w.t); f.UndoneNAKEpisodes != 0 {
		t.Errorf("a PSN resent by the timer, NAKed, acknowledged, resent: %d NAK episodes undone, want 0", f.UndoneNAKEpisodes)
	}
}

// A READ re-issued before any of its responses came is proven late when
// the capture then sees its first response twice: the answer to the READ
// it repeats, then the answer to the re-issue. Answered once, it stays
// undecided: the READ it repeats may have been lost after the capture.
func TestReadReissueAnsweredTwiceIsLate(t *testing.T) {
	for _, c := range []struct {
		name    string
		answers int
		want    uint64
	}{
		{"answered twice: late", 2, 1},
		{"answered once: undecided", 1, 0},
	} {
		// Stamped with IDs: without them a READ sent again within
		// dupWindow would pass for a copy the path made.
		w := &readWire{t: NewTracker(TrackerConfig{PMTU: 1024}), id: 1}
		w.read(100, 4) // 100..103
		w.id++
		w.read(100, 4) // asked again before any response came
		for range c.answers {
			for psn := uint32(100); psn < 104; psn++ {
				w.id++
				w.response(100, 4, psn)
			}
		}
		var req FlowSummary
		for _, f := range (&Analyzer{tracker: w.t}).Summary().Flows {
			if f.Requests > 0 {
				req = f
			}
		}
		if req.ReadReissuesUnanswered != 1 || req.ReadReissuesLate != c.want {
			t.Errorf("%s: %d unanswered re-issues, %d late; want 1, %d", c.name, req.ReadReissuesUnanswered, req.ReadReissuesLate, c.want)
		}
	}
}
