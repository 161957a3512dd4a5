package sampler

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/rtnl"
)

// gidMoveSamples samples the real Soft-RoCE sysfs tree, then the same tree
// after its GID table changed as a port flap or an address change leaves
// it (NVIDIA/nccl #1333, #2157): rxe0 port 1's IPv4-mapped GID at index 1
// now holds another address, and the old address came back at index 2.
// It returns the two samples' events.
func gidMoveSamples(t *testing.T) (first, second []string) {
	t.Helper()
	fsys := rxeTree(t, "sysfs-final.tar.gz", func(string) bool { return false })
	s := New(Sources{FS: fsys}, Options{})
	now := time.Unix(1_800_000_000, 0)
	var a []string
	for _, e := range s.Sample(context.Background(), now).Events {
		if e.Source == "gid" {
			a = append(a, e.Kind+" "+e.Device+"/"+strconv.Itoa(e.Port)+" "+e.Detail)
		}
	}
	const port = "sys/class/infiniband/rxe0/ports/1/"
	fsys[port+"gids/1"] = &fstest.MapFile{Data: []byte("0000:0000:0000:0000:0000:ffff:c0a8:4d09\n"), Mode: 0o444}
	fsys[port+"gids/2"] = &fstest.MapFile{Data: []byte("0000:0000:0000:0000:0000:ffff:c0a8:4d01\n"), Mode: 0o444}
	fsys[port+"gid_attrs/types/2"] = &fstest.MapFile{Data: []byte("RoCE v2\n"), Mode: 0o444}
	if nd, ok := fsys[port+"gid_attrs/ndevs/1"]; ok {
		fsys[port+"gid_attrs/ndevs/2"] = nd
	}
	// The tables are read again every gidEvery samples: the change shows
	// within that many.
	var b []string
	for i := range gidEvery {
		for _, e := range s.Sample(context.Background(), now.Add(time.Duration(i+1)*time.Second)).Events {
			if e.Source == "gid" {
				b = append(b, e.Kind+" "+e.Device+"/"+strconv.Itoa(e.Port)+" "+e.Detail)
			}
		}
	}
	return a, b
}

// A GID table that changes between two samples is an event per entry:
// which index, the old GID with its type and netdev, the new one.
func TestGIDTableChangeEvents(t *testing.T) {
	first, second := gidMoveSamples(t)
	if len(first) != 0 {
		t.Errorf("first sample: %q, want no GID event (nothing to compare with)", first)
	}
	want := []string{
		"gid_changed rxe0/1 index 1: ::ffff:192.168.77.1 RoCE v2",
		"gid_added rxe0/1 index 2: ::ffff:192.168.77.1 RoCE v2",
	}
	if len(second) != len(want) {
		t.Fatalf("second sample: %q, want %d events", second, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(second[i], w) {
			t.Errorf("event %d: %q, want it to start %q", i, second[i], w)
		}
	}
	if !strings.Contains(second[0], "→ ::ffff:192.168.77.9 RoCE v2") {
		t.Errorf("the change does not say the new GID: %q", second[0])
	}
}

// A port that changes state has its GID table read again at once: the
// flap is when GIDs re-register.
func TestGIDsReadAgainWhenPortChangesState(t *testing.T) {
	fsys := rxeTree(t, "sysfs-final.tar.gz", func(string) bool { return false })
	s := New(Sources{FS: fsys}, Options{})
	now := time.Unix(1_800_000_000, 0)
	s.Sample(context.Background(), now)
	s.Sample(context.Background(), now.Add(time.Second)) // a cached tick: no full read due
	const port = "sys/class/infiniband/rxe0/ports/1/"
	fsys[port+"gids/1"] = &fstest.MapFile{Data: []byte("0000:0000:0000:0000:0000:ffff:c0a8:4d09\n"), Mode: 0o444}
	fsys[port+"state"] = &fstest.MapFile{Data: []byte("1: DOWN\n"), Mode: 0o444}
	events := func(at time.Duration) (got []string) {
		for _, e := range s.Sample(context.Background(), now.Add(at)).Events {
			if e.Source == "gid" {
				got = append(got, e.Kind+" "+e.Detail)
			}
		}
		return got
	}
	if got := events(2 * time.Second); len(got) != 1 || !strings.HasPrefix(got[0], "gid_changed index 1: ::ffff:192.168.77.1") {
		t.Errorf("GID events on the sample where the port went down: %q", got)
	}
	// The next cached sample compares with the table read then: no
	// change, no event.
	if got := events(3 * time.Second); len(got) != 0 {
		t.Errorf("GID events on the sample after: %q", got)
	}
}

// An address change rtnetlink announces is seen at the next sample, not
// on the tables' schedule: the GID table is read again then, the GID
// events carry the time of the change, and the announcements are events
// of their own - also an address added and removed again between two
// samples, which leaves the table as it was.
func TestAnnouncedAddressChangeRereadsGIDsAtOnce(t *testing.T) {
	fsys := rxeTree(t, "sysfs-final.tar.gz", func(string) bool { return false })
	addrs := &rtnl.FakeAddrs{}
	s := New(Sources{FS: fsys, Addrs: addrs}, Options{})
	now := time.Unix(1_800_000_000, 0)
	s.Sample(context.Background(), now)
	s.Sample(context.Background(), now.Add(time.Second)) // a cached tick: no full read due
	const port = "sys/class/infiniband/rxe0/ports/1/"
	fsys[port+"gids/1"] = &fstest.MapFile{Data: []byte("0000:0000:0000:0000:0000:ffff:c0a8:4d09\n"), Mode: 0o444}
	changed := now.Add(1500 * time.Millisecond)
	addrs.Add(rtnl.AddrEvent{Time: changed, Index: 7, Netdev: "veth0", Removed: true, Addr: netip.MustParseAddr("192.168.77.1"), Prefix: 24})
	addrs.Add(rtnl.AddrEvent{Time: changed, Index: 7, Netdev: "veth0", Addr: netip.MustParseAddr("192.168.77.9"), Prefix: 24})
	addrs.Add(rtnl.AddrEvent{Time: changed.Add(time.Millisecond), Index: 7, Netdev: "veth0", Addr: netip.MustParseAddr("192.168.77.50"), Prefix: 24})
	addrs.Add(rtnl.AddrEvent{Time: changed.Add(2 * time.Millisecond), Index: 7, Netdev: "veth0", Removed: true, Addr: netip.MustParseAddr("192.168.77.50"), Prefix: 24})
	snap := s.Sample(context.Background(), now.Add(2*time.Second)) // the third sample: not a scheduled full read
	var gid, addr []probes.Event
	for _, e := range snap.Events {
		switch e.Source {
		case "gid":
			gid = append(gid, e)
		case "address":
			addr = append(addr, e)
		}
	}
	if len(gid) != 1 || gid[0].Kind != "gid_changed" || !gid[0].Time.Equal(changed) {
		t.Errorf("GID events %+v; want one gid_changed at %v, the time of the change", gid, changed)
	}
	if len(addr) != 4 {
		t.Fatalf("address events %+v; want the four announced", addr)
	}
	for _, e := range addr {
		if e.Device != "rxe0" || e.Port != 1 || e.Netdev != "veth0" {
			t.Errorf("%+v: not placed on rxe0/1 (veth0)", e)
		}
	}
	if addr[3].Kind != "address_removed" || addr[3].Detail != "192.168.77.50/24 removed from veth0" {
		t.Errorf("the transient address's removal: %+v", addr[3])
	}
	// Nothing announced: the next sample keeps to the schedule.
	fsys[port+"gids/1"] = &fstest.MapFile{Data: []byte("0000:0000:0000:0000:0000:ffff:c0a8:4d0a\n"), Mode: 0o444}
	for _, e := range s.Sample(context.Background(), now.Add(3*time.Second)).Events {
		if e.Source == "gid" {
			t.Errorf("unannounced change seen off schedule: %+v", e)
		}
	}
}
