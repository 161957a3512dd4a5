package capture

import (
	"testing"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// The tracker knows a host pair exactly while a flow of it is in the table:
// a capture of many hosts through a small table keeps no pair its flows
// left, and each pair counts the flows that point at it.
func TestHostPairsFollowTheTable(t *testing.T) {
	const table = 8
	w := &readWire{t: NewTracker(TrackerConfig{MaxFlows: table, PMTU: 1024})}
	for i := range 1000 {
		src := wireA
		src[14], src[15] = byte(i>>8), byte(i)
		w.id = uint16(i + 1)
		w.send(src, wireB, 0x100, roce.Opcode(roce.OpSendOnly), uint32(i), 0)
		w.send(wireB, src, 0x200, roce.Opcode(roce.OpAcknowledge), uint32(i), 0)
	}
	hosts := &w.t.hosts
	if n := len(hosts.m); n > table {
		t.Fatalf("%d host pairs known with %d flows in the table", n, w.t.Flows())
	}
	refs := 0
	for k, p := range hosts.m {
		if p.key != k || p.refs <= 0 || p.clock == nil || p.clock.refs != p.refs {
			t.Errorf("pair %x→%x: key %x→%x, %d flows, clock %v", k.src[14:], k.dst[14:], p.key.src[14:], p.key.dst[14:], p.refs, p.clock)
		}
		refs += int(p.refs)
	}
	if refs != w.t.Flows() {
		t.Errorf("pairs count %d flows, the table holds %d", refs, w.t.Flows())
	}
}

// A host pair whose last flow left the table is forgotten by the pair the
// other way, too: when A→B comes back, B→A's ACK pairs with the new
// request flow, not with the memory of the old one.
func TestHostPairReturnsAfterEviction(t *testing.T) {
	w := &readWire{t: NewTracker(TrackerConfig{MaxFlows: 5, PMTU: 1024})}
	other := wireB
	other[15] = 9
	w.send(wireA, wireB, 0x100, roce.Opcode(roce.OpSendOnly), 10, 0)
	w.send(wireB, wireA, 0x200, roce.Opcode(roce.OpAcknowledge), 10, 0) // pairs A→B with B→A
	w.send(wireB, wireA, 0x300, roce.Opcode(roce.OpSendOnly), 50, 0)    // B→A has a flow of its own
	for qp := range uint32(3) {
		w.send(wireB, other, 0x400+qp, roce.Opcode(roce.OpSendOnly), 70, 0) // the third evicts A→B's only flow
	}
	if _, ok := w.t.hosts.m[pairKey{wireA, wireB}]; ok {
		t.Fatal("A→B still known with no flow in the table")
	}
	w.send(wireB, wireA, 0x300, roce.Opcode(roce.OpSendOnly), 51, 0) // B→A stays while A→B comes back
	w.send(wireA, wireB, 0x101, roce.Opcode(roce.OpSendOnly), 30, 0)
	w.send(wireB, wireA, 0x201, roce.Opcode(roce.OpAcknowledge), 30, 0)
	if _, ok := w.t.hosts.m[pairKey{wireB, wireA}]; !ok || w.t.Flows() != 5 {
		t.Fatalf("B→A's flow 0x300 left the table (%d flows): the test no longer covers a surviving pair", w.t.Flows())
	}
	byQP := flowsByQP(w.t)
	req, ack := byQP[0x101], byQP[0x201]
	if req.ID == 0 || ack.ID == 0 || req.PeerID != ack.ID {
		t.Errorf("A→B's new request flow %d has peer %d, want its ACK flow %d", req.ID, req.PeerID, ack.ID)
	}
}
