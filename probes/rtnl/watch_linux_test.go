//go:build linux

package rtnl

import (
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/internal/netnstest"
)

// watchIn starts an AddrWatch whose socket lives in ns.
func watchIn(t *testing.T, ns *netnstest.NS) *AddrWatch {
	t.Helper()
	var w *AddrWatch
	ns.Do(t, func() error {
		var err error
		w, err = WatchAddrs(time.Now)
		return err
	})
	t.Cleanup(func() { w.Close() })
	return w
}

// waitAddrs drains w until it has n announcements (bounded: 5 s).
func waitAddrs(t *testing.T, w *AddrWatch, done func([]AddrEvent) bool) []AddrEvent {
	t.Helper()
	var got []AddrEvent
	deadline := time.Now().Add(30 * time.Second)
	for !done(got) && time.Now().Before(deadline) {
		evs, lost := w.Drain()
		if lost > 0 {
			t.Errorf("%d announcements lost", lost)
		}
		got = append(got, evs...)
		time.Sleep(10 * time.Millisecond)
	}
	return got
}

// inOrder counts how many of want appear in got in order.
func inOrder(got, want []AddrEvent) int {
	i := 0
	for _, e := range got {
		if i < len(want) && e.Index == want[i].Index && e.Addr == want[i].Addr && e.Prefix == want[i].Prefix && e.Removed == want[i].Removed {
			i++
		}
	}
	return i
}

// Addresses added and removed in a namespace of the test's own, as ip(8)
// makes them, are announced one by one, each with its netdev's index,
// prefix and family - including an address added and removed again at
// once, which a reread of the tables between the two would never see.
func TestWatchAddrsInANamespace(t *testing.T) {
	ns := netnstest.New(t, "rtnl")
	ns.Veth(t, "wa0", "wa1")
	idx := nsIPLink(ns, t, "wa0").Ifindex
	w := watchIn(t, ns)
	ns.IP(t, "addr", "add", "10.77.0.1/24", "dev", "wa0")
	ns.IP(t, "addr", "add", "fd77::1/64", "dev", "wa0", "nodad")
	ns.IP(t, "addr", "del", "10.77.0.1/24", "dev", "wa0")
	// The kernel may announce more (an IPv6 link-local address of its
	// own): the ones made here come among them, in order within each
	// family. Across families there is no order: IPv4 announces from the
	// caller, IPv6 may from its address-configuration work queue, which
	// a busy machine runs after the IPv4 removal (seen beside two busy
	// loops: the IPv6 addition announced last).
	families := [][]AddrEvent{
		{{Index: idx, Addr: netip.MustParseAddr("10.77.0.1"), Prefix: 24},
			{Index: idx, Addr: netip.MustParseAddr("10.77.0.1"), Prefix: 24, Removed: true}},
		{{Index: idx, Addr: netip.MustParseAddr("fd77::1"), Prefix: 64}},
	}
	got := waitAddrs(t, w, func(got []AddrEvent) bool {
		for _, want := range families {
			if inOrder(got, want) < len(want) {
				return false
			}
		}
		return true
	})
	for _, want := range families {
		if inOrder(got, want) != len(want) {
			t.Errorf("announcements %+v; want, in order, %+v", got, want)
		}
	}
	for _, e := range got {
		if e.Time.IsZero() {
			t.Errorf("%v: no time", e)
		}
	}
}

func TestAddrConstantsMatchKernelHeaders(t *testing.T) {
	for _, c := range []struct {
		name      string
		ours, sys int
	}{
		{"RTM_NEWADDR", rtmNewAddr, unix.RTM_NEWADDR},
		{"RTM_DELADDR", rtmDelAddr, unix.RTM_DELADDR},
		{"IFA_ADDRESS", ifaAddress, unix.IFA_ADDRESS},
		{"IFA_LOCAL", ifaLocal, unix.IFA_LOCAL},
		{"sizeof(ifaddrmsg)", sizeofIfAddrmsg, unix.SizeofIfAddrmsg},
		{"RTNLGRP_IPV4_IFADDR", rtnlGroupIPv4Ifa, unix.RTNLGRP_IPV4_IFADDR},
		{"RTNLGRP_IPV6_IFADDR", rtnlGroupIPv6Ifa, unix.RTNLGRP_IPV6_IFADDR},
	} {
		if c.ours != c.sys {
			t.Errorf("%s = %d, kernel %d", c.name, c.ours, c.sys)
		}
	}
}
