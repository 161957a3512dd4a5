//go:build linux

package rtnl

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestKernelHost reads every link of the test's own namespace, as whatever
// user runs the tests (rtnetlink reads and ETHTOOL_GSET need no privilege),
// and checks them against net.Interfaces and /sys/class/net, which show
// this namespace when the test is not inside another one.
func TestKernelHost(t *testing.T) {
	k, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	links, err := k.Links()
	if err != nil {
		t.Fatal(err)
	}
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	// Other tests may add or remove links meanwhile: compare those both
	// lists have.
	byIndex := map[int]Link{}
	for i, l := range links {
		if i > 0 && links[i-1].Index >= l.Index {
			t.Errorf("Links not in ifindex order: %d after %d", l.Index, links[i-1].Index)
		}
		byIndex[l.Index] = l
	}
	if _, ok := byIndex[1]; !ok {
		t.Errorf("Links lacks lo (ifindex 1)")
	}
	for i, ifc := range ifaces {
		l, ok := byIndex[ifc.Index]
		if !ok {
			t.Logf("%s (ifindex %d) not in the dump: changed meanwhile?", ifc.Name, ifc.Index)
			continue
		}
		if l.Name != ifc.Name || l.Index != ifc.Index || l.MTU != ifc.MTU || l.AdminUp != (ifc.Flags&net.FlagUp != 0) {
			t.Errorf("link %d: %s/%d mtu %d up %v; net.Interfaces %s/%d mtu %d flags %v", i, l.Name, l.Index, l.MTU, l.AdminUp, ifc.Name, ifc.Index, ifc.MTU, ifc.Flags)
		}
		one, err := k.Link(ifc.Name)
		if errors.Is(err, ErrNoDevice) {
			continue // removed meanwhile
		}
		if err != nil {
			t.Errorf("Link(%s) as uid %d: %v", ifc.Name, os.Geteuid(), err)
			continue
		}
		t.Logf("%s: kind %q operstate %s carrier %v speed %v parent_dev %s/%s", one.Name, one.Kind, one.OperState, deref(one.Carrier), deref(one.SpeedMbps), one.ParentDevBus, one.ParentDev)
		b, err := os.ReadFile("/sys/class/net/" + ifc.Name + "/operstate")
		if err == nil && strings.TrimSpace(string(b)) != one.OperState {
			t.Errorf("%s: operstate %q, sysfs %q", ifc.Name, one.OperState, b)
		}
		b, err = os.ReadFile("/sys/class/net/" + ifc.Name + "/speed")
		if err != nil || !one.Up() {
			if one.SpeedMbps != nil && !one.Up() {
				t.Errorf("%s: speed %d on a link that is down", ifc.Name, *one.SpeedMbps)
			}
			continue
		}
		sp, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		switch {
		case sp > 0 && (one.SpeedMbps == nil || int(*one.SpeedMbps) != sp):
			t.Errorf("%s: speed %v, sysfs %d", ifc.Name, deref(one.SpeedMbps), sp)
		case sp <= 0 && one.SpeedMbps != nil:
			t.Errorf("%s: speed %d, sysfs says unknown (%d)", ifc.Name, *one.SpeedMbps, sp)
		}
	}
	if _, err := k.Link("nosuch0"); !errors.Is(err, ErrNoDevice) {
		t.Errorf("Link(nosuch0) = %v, want ErrNoDevice", err)
	}
	if _, err := k.Link(""); err == nil || errors.Is(err, ErrNoDevice) {
		t.Errorf("Link(\"\") = %v, want a name error", err)
	}
	k.Close()
	if _, err := k.Link("lo"); err == nil {
		t.Error("Link after Close succeeded")
	}
	k.Close()
}

// LinkContext abandons a read whose context has ended (the socket's wait
// honours it; see probes/internal/nlsock for a wait cut short), and the
// Kernel answers the next read.
func TestKernelLinkContext(t *testing.T) {
	k, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LinkContext(ctx, k, "lo"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if l, err := LinkContext(context.Background(), k, "lo"); err != nil || l.Name != "lo" {
		t.Errorf("live: %+v %v", l, err)
	}
	// A Fake has no LinkContext: it is not asked once ctx has ended.
	if _, err := LinkContext(ctx, &Fake{All: []Link{{Name: "lo"}}}, "lo"); !errors.Is(err, context.Canceled) {
		t.Errorf("fake, cancelled: %v", err)
	}
}
