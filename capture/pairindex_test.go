package capture

import (
	"testing"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// Every ACK finds its requester among many unpaired QPs of one host pair,
// whatever PSN block the requester's next PSN has moved to while it waited:
// across a block boundary, across the 24-bit wrap, and in the block after
// the ACK's. QP i sends 40 SEND ONLYs from first[i] before any ACK comes
// back, then is acknowledged up to its last PSN. (Pairing is by PSN:
// the ACK's destination QP is the requester's, which requests do not
// carry.)
func TestRequesterFoundAcrossPSNBlocks(t *testing.T) {
	// Next PSNs 2^16 or more apart: each ACK has one candidate.
	first := []uint32{
		0xffffe8, // next wraps past 0xffffff into block 0
		0x01fff0, // next moves from block 1 to block 2
		0x04ffe8,
		0x7ffff0,
		0x123456, // stays in its block
		0x200000,
		0xfeffe0,
		0x3fffd9,
	}
	const sends = 40
	w := &readWire{t: NewTracker(TrackerConfig{PMTU: 1024})}
	for k := range uint32(sends) {
		for i, p := range first {
			w.send(wireA, wireB, 0x100+uint32(i), roce.Opcode(roce.OpSendOnly), psnAdd(p, int(k)), 0)
		}
	}
	for i := range first {
		w.send(wireB, wireA, 0x200+uint32(i), roce.Opcode(roce.OpAcknowledge), psnAdd(first[i], sends-1), 0)
	}
	byQP := flowsByQP(w.t)
	for i := range first {
		req, ack := byQP[0x100+uint32(i)], byQP[0x200+uint32(i)]
		if req.PeerID == 0 || req.PeerID != ack.ID {
			t.Errorf("QP from PSN %#06x: request flow's peer %d, want its ACK flow %d", first[i], req.PeerID, ack.ID)
		}
	}
}

// Between one pair of hosts many QPs await their first ACK at once, their
// windows of 2^16 PSNs overlapping: the ACK goes to the QP whose last or
// awaited request has its PSN. An ACK that is exact for none of the QPs
// whose window holds it stays unpaired: guessing would give one QP
// another's round trips.
func TestRequesterByExactPSN(t *testing.T) {
	const qps = 64
	w := &readWire{t: NewTracker(TrackerConfig{PMTU: 1024})}
	first := func(i int) uint32 { return 0x400000 + uint32(i)*64 } // all within 2^16
	for i := range qps {
		w.send(wireA, wireB, 0x100+uint32(i), roce.Opcode(roce.OpSendOnly), first(i), 0)
		w.send(wireA, wireB, 0x100+uint32(i), roce.Opcode(roce.OpSendOnly), first(i)+1, 0)
	}
	// First an ACK (to QP 0x2ff) of a PSN before them all: in every QP's
	// window, exact for none. Then each QP's ACK of its last PSN.
	w.send(wireB, wireA, 0x2ff, roce.Opcode(roce.OpAcknowledge), first(0)-1, 0)
	for i := range qps {
		w.send(wireB, wireA, 0x200+uint32(i), roce.Opcode(roce.OpAcknowledge), first(i)+1, 0)
	}
	byQP := flowsByQP(w.t)
	for i := range qps {
		req, ack := byQP[0x100+uint32(i)], byQP[0x200+uint32(i)]
		if req.PeerID != ack.ID {
			t.Errorf("QP %d: request flow's peer %d, want its ACK flow %d", i, req.PeerID, ack.ID)
		}
	}
	if p := byQP[0x2ff].PeerID; p != 0 {
		t.Errorf("an ACK exact for no QP, in several windows, paired with flow %d", p)
	}
}

// flowsByQP summarises t's flows by destination QP.
func flowsByQP(t *Tracker) map[uint32]FlowSummary {
	byQP := map[uint32]FlowSummary{}
	for _, f := range (&Analyzer{tracker: t}).Summary().Flows {
		byQP[uint32(f.DestQP)] = f
	}
	return byQP
}
