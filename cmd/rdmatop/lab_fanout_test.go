package main

import (
	"net/netip"
	"testing"

	"github.com/rdmatop/rdmatop/capture/live"
)

// testdata/lab/fanout was recorded in the rxe-lab VM (test/lab/fanout.sh):
// two host pairs SENDing over veth0 with 2% netem loss, captured live on
// two rings of one PACKET_FANOUT group (--workers 2) and then on one ring.
// See its MANIFEST.md.
const labFanout = "../../testdata/lab/fanout/"

type labWire struct {
	RoCE      uint64   `json:"roce_packets"`
	RingDrops []uint64 `json:"ring_drops"`
	Drops     *uint64  `json:"kernel_drops"`
	Flows     []struct {
		ID      int    `json:"id"`
		Src     string `json:"src"`
		Dst     string `json:"dst"`
		DestQP  uint32 `json:"dest_qp"`
		PeerID  int    `json:"peer_id"`
		Packets uint64 `json:"packets"`
		PSNGaps uint64 `json:"psn_gaps"`
		NAKs    struct {
			Seq uint64 `json:"psn_sequence_error"`
		} `json:"naks"`
	} `json:"flows"`
}

// ipv4Shard is the ring the kernel's fanout program gives a host pair.
func ipv4Shard(t *testing.T, src, dst string, n int) int {
	t.Helper()
	f := make([]byte, 34)
	f[12] = 0x08
	a, b := netip.MustParseAddr(src).As4(), netip.MustParseAddr(dst).As4()
	copy(f[26:], a[:])
	copy(f[30:], b[:])
	return live.FanoutShard(f, n)
}

// On the real stack, each host pair went whole to the ring FanoutShard
// names (flow IDs tell the ring: ring i of 2 numbers its flows i+1,
// i+3, …), the two pairs went to different rings, the merged Frame holds
// both with their gaps and NAKs and each flow with its peer, and the
// drops are reported per ring. One ring saw the same picture.
func TestLabFanout(t *testing.T) {
	var two, one struct {
		Wire     *labWire
		Findings []struct{ Rule string }
	}
	readJSON(t, labFanout+"once-workers2.json", &two)
	readJSON(t, labFanout+"once-workers1.json", &one)
	for name, d := range map[string]*labWire{"workers 2": two.Wire, "workers 1": one.Wire} {
		if d == nil || d.RoCE == 0 || d.Drops == nil {
			t.Fatalf("%s: wire %+v", name, d)
		}
		pairs := map[string]bool{}
		ids := map[int]bool{}
		var gaps, naks uint64
		for _, f := range d.Flows {
			pairs[min(f.Src, f.Dst)+" "+max(f.Src, f.Dst)] = true
			if ids[f.PeerID] && f.PeerID != 0 {
				t.Errorf("%s: two flows name flow %d their peer", name, f.PeerID)
			}
			ids[f.PeerID] = true
			if f.Packets > 100 && f.PeerID == 0 {
				t.Errorf("%s: flow %d (%s > %s) has no peer", name, f.ID, f.Src, f.Dst)
			}
			gaps += f.PSNGaps
			naks += f.NAKs.Seq
		}
		if len(pairs) != 2 || gaps == 0 || naks == 0 {
			t.Errorf("%s: host pairs %v, gaps %d, NAKs %d; want both pairs, with gaps and NAKs", name, pairs, gaps, naks)
		}
	}
	if len(two.Wire.RingDrops) != 2 || len(one.Wire.RingDrops) != 0 {
		t.Errorf("ring drops: %v with 2 workers, %v with 1", two.Wire.RingDrops, one.Wire.RingDrops)
	}
	rings := map[int]bool{}
	for _, f := range two.Wire.Flows {
		want := ipv4Shard(t, f.Src, f.Dst, 2)
		if got := (f.ID - 1) % 2; got != want {
			t.Errorf("flow %d (%s > %s) was analysed by ring %d; the fanout program gives ring %d", f.ID, f.Src, f.Dst, got, want)
		}
		rings[want] = true
	}
	if len(rings) != 2 {
		t.Errorf("the two host pairs went to rings %v: the capture was not split", rings)
	}
	found := false
	for _, f := range two.Findings {
		found = found || f.Rule == "packet-loss"
	}
	if !found {
		t.Error("no packet-loss finding from the merged Frame")
	}
}
