package saved

import (
	"testing"
)

// rdma statistic before and after the lossy runs (real Soft-RoCE, see
// testdata/saved/MANIFEST.md): two readings of each port, with the
// counters the rules read under their canonical names.
func TestRxeRdmaStatisticBeforeAfter(t *testing.T) {
	res := load(t, rxeDir+"before-lossy1-rdma-statistic.json", rxeDir+"after-lossy1-rdma-statistic.json")
	if len(res.Snapshots) != 2 {
		t.Fatalf("%d snapshots, want 2", len(res.Snapshots))
	}
	for _, in := range res.Inputs {
		if in.Kind != KindRdmaStatJ {
			t.Errorf("%s: %q", in.Path, in.Kind)
		}
	}
	rxe0 := portOf(t, last(res), "rxe0", 1, "")
	c := counter(rxe0, "completer_retry_err")
	if c == nil || c.Value != 33 || c.Delta == nil || *c.Delta != 33 {
		t.Errorf("rxe0 completer_retry_err %+v, want 33 (+33)", c)
	}
	rxe1 := portOf(t, last(res), "rxe1", 1, "")
	if c := counter(rxe1, "duplicate_request"); c == nil || c.Value != 5 || *c.Delta != 5 {
		t.Errorf("rxe1 duplicate_request %+v, want 5 (+5)", c)
	}
}

// The text and JSON forms of the same outputs read alike.
func TestRxeTextAndJSONAgree(t *testing.T) {
	txt := load(t, rxeDir+"final-rdma-statistic.txt")
	p := portOf(t, last(txt), "rxe0", 1, "")
	for native, want := range map[string]uint64{"sent_pkts": 142263, "completer_retry_err": 653, "link_downed": 1, "rcvd_seq_err": 24} {
		if got := value(t, p, native); got != want {
			t.Errorf("%s = %d, want %d", native, got, want)
		}
	}
	qj := load(t, rxeDir+"final-rdma-res-qp.json")
	qt := load(t, rxeDir+"final-rdma-res-qp.txt")
	a, b := last(qj).QPs, last(qt).QPs
	if len(a) != 2 || len(b) != 2 {
		t.Fatalf("QPs: json %d, text %d, want 2", len(a), len(b))
	}
	for i := range a {
		if a[i].Device != b[i].Device || a[i].LQPN != b[i].LQPN || a[i].Type != b[i].Type || a[i].State != b[i].State ||
			a[i].KernOwner != b[i].KernOwner || a[i].KernOwner != "ib_core" {
			t.Errorf("QP %d: json %+v, text %+v", i, a[i], b[i])
		}
	}
}

// rdma link ties ports to netdevs and says their state; ibv_devinfo adds
// devices, firmware and GIDs. Where two inputs disagree on a state, the
// one given later wins (ibv_devinfo says ACTIVE, the later link DOWN).
func TestRxeLinkAndDevinfo(t *testing.T) {
	res := load(t, rxeDir+"ibv_devinfo-v.txt", rxeDir+"linkdown-rdma-link.json")
	s := last(res)
	p := portOf(t, s, "rxe1", 1, "")
	if p.Netdev != "veth1" || p.State != "DOWN" || p.PhysState != "Polling" || p.LinkLayer != "Ethernet" {
		t.Errorf("rxe1/1 %+v", p)
	}
	if len(s.Devices) != 2 || s.Devices[0].Name != "rxe0" || s.Devices[0].NodeGUID != "0000:00ff:fe00:7701" {
		t.Errorf("devices %+v", s.Devices)
	}
	gids := 0
	for _, g := range s.Config.GIDs {
		if g.Device == "rxe0" && g.GID == "::ffff:192.168.77.1" && g.Type == "RoCE v2" && g.Index == 1 {
			gids++
		}
	}
	if gids != 1 {
		t.Errorf("GIDs %+v: want rxe0 GID 1 ::ffff:192.168.77.1 RoCE v2", s.Config.GIDs)
	}
}
