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
		{"the same loss seen downstream", func(f *FlowTruth) { f.Lost, f.Resent, f.Episodes.Timer = 1, 1, 1 }, "veth1",
			[]string{"packet-loss"}},
		{"timer with nothing lost", func(f *FlowTruth) { f.Resent, f.Episodes.Timer = 3, 1 }, "veth0", []string{"late-acks"}},
		{"reordered and copied", func(f *FlowTruth) { f.Reordered, f.Duplicated = 4, 1 }, "veth1",
			[]string{"packet-reordering", "packet-duplication"}},
		{"CE marks", func(f *FlowTruth) { f.CEMarked = 9 }, "veth1", []string{"ecn-marked-no-cnp"}},
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
