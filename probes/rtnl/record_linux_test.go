//go:build linux

package rtnl

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdmatop/rdmatop/internal/netnstest"

	"golang.org/x/sys/unix"
)

// TestRecordFixture writes testdata/rtnl/: the kernel's RTM_NEWLINK
// messages for a veth pair after known traffic, and what ip(8) said about
// the same links at the same moment (vethB set down first, so that the
// counters stand still). It runs only when RDMATOP_RECORD_RTNL=1.
func TestRecordFixture(t *testing.T) {
	if os.Getenv("RDMATOP_RECORD_RTNL") != "1" {
		t.Skip("records fixtures only with RDMATOP_RECORD_RTNL=1")
	}
	ns := netnstest.New(t, "rtnl")
	ns.Veth(t, "vethA", "vethB")
	ns.IP(t, "link", "set", "vethA", "mtu", "9000")
	ns.IP(t, "link", "set", "vethB", "mtu", "9000")
	k := openIn(t, ns)
	ns.Sender(t, "vethA").Send(t, 250, 300)
	ns.IP(t, "link", "set", "vethB", "down")
	dir := filepath.Join("..", "..", "testdata", "rtnl")
	for _, dev := range []string{"vethA", "vethB"} {
		l, err := k.Link(dev)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := k.execute(context.Background(), k.request(l.Index, 0), unix.RTM_NEWLINK)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("%s: %d messages, %v", dev, len(msgs), err)
		}
		out, err := ns.Exec("ip", "-j", "-s", "-s", "-d", "link", "show", "dev", dev)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dev+".nlmsg"), msgs[0], 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dev+".ip.json"), out, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"carrier_changes", "carrier_up_count", "carrier_down_count", "operstate", "mtu"} {
			v, _ := nsSysfs(ns, t, dev, f)
			t.Logf("%s %s = %s", dev, f, v)
		}
	}
	t.Logf("kernel %s", kernelRelease())
}
