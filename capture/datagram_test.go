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
