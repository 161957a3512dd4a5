package wiretruth

import (
	"slices"
	"testing"
)

func TestNetworkDidLabelsFromTheTruth(t *testing.T) {
	req := FlowTruth{Kind: "requests", Upstream: "veth0", Downstream: "veth1",
		Seen: map[string]Observed{"veth0": {}, "veth1": {}}}
	cases := []struct {
		name string
		f    func(f *FlowTruth)
		at   string
		want []string
	}{
		{"nothing", func(*FlowTruth) {}, "veth0", nil},
		{"loss with a NAK", func(f *FlowTruth) { f.Lost, f.Resent, f.Episodes.NAK = 2, 5, 1 }, "veth0", []string{"packet-loss"}},
		{"tail loss after the point, timer only", func(f *FlowTruth) { f.Lost, f.Resent, f.Episodes.Timer = 1, 1, 1 }, "veth0",
			[]string{"packet-loss", "ack-timeout"}},
		{"a loss whose hole shows downstream", func(f *FlowTruth) {
			f.Lost, f.Resent, f.Episodes.Timer = 1, 1, 1
			f.Seen = map[string]Observed{"veth0": {}, "veth1": {Missing: 1}}
		}, "veth1", []string{"packet-loss"}},
		{"timer with nothing lost", func(f *FlowTruth) { f.Resent, f.Episodes.Timer = 3, 1 }, "veth0", []string{"late-acks", "ack-timeout"}},
		{"reordered and copied", func(f *FlowTruth) { f.Reordered, f.Duplicated = 4, 1 }, "veth1",
			[]string{"packet-reordering", "packet-duplication"}},
		{"sent again right behind itself, without IPv4 IDs", func(f *FlowTruth) {
			f.Resent, f.Episodes.Timer = 4, 2
			f.Seen = map[string]Observed{"veth0": {Resent: 4, UnclearResends: 3}, "veth1": {Resent: 4, UnclearResends: 3}}
		}, "veth1", []string{"packet-duplication", "late-acks", "ack-timeout"}},
		{"CE marks", func(f *FlowTruth) { f.CEMarked = 9 }, "veth1", []string{"ecn-marked-no-cnp"}},
		{"corrupted, seen where the copies arrive", func(f *FlowTruth) { f.Corrupted, f.Resent, f.Episodes.NAK = 3, 9, 3 }, "veth1",
			[]string{"packet-loss", "icrc-errors"}},
		{"corrupted, seen before the fault", func(f *FlowTruth) { f.Corrupted, f.Resent, f.Episodes.NAK = 3, 9, 3 }, "veth0",
			[]string{"packet-loss"}},
	}
	for _, c := range cases {
		f := req
		c.f(&f)
		did, _ := NetworkDid(&Truth{Flows: []FlowTruth{f}}, c.at)
		if !slices.Equal(did, c.want) {
			t.Errorf("%s: %v, want %v", c.name, did, c.want)
		}
	}
	// A lost ACK that cost no resend is nothing anyone can see.
	ack := FlowTruth{Kind: "acks", Upstream: "veth1", Lost: 1}
	if did, _ := NetworkDid(&Truth{Flows: []FlowTruth{ack}}, "veth0"); len(did) != 0 {
		t.Errorf("a free lost ACK: %v", did)
	}
	// One that cost a timer resend: where the ACK should have arrived, no
	// hole shows it (ACKs are no PSN stream), only the timer.
	timer := req
	timer.Resent, timer.Episodes.Timer = 1, 1
	want := []string{"packet-loss", "ack-timeout"}
	if did, _ := NetworkDid(&Truth{Flows: []FlowTruth{ack, timer}}, "veth0"); !slices.Equal(did, want) {
		t.Errorf("a lost ACK and the timer's resend, at the requester: %v, want %v", did, want)
	}
	// A READ response lost where this point sees no hole: the same,
	// beside NAKs of the requests.
	resp := FlowTruth{Kind: "responses", Upstream: "veth1", Downstream: "veth0", Lost: 3,
		Seen: map[string]Observed{"veth0": {}, "veth1": {}}}
	nak := req
	nak.Resent, nak.Episodes.NAK, nak.Episodes.Timer = 4, 1, 2
	for _, at := range []string{"veth0", "veth1"} {
		if did, _ := NetworkDid(&Truth{Flows: []FlowTruth{nak, resp}}, at); !slices.Equal(did, want) {
			t.Errorf("READ responses lost, unseen at %s, beside a NAK: %v, want %v", at, did, want)
		}
	}
	resp.Seen["veth0"] = Observed{Missing: 3} // the hole shows where they should have come
	if did, _ := NetworkDid(&Truth{Flows: []FlowTruth{nak, resp}}, "veth0"); slices.Contains(did, "ack-timeout") {
		t.Errorf("READ responses lost, their hole seen: %v", did)
	}
	// A NAK elsewhere does not hide it: the lost ACK still drew no NAK.
	timer.Episodes.NAK = 1
	if did, _ := NetworkDid(&Truth{Flows: []FlowTruth{ack, timer}}, "veth0"); !slices.Equal(did, want) {
		t.Errorf("a lost ACK and the timer's resend beside a NAK: %v, want %v", did, want)
	}
}

func TestNothingVisibleAndVerdict(t *testing.T) {
	f := FlowTruth{Kind: "requests", Upstream: "veth0", Downstream: "veth1", Duplicated: 2,
		Seen: map[string]Observed{"veth0": {}, "veth1": {Duplicates: 2}}}
	tr := &Truth{Flows: []FlowTruth{f}}
	if NothingVisible(tr, "veth1") {
		t.Error("copies reach veth1: visible there")
	}
	f.Seen["veth1"] = Observed{}
	f.Downstream = "elsewhere"
	if !NothingVisible(&Truth{Flows: []FlowTruth{f}}, "veth0") {
		t.Error("nothing seen at veth0")
	}
	ud := FlowTruth{Kind: "ud", Upstream: "veth0", Downstream: "veth1", Corrupted: 2,
		Seen: map[string]Observed{"veth0": {}, "veth1": {}}}
	if NothingVisible(&Truth{Flows: []FlowTruth{ud}}, "veth1") || !NothingVisible(&Truth{Flows: []FlowTruth{ud}}, "veth0") {
		t.Error("a corrupted UD datagram is visible where it arrives (its ICRC), not before")
	}
	if !FirstFindingRight(nil, false, "none", 0) || FirstFindingRight(nil, false, "packet-loss", 1) {
		t.Error("a quiet network: only silence is right")
	}
	if !FirstFindingRight([]string{"packet-loss"}, true, "none", 0) {
		t.Error("nothing visible: silence is right")
	}
	if !FirstFindingRight([]string{"packet-loss", "ack-timeout"}, false, "ack-timeout", 2) ||
		FirstFindingRight([]string{"packet-loss"}, false, "late-acks", 1) {
		t.Error("the first finding must name something the network did")
	}
}

func TestCompareTolerances(t *testing.T) {
	f := FlowTruth{Kind: "requests", Upstream: "veth0", Corrupted: 3, Episodes: EpisodeCount{NAK: 4, Timer: 1},
		Seen: map[string]Observed{"veth0": {Missing: 0, Resent: 500, OutOfOrder: 1}, "veth1": {Missing: 7}}}
	up := f.Compare("veth0", Counts{Resent: 505, OutOfOrder: 4, Episodes: 6})
	for _, c := range up {
		if !c.Agrees() {
			t.Errorf("upstream %s: %d vs %d within %d should agree", c.Name, c.Got, c.Want, c.Tolerance)
		}
	}
	if len(up) != 5 {
		t.Errorf("episodes are compared at the sender's side: %d counts", len(up))
	}
	down := f.Compare("veth1", Counts{Missing: 6})
	if len(down) != 4 || down[0].Agrees() {
		t.Errorf("downstream: %+v", down)
	}
}

// Lab meta.txt sections as campaign.sh writes them (seed 2): tbf over
// red at A's egress, before the veth0 capture (s2-10), whose red early
// drops reach the tbf and the prio root too; a netem loss between the
// points, which the captures see themselves; and at B's egress a lone
// tbf, whose tail drops Soft-RoCE sends again (s2-27 had this shape).
const srcMeta = `spec: s2-10-red-send | ib_send_bw -s 65536 | tbf rate 23mbit ; red limit 651168 | - |  | src mid | v6-vlan
## fwd impairment (veth0.100 egress, A->B, before the veth0 capture): tbf rate 23mbit burst 9044 limit 1302336 ; red limit 651168
qdisc prio 1: root refcnt 2 bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
 Sent 126902192 bytes 30404 pkt (dropped 167801, overlimits 0 requeues 0) 
 backlog 0b 0p requeues 0
qdisc tbf 10: parent 1:1 rate 23Mbit burst 9041b lat 450ms 
 Sent 126902122 bytes 30403 pkt (dropped 167803, overlimits 213886 requeues 0) 
 backlog 0b 0p requeues 0
qdisc red 20: parent 10:1 limit 651168b min 27132b max 81396b 
 Sent 126902122 bytes 30403 pkt (dropped 167800, overlimits 167800 requeues 0) 
  marked 0 early 167800 pdrop 3 other 0 
## rev impairment (m0 egress, B->A): loss 3%
qdisc netem 10: parent 1:1 limit 1000 loss 3%
 Sent 1920828 bytes 2154 pkt (dropped 10, overlimits 0 requeues 0) 
## tcpdump veth0
`

const srcMetaNetem = `## fwd impairment (veth0 egress, A->B, before the veth0 capture): loss 0.65%
qdisc prio 1: root refcnt 3 bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
 Sent 1922767 bytes 2174 pkt (dropped 10, overlimits 0 requeues 0) 
qdisc netem 10: parent 1:1 limit 1000 loss 0.65%
 Sent 1920828 bytes 2154 pkt (dropped 10, overlimits 0 requeues 0) 
## rev impairment (veth1 egress, B->A, before the veth1 capture): tbf rate 20mbit burst 9044 limit 13566
qdisc prio 1: root refcnt 2 bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
 Sent 1000 bytes 10 pkt (dropped 41, overlimits 0 requeues 0) 
qdisc tbf 10: parent 1:1 rate 20Mbit burst 9044b lat 5ms 
 Sent 1000 bytes 10 pkt (dropped 41, overlimits 77 requeues 0) 
## tcpdump veth0
`

func TestSourceDropsAreLoss(t *testing.T) {
	if drops := SourceDrops([]byte(srcMetaNetem)); !slices.Equal(drops, []SourceDrop{{Before: "veth0", Dropped: 10}, {Before: "veth1", Dropped: 0}}) {
		t.Errorf("netem's loss is lost, a tbf's tail drop is sent again: %+v", drops)
	}
	drops := SourceDrops([]byte(srcMeta))
	if !slices.Equal(drops, []SourceDrop{{Before: "veth0", Dropped: 167800}}) {
		t.Fatalf("source drops %+v: want red's 167800 early drops before veth0, not its pdrops nor the tbf's own (the mid netem's loss is the captures' to see)", drops)
	}
	// Nothing lost between the points, the sender resent after its timer.
	f := FlowTruth{Kind: "requests", Upstream: "veth0", Downstream: "veth1", Resent: 40, Episodes: EpisodeCount{Timer: 3},
		Seen: map[string]Observed{"veth0": {Resent: 40}, "veth1": {Resent: 40}}}
	tr := &Truth{Flows: []FlowTruth{f}}
	if did, _ := NetworkDid(tr, "veth0"); !slices.Equal(did, []string{"late-acks", "ack-timeout"}) {
		t.Errorf("without the counter: %v", did)
	}
	tr.DroppedBefore = drops
	for _, at := range []string{"veth0", "veth1"} {
		if did, _ := NetworkDid(tr, at); !slices.Equal(did, []string{"packet-loss", "ack-timeout"}) {
			t.Errorf("at %s, dropped before the capture: %v, want packet-loss (ack-timeout: no NAK)", at, did)
		}
	}
	// Drops that cost no resend (ACKs the next one covered) are no loss.
	f.Resent, f.Episodes, f.Seen = 0, EpisodeCount{}, map[string]Observed{"veth0": {}, "veth1": {}}
	if did, _ := NetworkDid(&Truth{Flows: []FlowTruth{f}, DroppedBefore: drops}, "veth0"); len(did) != 0 {
		t.Errorf("drops with no resend: %v", did)
	}
}

// netem with ecn at a sender's egress marks ECT packets CE instead of
// dropping them, and counts the marks as drops: the marks reach both
// points (a sender never sets CE itself), the rest were dropped.
func TestSourceECNMarksAreNoLoss(t *testing.T) {
	meta := `## fwd impairment (veth0 egress, A->B, before the veth0 capture): loss 20% ecn
qdisc prio 1: root refcnt 3 bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
 Sent 1000 bytes 100 pkt (dropped 30, overlimits 0 requeues 0) 
qdisc netem 10: parent 1:1 limit 1000 loss 20% ecn
 Sent 1000 bytes 100 pkt (dropped 30, overlimits 0 requeues 0) 
## tcpdump veth0
`
	drops := SourceDrops([]byte(meta))
	if !slices.Equal(drops, []SourceDrop{{Before: "veth0", Dropped: 30, ECN: true}}) {
		t.Fatalf("%+v", drops)
	}
	f := FlowTruth{Kind: "requests", Upstream: "veth0", Downstream: "veth1", CEBefore: 30,
		Seen: map[string]Observed{"veth0": {}, "veth1": {}}}
	tr := &Truth{Flows: []FlowTruth{f}, DroppedBefore: drops}
	for _, at := range []string{"veth0", "veth1"} {
		if did, _ := NetworkDid(tr, at); !slices.Equal(did, []string{"ecn-marked-no-cnp"}) || NothingVisible(tr, at) {
			t.Errorf("at %s: %v (visible: %v), want the marks alone, visible", at, did, !NothingVisible(tr, at))
		}
	}
	tr.Flows[0].CEBefore, tr.Flows[0].Resent = 26, 4 // 4 not ECT: dropped, and resent
	if did, _ := NetworkDid(tr, "veth1"); !slices.Equal(did, []string{"packet-loss", "ecn-marked-no-cnp"}) {
		t.Errorf("26 marked, 4 dropped: %v", did)
	}
}

// RNR NAKs on the wire are named; lost ACKs whose only resends an RNR NAK
// asked for cost nothing (no timer fired), so they are no loss.
func TestRNRNAKsAndFreeLostACKs(t *testing.T) {
	req := FlowTruth{Kind: "requests", Upstream: "veth0", Downstream: "veth1", Resent: 12,
		Episodes: EpisodeCount{RNR: 12}, Seen: map[string]Observed{"veth0": {Resent: 12}, "veth1": {Resent: 12}}}
	ack := FlowTruth{Kind: "acks", Upstream: "veth1", Downstream: "veth0", Lost: 71}
	did, why := NetworkDid(&Truth{Flows: []FlowTruth{req, ack}}, "veth0")
	if want := []string{"rnr-nak", "rnr-nak-no-receive"}; !slices.Equal(did, want) {
		t.Errorf("RNR resends and free lost ACKs: %v (%s), want %v", did, why, want)
	}
}

// Answers lost where a point sees no hole leave it the requester's timer
// to see, whatever NAKs other packets drew: READ responses dropped in the
// responder's own qdisc (an egress carrying only answers), and, without
// IPv4 IDs, responses whose every hole at the point is one it cannot tell
// from a late packet (training seed 28's s28-06 and s28-22).
func TestHiddenAnswersAdmitTheTimer(t *testing.T) {
	req := FlowTruth{Kind: "requests", Upstream: "veth0", Downstream: "veth1", Resent: 30, Reordered: 2,
		Episodes: EpisodeCount{Timer: 9, NAK: 1}, Seen: map[string]Observed{"veth0": {Resent: 30}, "veth1": {Resent: 30, OutOfOrder: 2}}}
	resp := FlowTruth{Kind: "responses", Upstream: "veth1", Downstream: "veth0", Resent: 20,
		Seen: map[string]Observed{"veth0": {Resent: 20}, "veth1": {Resent: 20}}}
	tr := &Truth{Flows: []FlowTruth{req, resp}, DroppedBefore: []SourceDrop{{Before: "veth1", Dropped: 14}}}
	for _, at := range []string{"veth0", "veth1"} {
		if did, _ := NetworkDid(tr, at); !slices.Contains(did, "ack-timeout") || !slices.Contains(did, "packet-loss") {
			t.Errorf("answers dropped at the responder's egress, at %s: %v; want packet-loss and ack-timeout", at, did)
		}
	}
	// Drops at an egress none of whose packets reached a capture: what
	// they were nobody knows, so they are no answers.
	if did, _ := NetworkDid(&Truth{Flows: []FlowTruth{req}, DroppedBefore: []SourceDrop{{Before: "veth1", Dropped: 14}}}, "veth0"); slices.Contains(did, "ack-timeout") {
		t.Errorf("drops at an egress no flow was seen from, with a NAK: %v; want no ack-timeout", did)
	}
	// The same drops at the requester's egress were requests: the
	// responder NAKs the holes they leave.
	tr.DroppedBefore[0].Before = "veth0"
	if did, _ := NetworkDid(tr, "veth0"); slices.Contains(did, "ack-timeout") {
		t.Errorf("requests dropped at the requester's egress with a NAK: %v; want no ack-timeout", did)
	}
	// Without IDs: responses lost between the points, every hole at the
	// requester's point unclear.
	resp.Lost = 50
	resp.Seen = map[string]Observed{"veth1": {Resent: 20}, "veth0": {Resent: 20, Missing: 50, Unclear: 52, UnclearLost: 50}}
	tr = &Truth{Flows: []FlowTruth{req, resp}}
	if did, _ := NetworkDid(tr, "veth0"); !slices.Contains(did, "ack-timeout") {
		t.Errorf("responses lost, no hole the point can tell: %v; want ack-timeout admitted", did)
	}
	resp.Seen["veth0"] = Observed{Resent: 20, Missing: 50, Unclear: 2, UnclearLost: 1}
	if did, _ := NetworkDid(tr, "veth0"); slices.Contains(did, "ack-timeout") {
		t.Errorf("responses lost, 49 holes the point can tell: %v; want no ack-timeout", did)
	}
}
