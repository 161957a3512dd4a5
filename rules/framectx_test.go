package rules

import (
	"maps"
	"testing"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
)

// A lab host holds both ends (rxe0 on veth0, rxe1 on veth1): a capture on
// veth0 puts the frame on rxe0/1, and its peer is the one address not in
// rxe0's GIDs; a command of a finding on rxe1 takes none of it.
func TestFrameContext(t *testing.T) {
	snap := &probes.Snapshot{
		Ports: []probes.Port{{Device: "rxe0", Port: 1, Netdev: "veth0"}, {Device: "rxe1", Port: 1, Netdev: "veth1"}},
		Config: probes.Config{GIDs: []probes.GID{
			{Device: "rxe0", Port: 1, GID: "::ffff:192.168.77.1"}, {Device: "rxe1", Port: 1, GID: "::ffff:192.168.77.2"}}},
	}
	wire := &capture.Summary{Interface: "veth0", Flows: []capture.FlowSummary{
		{ID: 1, Src: "192.168.77.1", Dst: "192.168.77.2"}, {ID: 2, Src: "192.168.77.2", Dst: "192.168.77.1"}}}
	for _, c := range []struct {
		name string
		f    Frame
		want map[string]string
	}{
		{"capture on veth0", Frame{Snapshot: snap, Wire: wire},
			map[string]string{"device": "rxe0", "port": "1", "netdev": "veth0", "dst": "192.168.77.2"}},
		{"no capture, two ports", Frame{Snapshot: snap}, nil},
		{"a capture file, no host", Frame{Wire: &capture.Summary{Flows: wire.Flows}}, nil},
	} {
		if got := frameContext(c.f, &peerSet{}); !maps.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	ctx := frameContext(Frame{Snapshot: snap, Wire: wire}, &peerSet{})
	lines := []string{"rdma statistic show link DEV/N", "ethtool -S IFACE", "ip route get PEER_IP"}
	if got := renderCommands(lines, map[string]string{"device": "rxe1", "qpn": "0x11"}, nil, ctx); got[0] != "rdma statistic show link rxe1/N" ||
		got[1] != lines[1] || got[2] != lines[2] {
		t.Errorf("a finding on rxe1 took rxe0's port or peer: %q", got)
	}
	if got := renderCommands(lines, map[string]string{"flow": "1"}, nil, ctx); got[0] != "rdma statistic show link rxe0/1" ||
		got[1] != "ethtool -S veth0" || got[2] != "ip route get 192.168.77.2" {
		t.Errorf("a flow of the capture: %q", got)
	}
}
