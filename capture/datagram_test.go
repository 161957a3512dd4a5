package capture

import (
	"testing"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// A UD datagram seen twice from one source QP is a copy (no sender resends
// a datagram); the same PSN from another source QP is another sender's.
func TestDatagramCopies(t *testing.T) {
	tr := NewTracker(TrackerConfig{PMTU: 1024})
	var pkt uint64
	send := func(srcQP, psn uint32) {
		var d Decoded
		d.Src, d.Dst, d.Encap, d.WireLen = wireA, wireB, EncapRoCEv2, 1100 // IPv6: no ID to go by
		p := &d.RoCE
		p.BTH.Opcode, p.BTH.DestQP, p.BTH.PSN = roce.Opcode(roce.TransportUD<<5|roce.OpSendOnly), 0x33, psn
		p.Headers |= roce.HasDETH
		p.DETH.SrcQP = srcQP
		p.PayloadLen = 1024
		pkt++
		tr.Track(&d, int64(pkt)*1_000_000, pkt)
	}
	for psn := uint32(100); psn < 110; psn++ {
		send(0x21, psn)
		if psn == 104 || psn == 107 {
			send(0x21, psn) // netem's copy
		}
	}
	send(0x21, 103) // a copy that came late
	f := reqFlow(t, tr)
	if f.Duplicates != 3 || f.PSNGaps != 0 || f.RetransmittedPackets != 0 {
		t.Errorf("three copies: duplicates=%d gaps=%d resent=%d", f.Duplicates, f.PSNGaps, f.RetransmittedPackets)
	}
	tr2 := NewTracker(TrackerConfig{PMTU: 1024})
	tr, pkt = tr2, 0
	for psn := uint32(100); psn < 105; psn++ {
		send(0x21, psn)
		send(0x22, psn) // a second sender to the same QP, its own PSN space
	}
	if f := reqFlow(t, tr2); f.Duplicates != 0 {
		t.Errorf("two senders' PSNs counted as %d copies", f.Duplicates)
	}
}

// Two UD QPs that send to each other are peers, as a connection's two
// directions are: a CNP to the sender's QP counts against its flow, and
// a UD QP that only receives from a third QP stays unpaired.
func TestDatagramPeers(t *testing.T) {
	tr := NewTracker(TrackerConfig{PMTU: 1024})
	var pkt uint64
	send := func(src, dst [16]byte, destQP, srcQP, psn uint32, ce bool) {
		var d Decoded
		d.Src, d.Dst, d.Encap, d.WireLen = src, dst, EncapRoCEv2, 1100
		if ce {
			d.ECN = 3
		}
		p := &d.RoCE
		p.BTH.Opcode, p.BTH.DestQP, p.BTH.PSN = roce.Opcode(roce.TransportUD<<5|roce.OpSendOnly), destQP, psn
		p.Headers |= roce.HasDETH
		p.DETH.SrcQP = srcQP
		p.PayloadLen = 1024
		pkt++
		tr.Track(&d, int64(pkt)*1_000_000, pkt)
	}
	for psn := uint32(1); psn <= 5; psn++ {
		send(wireA, wireB, 0x33, 0x21, psn, true)  // A's QP 0x21 to B's 0x33, marked
		send(wireB, wireA, 0x21, 0x33, psn, false) // and back
		send(wireB, wireA, 0x40, 0x44, psn, false) // B's 0x44 to A's 0x40, which never answers
	}
	var cnp Decoded
	cnp.Src, cnp.Dst, cnp.Encap, cnp.WireLen = wireB, wireA, EncapRoCEv2, 70
	cnp.RoCE.BTH.Opcode, cnp.RoCE.BTH.DestQP = roce.OpcodeCNP, 0x21
	pkt++
	tr.Track(&cnp, int64(pkt)*1_000_000, pkt)
	s := (&Analyzer{tracker: tr}).Summary()
	byQP := map[uint32]FlowSummary{}
	for _, f := range s.Flows { // (the CNP rides B -> A QP 0x21's flow)
		byQP[uint32(f.DestQP)] = f
	}
	ab, ba, lone := byQP[0x33], byQP[0x21], byQP[0x40]
	if ab.PeerID != ba.ID || ba.PeerID != ab.ID {
		t.Errorf("A 0x21 <-> B 0x33: peers %d and %d, want %d and %d", ab.PeerID, ba.PeerID, ba.ID, ab.ID)
	}
	if lone.PeerID != 0 {
		t.Errorf("B 0x44 -> A 0x40 with no way back paired with flow %d", lone.PeerID)
	}
	if ab.CNPs != 1 || ab.ECNCE != 5 {
		t.Errorf("A's marked flow: %d CNPs, %d CE; want 1 and 5", ab.CNPs, ab.ECNCE)
	}
}
