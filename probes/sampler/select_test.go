package sampler

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
)

// -i and -d select RDMA devices for everything that belongs to one: on
// the real rxe captures (rxe0 on veth0, rxe1 on veth1, four RC QPs each),
// -i veth1 and -d rxe1 show rxe1's ports and QPs only, and -i veth0 rxe0's.
func TestSelectionRestrictsQPs(t *testing.T) {
	base := fixtures + "rxe-netlink/netlink/"
	var ex []rdmanl.Exchange
	for _, d := range []string{"link", "res_show_qp", "statistic_show"} {
		ex = append(ex, loadExchanges(t, base+d)...)
	}
	fsys := rxeTree(t, "sysfs-final.tar.gz", func(string) bool { return false })
	all := New(Sources{FS: fsys, RDMA: rdmanl.NewReplay(ex)}, Options{}).Sample(context.Background(), time.Unix(1_800_000_000, 0))
	perDev := map[string]int{}
	for _, q := range all.QPs {
		perDev[q.Device]++
	}
	if perDev["rxe0"] == 0 || perDev["rxe1"] == 0 {
		t.Fatalf("the unselected sample should have QPs of both devices: %v", perDev)
	}
	for _, c := range []struct {
		opt  Options
		want string
	}{{Options{Netdev: "veth1"}, "rxe1"}, {Options{Device: "rxe1"}, "rxe1"}, {Options{Netdev: "veth0"}, "rxe0"}, {Options{Netdev: "veth0", Device: "rxe0"}, "rxe0"}} {
		snap := New(Sources{FS: fsys, RDMA: rdmanl.NewReplay(ex)}, c.opt).Sample(context.Background(), time.Unix(1_800_000_000, 0))
		if len(snap.Ports) != 1 || snap.Ports[0].Device != c.want {
			t.Errorf("%+v: ports %+v", c.opt, snap.Ports)
		}
		n := 0
		for _, q := range snap.QPs {
			if q.Device != c.want {
				t.Errorf("%+v: QP %#x of %s", c.opt, q.LQPN, q.Device)
			}
			n++
		}
		if n != perDev[c.want] {
			t.Errorf("%+v: %d QPs, want all %d of %s", c.opt, n, perDev[c.want], c.want)
		}
	}
	// A selection that matches no RDMA device shows no QPs.
	snap := New(Sources{FS: fsys, RDMA: rdmanl.NewReplay(ex)}, Options{Netdev: "eth9"}).Sample(context.Background(), time.Unix(1_800_000_000, 0))
	if len(snap.QPs) != 0 || len(snap.Ports) != 0 {
		t.Errorf("-i eth9: %d QPs, %d ports", len(snap.QPs), len(snap.Ports))
	}
}

// qpEvent is a QP event's identity across runs.
func qpEvent(e probes.Event) string {
	q := uint32(0)
	if e.QPN != nil {
		q = *e.QPN
	}
	return fmt.Sprintf("%s %s %s %#x %s", e.Time.Format(time.RFC3339Nano), e.Kind, e.Device, q, e.Detail)
}

// replayLab replays the lab recording (ib_write_bw between rxe0 and rxe1,
// then a link flap on veth1) with opt.
func replayLab(t *testing.T, opt Options) []*probes.Snapshot {
	t.Helper()
	f, err := os.Open(fixtures + "lab/probes/record.bundle.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := bundle.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var s *Sampler
	var out []*probes.Snapshot
	for {
		tick, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		src, err := ReplaySources(tick, r.Header.Host.Order(), "bundle", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if s == nil {
			s = New(src, opt)
		} else {
			s.SetSources(src)
		}
		out = append(out, s.Sample(context.Background(), tick.Time))
	}
}

// Events follow the selection: replaying the lab recording with -i veth1
// (or -d rxe1) gives exactly the unselected replay's QP, port and kernel
// log events of rxe1 and veth1, and nothing of rxe0 — in particular no
// rxe0 QP reads as destroyed, nor created.
func TestSelectionRestrictsEvents(t *testing.T) {
	all := replayLab(t, Options{})
	mine := func(e probes.Event, dev, nd string) bool { return e.Device == dev || e.Device == nd }
	for _, c := range []struct {
		opt     Options
		dev, nd string
	}{{Options{Netdev: "veth1"}, "rxe1", "veth1"}, {Options{Device: "rxe1"}, "rxe1", "veth1"}, {Options{Netdev: "veth0"}, "rxe0", "veth0"}} {
		sel := replayLab(t, c.opt)
		if len(sel) != len(all) {
			t.Fatalf("%d ticks, %d unselected", len(sel), len(all))
		}
		var want, got []string
		kinds := map[string]int{}
		for i := range all {
			for _, e := range all[i].Events {
				if e.Device == "" || mine(e, c.dev, c.nd) {
					want = append(want, qpEvent(e))
				}
			}
			for _, e := range sel[i].Events {
				got = append(got, qpEvent(e))
				kinds[e.Kind]++
				if e.Device != "" && !mine(e, c.dev, c.nd) {
					t.Errorf("%+v: event of another device: %+v", c.opt, e)
				}
			}
			for _, q := range sel[i].QPs {
				if q.Device != c.dev {
					t.Errorf("%+v: QP of %s", c.opt, q.Device)
				}
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			t.Errorf("%+v: events\n got  %s\n want %s", c.opt, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
		}
		// The recording has one RC QP per device created and destroyed,
		// and both ports flapping.
		if kinds["qp_created"] != 1 || kinds["qp_destroyed"] != 1 || kinds["port_state"] != 2 {
			t.Errorf("%+v: events %v", c.opt, kinds)
		}
	}
}
