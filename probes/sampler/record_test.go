package sampler

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/internal/nlmsg/nlmsgtest"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/rtnl"
)

// Recording the fixture pair and replaying the bundle gives the same
// snapshots, byte for byte in JSON.
func TestRecordReplayIsFaithful(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	rec := NewRecorder(Sources{FS: os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t0"), Ethtool: ethtoolFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt"),
		ProcRoot: fixtures + "procinfo", Label: "fixture"}, Options{})
	var buf bytes.Buffer
	w, err := bundle.NewPcapngWriter(&buf, bundle.Header{Interval: "60s"}, bundle.PcapngOptions{Gzip: true})
	if err != nil {
		t.Fatal(err)
	}
	var live [][]byte
	for i, tree := range []string{"t0", "t1"} {
		if i == 1 {
			rec.SetSources(Sources{FS: os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-" + tree), Ethtool: ethtoolFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t1.txt"),
				ProcRoot: fixtures + "procinfo", Label: "fixture"})
		}
		snap, tick, err := rec.Sample(context.Background(), t0.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteTick(tick); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(snap)
		live = append(live, b)
	}
	w.Close()

	checkReplay(t, &buf, live)
}

// checkReplay replays a recording (buf) through ReplaySources and a new
// Sampler and checks that each tick gives the snapshot the live sample
// gave (live: their JSON), and no tick more.
func checkReplay(t *testing.T, buf *bytes.Buffer, live [][]byte) {
	t.Helper()
	r, err := bundle.NewReader(buf)
	if err != nil {
		t.Fatal(err)
	}
	var s *Sampler
	for i := 0; ; i++ {
		tick, err := r.Next()
		if err == io.EOF {
			if i != len(live) {
				t.Fatalf("%d ticks replayed, %d recorded", i, len(live))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == len(live) {
			t.Fatalf("more than %d ticks replayed", len(live))
		}
		src, err := ReplaySources(tick, "", "fixture", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		src.Status = tick.Status
		if s == nil {
			s = New(src, Options{})
		} else {
			s.src = src
		}
		got, _ := json.Marshal(s.Sample(context.Background(), tick.Time))
		if !bytes.Equal(got, live[i]) {
			t.Errorf("tick %d replays differently:\nlive   %.600s\nreplay %.600s", i, live[i], got)
		}
	}
}

// A recording keeps the address changes announced between its ticks: its
// replay rereads the GID table on the same tick and dates the events
// alike (the tick is marked full: a replay may start there).
func TestRecordReplayKeepsAddressChanges(t *testing.T) {
	fsys := rxeTree(t, "sysfs-final.tar.gz", func(string) bool { return false })
	addrs := &rtnl.FakeAddrs{}
	rec := NewRecorder(Sources{FS: fsys, Addrs: addrs, Label: "fixture"}, Options{})
	var buf bytes.Buffer
	w, err := bundle.NewPcapngWriter(&buf, bundle.Header{Interval: "1s"}, bundle.PcapngOptions{Gzip: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_800_000_000, 0)
	var live [][]byte
	for i := range 3 {
		if i == 2 {
			fsys["sys/class/infiniband/rxe0/ports/1/gids/1"] = &fstest.MapFile{Data: []byte("0000:0000:0000:0000:0000:ffff:c0a8:4d09\n"), Mode: 0o444}
			addrs.Add(rtnl.AddrEvent{Time: t0.Add(1500 * time.Millisecond), Index: 7, Netdev: "veth0", Addr: netip.MustParseAddr("192.168.77.9"), Prefix: 24})
		}
		snap, tick, err := rec.Sample(context.Background(), t0.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 && (!tick.Full || !slices.ContainsFunc(snap.Events, func(e probes.Event) bool { return e.Kind == "gid_changed" })) {
			t.Fatalf("tick 3: full %v, events %+v; want a full tick with the GID change", tick.Full, snap.Events)
		}
		if err := w.WriteTick(tick); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(snap)
		live = append(live, b)
	}
	w.Close()
	checkReplay(t, &buf, live)
}

// A recording made on a big-endian host (s390x) replays to the same
// snapshot on any host: its header states the order and the RDMA netlink
// answers decode in it. The recording is the real Soft-RoCE one of
// TestNetlinkQPsAndStatGetFallback (captured little-endian) with its
// netlink bytes converted (nlmsgtest); make test-bigendian runs this
// under qemu-s390x too.
func TestRecordingFromTheOtherByteOrderReplays(t *testing.T) {
	base := fixtures + "rxe-netlink/netlink/"
	var ex []rdmanl.Exchange
	for _, d := range []string{"link", "res_show_qp", "statistic_show"} {
		ex = append(ex, loadExchanges(t, base+d)...)
	}
	little, err := nlmsg.OrderNamed("little")
	if err != nil {
		t.Fatal(err)
	}
	captured, err := rdmanl.NewReplayFrom(ex, "little")
	if err != nil {
		t.Fatal(err)
	}
	fsys := rxeTree(t, "sysfs-final.tar.gz", func(p string) bool { return strings.Contains(p, "rxe1/ports/1/hw_counters") })
	rec := NewRecorder(Sources{FS: fsys, RDMA: captured, Label: "fixture"}, Options{})
	snap, tick, err := rec.Sample(context.Background(), time.Unix(1_800_000_000, 0))
	if err != nil || len(snap.QPs) == 0 {
		t.Fatalf("the capture itself: %d QPs, %v", len(snap.QPs), err)
	}
	live, _ := json.Marshal(snap)
	var recorded []rdmanl.Exchange
	if err := json.Unmarshal(tick.Raw["rdmanl"], &recorded); err != nil || len(recorded) == 0 {
		t.Fatalf("recorded exchanges: %d, %v", len(recorded), err)
	}
	// As an s390x host records them: its requests (built here, in this
	// host's order) and the kernel's answers (captured little-endian), all
	// big-endian.
	big := func(b []byte, from nlmsg.Order) []byte {
		if from.Name() == "big" {
			return b
		}
		return nlmsgtest.Swap(b, from, nlmsgtest.NLDevNested, nlmsgtest.NLDevText)
	}
	for i := range recorded {
		e := &recorded[i]
		e.Request = big(e.Request, nlmsg.Native)
		for j, r := range e.Replies {
			e.Replies[j] = big(r, little)
		}
	}
	tick.Raw["rdmanl"], _ = json.Marshal(recorded)
	var buf bytes.Buffer
	w, err := bundle.NewPcapngWriter(&buf, bundle.Header{Interval: "1s", Host: bundle.Host{Arch: "s390x", ByteOrder: "big"}}, bundle.PcapngOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteTick(tick); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := bundle.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range []string{r.Header.Host.Order(), "little"} {
		src, err := ReplaySources(got, order, "fixture", t.TempDir())
		if err != nil {
			if order == "big" {
				t.Fatal(err)
			}
			continue // read in the wrong order it may not even parse
		}
		src.Status = got.Status
		replayed, _ := json.Marshal(New(src, Options{}).Sample(context.Background(), got.Time))
		if same := bytes.Equal(replayed, live); same != (order == "big") {
			t.Errorf("replayed as %s-endian: same as the live snapshot %v\nlive   %.600s\nreplay %.600s", order, same, live, replayed)
		}
	}
}
