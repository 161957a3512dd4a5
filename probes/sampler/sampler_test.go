package sampler

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/ethtool"
)

const fixtures = "../../testdata/"

func ethtoolFixture(t testing.TB, name string) *ethtool.Fake {
	t.Helper()
	f, err := os.Open(fixtures + "ethtool/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stats, err := ethtool.ParseText(f)
	if err != nil {
		t.Fatal(err)
	}
	// eth1 is down; the fixture set has no dump for it.
	return &ethtool.Fake{Ifaces: map[string]ethtool.FakeIface{"eth0": {Driver: "mlx5_core", Stats: stats},
		"eth1": {Driver: "mlx5_core", Stats: map[string]uint64{}}}}
}

func readUint(t testing.TB, path string) uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func counter(t *testing.T, p *probes.Port, name string) probes.Counter {
	t.Helper()
	for _, c := range p.Counters {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("%s/%d has no counter %s", p.Device, p.Port, name)
	return probes.Counter{}
}

// The mlx5 fixture pair is the same host 60 s apart (a congestion episode
// and a PFC storm on priority 3): rates must be the fixtures' deltas / 60.
func TestFixturePairRates(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	s := New(Sources{FS: os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t0"), Ethtool: ethtoolFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt"), Label: "fixture"}, Options{})
	first := s.Sample(context.Background(), t0)
	s.src.FS = os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t1")
	s.src.Ethtool = ethtoolFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t1.txt")
	snap := s.Sample(context.Background(), t0.Add(60*time.Second))

	if len(first.Ports) != 2 || len(snap.Ports) != 2 {
		t.Fatalf("ports: %d then %d", len(first.Ports), len(snap.Ports))
	}
	if c := counter(t, &first.Ports[0], "cnp_sent"); c.Rate != nil || c.Note != probes.NoteFirst {
		t.Errorf("first sample has a rate: %+v", c)
	}
	p := findPort(snap, "mlx5_0", 1)
	if p == nil || p.Netdev != "eth0" || p.State != "ACTIVE" || p.LinkLayer != "Ethernet" || *p.MTU != 9000 || *p.RoCEMTU != 4096 {
		t.Fatalf("mlx5_0/1: %+v", p)
	}
	hw := fixtures + "sysfs/mlx5-roce-cx6dx-%s/sys/class/infiniband/mlx5_0/ports/1/hw_counters/"
	for native, canon := range map[string]string{"np_cnp_sent": "cnp_sent", "rp_cnp_handled": "cnp_handled",
		"np_ecn_marked_roce_packets": "ecn_marked_roce_packets", "out_of_sequence": "out_of_sequence"} {
		v0 := readUint(t, strings.Replace(hw, "%s", "t0", 1)+native)
		v1 := readUint(t, strings.Replace(hw, "%s", "t1", 1)+native)
		c := counter(t, p, canon)
		if c.Native != native || c.Value != v1 || c.Delta == nil || *c.Delta != v1-v0 || *c.Rate != float64(v1-v0)/60 {
			t.Errorf("%s: %+v, want delta %d", canon, c, v1-v0)
		}
	}
	if r := p.Congestion.CNPSentPerSec; r == nil || *r != float64(3382003-731022)/60 {
		t.Errorf("congestion view: %+v", p.Congestion)
	}
	// PFC on priority 3: +941220 pauses received, 5.23 s paused in 60 s.
	var prio3 *probes.PFCPriority
	for i := range p.PFC {
		if p.PFC[i].Priority == 3 {
			prio3 = &p.PFC[i]
		}
	}
	if prio3 == nil || prio3.RxPausePerSec == nil || *prio3.RxPausePerSec != 941220.0/60 {
		t.Fatalf("prio 3: %+v", prio3)
	}
	if pct := *prio3.RxPausedPercent; pct < 8.71 || pct > 8.72 {
		t.Errorf("prio 3 paused %.3f%% of the time, want 5.230111 s / 60 s = 8.717%%", pct)
	}
	if w := p.Congestion.PauseStormWarning; w == nil || *w != 2 {
		t.Errorf("pause storm warnings %v", w)
	}
	// Port data counters count 4-byte words; rx_bytes and tx_bytes are in
	// bytes, and so is the traffic view.
	pma := fixtures + "sysfs/mlx5-roce-cx6dx-%s/sys/class/infiniband/mlx5_0/ports/1/counters/"
	for native, canon := range map[string]string{"port_rcv_data": "rx_bytes", "port_xmit_data": "tx_bytes"} {
		w0 := readUint(t, strings.Replace(pma, "%s", "t0", 1)+native)
		w1 := readUint(t, strings.Replace(pma, "%s", "t1", 1)+native)
		c := counter(t, p, canon)
		if c.Native != native || c.Unit != "bytes" || c.Value != 4*w1 || c.NativeValue == nil || *c.NativeValue != w1 ||
			c.Delta == nil || *c.Delta != 4*(w1-w0) || *c.Rate != float64(4*(w1-w0))/60 {
			t.Errorf("%s: %+v, want %d bytes (%d words), delta %d bytes", canon, c, 4*w1, w1, 4*(w1-w0))
		}
	}
	if p.Traffic.RxBytesPerSec == nil || *p.Traffic.RxBytesPerSec != *counter(t, p, "rx_bytes").Rate ||
		p.Traffic.TxBytesPerSec == nil || *p.Traffic.TxBytesPerSec != *counter(t, p, "tx_bytes").Rate {
		t.Errorf("traffic %+v", p.Traffic)
	}
	down := findPort(snap, "mlx5_1", 1)
	if down == nil || down.State != "DOWN" || down.PhysState != "Disabled" || down.Netdev != "eth1" {
		t.Errorf("mlx5_1/1: %+v", down)
	}
	var v2 int
	for _, g := range snap.Config.GIDs {
		if g.Type == "RoCE v2" && g.Netdev == "eth0" {
			v2++
		}
	}
	if v2 != 2 {
		t.Errorf("%d RoCE v2 GIDs on eth0, want 2", v2)
	}
	// Sources that were not given are not silently healthy.
	st := map[string]probes.State{}
	for _, x := range snap.Status {
		st[x.Source] = x.State
	}
	if st["sysfs"] != probes.StateOK || st["ethtool"] != probes.StateOK || st["rdma netlink"] != probes.StateNotSupported {
		t.Errorf("status %+v", snap.Status)
	}
}
