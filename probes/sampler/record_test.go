package sampler

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/netip"
	"os"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
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
		src, err := ReplaySources(tick, "fixture", t.TempDir())
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
