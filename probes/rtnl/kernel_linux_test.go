//go:build linux

package rtnl

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/internal/netnstest"
	"github.com/rdmatop/rdmatop/probes"
)

// openIn opens a Kernel whose sockets live in ns.
func openIn(t testing.TB, ns *netnstest.NS) *Kernel {
	t.Helper()
	var k *Kernel
	ns.Do(t, func() error {
		var err error
		k, err = Open()
		return err
	})
	t.Cleanup(func() { k.Close() })
	return k
}

// ipLink is what `ip -j -s -s -d link show` says about a link.
type ipLink struct {
	Ifindex   int      `json:"ifindex"`
	Ifname    string   `json:"ifname"`
	Flags     []string `json:"flags"`
	MTU       int      `json:"mtu"`
	Operstate string   `json:"operstate"`
	Address   string   `json:"address"`
	Master    string   `json:"master"`
	Link      string   `json:"link"`
	Linkinfo  struct {
		InfoKind      string `json:"info_kind"`
		InfoSlaveKind string `json:"info_slave_kind"`
		InfoData      struct {
			ID *int `json:"id"`
		} `json:"info_data"`
	} `json:"linkinfo"`
	Stats64 struct {
		Rx map[string]uint64 `json:"rx"`
		Tx map[string]uint64 `json:"tx"`
	} `json:"stats64"`
}

func nsIPLink(ns *netnstest.NS, t testing.TB, dev string) ipLink {
	t.Helper()
	out, err := ns.Exec("ip", "-j", "-s", "-s", "-d", "link", "show", "dev", dev)
	if err != nil {
		t.Fatal(err)
	}
	var ls []ipLink
	if err := json.Unmarshal(out, &ls); err != nil || len(ls) != 1 {
		t.Fatalf("ip -j link show %s: %v: %s", dev, err, out)
	}
	return ls[0]
}

// sysfs reads /sys/class/net/DEV/FILE as the namespace sees it; ok is
// false when the kernel refuses (carrier and speed of a link that is down).
func nsSysfs(ns *netnstest.NS, t testing.TB, dev, file string) (string, bool) {
	t.Helper()
	out, err := ns.Exec("cat", "/sys/class/net/"+dev+"/"+file)
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(out)), true
}

func nsSysfsUint(ns *netnstest.NS, t testing.TB, dev, file string) uint64 {
	t.Helper()
	s, ok := nsSysfs(ns, t, dev, file)
	if !ok {
		t.Fatalf("cannot read /sys/class/net/%s/%s", dev, file)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("/sys/class/net/%s/%s: %v", dev, file, err)
	}
	return v
}

// checkAgainstHost compares a Link with ip(8) and sysfs in the namespace.
func checkAgainstHost(t *testing.T, ns *netnstest.NS, k *Kernel, dev string) Link {
	t.Helper()
	lo, err := k.Link(dev)
	if err != nil {
		t.Fatal(err)
	}
	ip := nsIPLink(ns, t, dev)
	hi, err := k.Link(dev)
	if err != nil {
		t.Fatal(err)
	}
	if lo.Index != ip.Ifindex || lo.Name != ip.Ifname || lo.MTU != ip.MTU ||
		!strings.EqualFold(lo.OperState, ip.Operstate) || lo.Address != ip.Address ||
		lo.Kind != ip.Linkinfo.InfoKind || lo.SlaveKind != ip.Linkinfo.InfoSlaveKind {
		t.Errorf("%s: Link %+v\nip(8) %+v", dev, lo, ip)
	}
	hasFlag := func(f string) bool {
		for _, x := range ip.Flags {
			if x == f {
				return true
			}
		}
		return false
	}
	if lo.AdminUp != hasFlag("UP") || lo.LowerUp != hasFlag("LOWER_UP") {
		t.Errorf("%s: admin_up %v lower_up %v, ip(8) flags %v", dev, lo.AdminUp, lo.LowerUp, ip.Flags)
	}
	if ip.Linkinfo.InfoData.ID != nil && (lo.VLANID == nil || int(*lo.VLANID) != *ip.Linkinfo.InfoData.ID) {
		t.Errorf("%s: vlan id %v, ip(8) %d", dev, deref(lo.VLANID), *ip.Linkinfo.InfoData.ID)
	}
	// Counters: ip(8) read between our two reads.
	if lo.Stats == nil || hi.Stats == nil {
		t.Fatalf("%s: no stats", dev)
	}
	for _, c := range []struct {
		name   string
		ip     uint64
		lo, hi uint64
	}{
		{"rx bytes", ip.Stats64.Rx["bytes"], lo.Stats.RxBytes, hi.Stats.RxBytes},
		{"rx packets", ip.Stats64.Rx["packets"], lo.Stats.RxPackets, hi.Stats.RxPackets},
		{"rx errors", ip.Stats64.Rx["errors"], lo.Stats.RxErrors, hi.Stats.RxErrors},
		{"rx dropped", ip.Stats64.Rx["dropped"], lo.Stats.RxDropped, hi.Stats.RxDropped},
		{"rx over_errors", ip.Stats64.Rx["over_errors"], lo.Stats.RxOverErrors, hi.Stats.RxOverErrors},
		{"rx multicast", ip.Stats64.Rx["multicast"], lo.Stats.Multicast, hi.Stats.Multicast},
		{"rx length_errors", ip.Stats64.Rx["length_errors"], lo.Stats.RxLengthErrors, hi.Stats.RxLengthErrors},
		{"rx crc_errors", ip.Stats64.Rx["crc_errors"], lo.Stats.RxCRCErrors, hi.Stats.RxCRCErrors},
		{"rx frame_errors", ip.Stats64.Rx["frame_errors"], lo.Stats.RxFrameErrors, hi.Stats.RxFrameErrors},
		{"rx fifo_errors", ip.Stats64.Rx["fifo_errors"], lo.Stats.RxFIFOErrors, hi.Stats.RxFIFOErrors},
		{"rx missed_errors", ip.Stats64.Rx["missed_errors"], lo.Stats.RxMissedErrors, hi.Stats.RxMissedErrors},
		{"tx bytes", ip.Stats64.Tx["bytes"], lo.Stats.TxBytes, hi.Stats.TxBytes},
		{"tx packets", ip.Stats64.Tx["packets"], lo.Stats.TxPackets, hi.Stats.TxPackets},
		{"tx errors", ip.Stats64.Tx["errors"], lo.Stats.TxErrors, hi.Stats.TxErrors},
		{"tx dropped", ip.Stats64.Tx["dropped"], lo.Stats.TxDropped, hi.Stats.TxDropped},
		{"tx carrier_errors", ip.Stats64.Tx["carrier_errors"], lo.Stats.TxCarrierErrors, hi.Stats.TxCarrierErrors},
		{"tx collisions", ip.Stats64.Tx["collisions"], lo.Stats.Collisions, hi.Stats.Collisions},
		{"tx aborted_errors", ip.Stats64.Tx["aborted_errors"], lo.Stats.TxAbortedErrors, hi.Stats.TxAbortedErrors},
		{"tx fifo_errors", ip.Stats64.Tx["fifo_errors"], lo.Stats.TxFIFOErrors, hi.Stats.TxFIFOErrors},
		{"tx window_errors", ip.Stats64.Tx["window_errors"], lo.Stats.TxWindowErrors, hi.Stats.TxWindowErrors},
		{"tx heartbeat_errors", ip.Stats64.Tx["heartbeat_errors"], lo.Stats.TxHeartbeatErrors, hi.Stats.TxHeartbeatErrors},
	} {
		if c.ip < c.lo || c.ip > c.hi {
			t.Errorf("%s %s: ip(8) %d, ours %d then %d", dev, c.name, c.ip, c.lo, c.hi)
		}
	}
	if v, ok := ip.Stats64.Rx["nohandler"]; ok && (lo.Stats.RxNoHandler == nil || v < *lo.Stats.RxNoHandler || v > *hi.Stats.RxNoHandler) {
		t.Errorf("%s rx nohandler: ip(8) %d, ours %v then %v", dev, v, deref(lo.Stats.RxNoHandler), deref(hi.Stats.RxNoHandler))
	}
	if v, ok := ip.Stats64.Tx["carrier_changes"]; ok && (lo.CarrierChanges == nil || uint64(*lo.CarrierChanges) != v) {
		t.Errorf("%s carrier_changes: ip(8) %d, ours %v", dev, v, deref(lo.CarrierChanges))
	}

	// sysfs, as the namespace sees it.
	for _, c := range []struct {
		file string
		ours *uint32
	}{
		{"carrier_changes", lo.CarrierChanges},
		{"carrier_up_count", lo.CarrierUpCount},
		{"carrier_down_count", lo.CarrierDownCount},
	} {
		if c.ours == nil || uint64(*c.ours) != nsSysfsUint(ns, t, dev, c.file) {
			t.Errorf("%s %s: ours %v, sysfs %d", dev, c.file, deref(c.ours), nsSysfsUint(ns, t, dev, c.file))
		}
	}
	if v := nsSysfsUint(ns, t, dev, "mtu"); v != uint64(lo.MTU) {
		t.Errorf("%s mtu: ours %d, sysfs %d", dev, lo.MTU, v)
	}
	if v := nsSysfsUint(ns, t, dev, "ifindex"); v != uint64(lo.Index) {
		t.Errorf("%s ifindex: ours %d, sysfs %d", dev, lo.Index, v)
	}
	if v, _ := nsSysfs(ns, t, dev, "operstate"); v != lo.OperState {
		t.Errorf("%s operstate: ours %q, sysfs %q", dev, lo.OperState, v)
	}
	carrier, ok := nsSysfs(ns, t, dev, "carrier") // EINVAL while admin down
	switch {
	case ok && (lo.Carrier == nil || (carrier == "1") != *lo.Carrier):
		t.Errorf("%s carrier: ours %v, sysfs %q", dev, deref(lo.Carrier), carrier)
	case !ok && lo.AdminUp:
		t.Errorf("%s: sysfs carrier unreadable on an up link", dev)
	}
	speed, ok := nsSysfs(ns, t, dev, "speed")
	switch {
	case lo.SpeedMbps != nil && (!ok || speed != strconv.FormatUint(uint64(*lo.SpeedMbps), 10)):
		t.Errorf("%s speed: ours %d, sysfs %q", dev, *lo.SpeedMbps, speed)
	case lo.SpeedMbps == nil && lo.Up() && ok && speed != "-1":
		t.Errorf("%s speed: absent on an up link, sysfs %q", dev, speed)
	}
	return hi
}

func TestKernelVeth(t *testing.T) {
	ns := netnstest.New(t, "rtnl")
	ns.Veth(t, "vethA", "vethB")
	k := openIn(t, ns)

	a0 := checkAgainstHost(t, ns, k, "vethA")
	b0 := checkAgainstHost(t, ns, k, "vethB")
	if a0.Kind != "veth" || a0.OperState != "up" || !a0.Up() || a0.MTU != 1500 {
		t.Errorf("vethA: %+v", a0)
	}
	if a0.SpeedMbps == nil || *a0.SpeedMbps != 10000 {
		t.Errorf("vethA speed %v, want 10000 (veth's fixed speed)", deref(a0.SpeedMbps))
	}
	if a0.ParentIndex != b0.Index || b0.ParentIndex != a0.Index || a0.ParentNetnsID != nil {
		t.Errorf("veth peers: A %d→%d, B %d→%d", a0.Index, a0.ParentIndex, b0.Index, b0.ParentIndex)
	}
	if peer := linkByIndex(t, k, a0.ParentIndex); peer.Name != "vethB" {
		t.Errorf("vethA's parent %d is %q, want vethB", a0.ParentIndex, peer.Name)
	}

	// Send frames no protocol handles: counted as sent by A, received by B,
	// and by B as "no handler".
	const n, size = 250, 300
	ns.Sender(t, "vethA").Send(t, n, size)
	// vethB counts them on its NAPI poll, which may run after Send
	// returns on a busy machine: wait for it, with a deadline.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if l, err := k.Link("vethB"); err != nil || l.Stats.RxPackets-b0.Stats.RxPackets >= n {
			break
		}
	}
	a1 := checkAgainstHost(t, ns, k, "vethA")
	b1 := checkAgainstHost(t, ns, k, "vethB")
	grew := func(what string, before, after, want uint64) {
		t.Helper()
		if after < before || after-before < want {
			t.Errorf("%s: %d → %d, want +%d at least", what, before, after, want)
		}
	}
	grew("vethA tx_packets", a0.Stats.TxPackets, a1.Stats.TxPackets, n)
	grew("vethA tx_bytes", a0.Stats.TxBytes, a1.Stats.TxBytes, n*size)
	grew("vethB rx_packets", b0.Stats.RxPackets, b1.Stats.RxPackets, n)
	grew("vethB rx_bytes", b0.Stats.RxBytes, b1.Stats.RxBytes, n*(size-14))
	// No protocol takes them: the kernel counts them as dropped (6.x) or
	// as "no handler" (older kernels), depending on the version.
	lost := func(l Link) uint64 {
		v := l.Stats.RxDropped
		if l.Stats.RxNoHandler != nil {
			v += *l.Stats.RxNoHandler
		}
		return v
	}
	grew("vethB rx_dropped + rx_nohandler", lost(b0), lost(b1), n)
	if b1.Stats.RxNoHandler == nil {
		t.Errorf("vethB rx_nohandler absent on Linux %s (4.6+ has it)", kernelRelease())
	}

	// MTU as set.
	ns.IP(t, "link", "set", "vethA", "mtu", "9000")
	if a := checkAgainstHost(t, ns, k, "vethA"); a.MTU != 9000 {
		t.Errorf("MTU after set 9000: %d", a.MTU)
	}

	// vethB down: B is down, A lost its carrier; both count the change,
	// and neither has a speed.
	ns.IP(t, "link", "set", "vethB", "down")
	a2 := checkAgainstHost(t, ns, k, "vethA")
	b2 := checkAgainstHost(t, ns, k, "vethB")
	if b2.OperState != "down" || b2.AdminUp || b2.Carrier == nil || *b2.Carrier || b2.SpeedMbps != nil || b2.Up() {
		t.Errorf("vethB down: %s admin %v carrier %v speed %v", b2.OperState, b2.AdminUp, deref(b2.Carrier), deref(b2.SpeedMbps))
	}
	if a2.OperState != "lowerlayerdown" || !a2.AdminUp || a2.Carrier == nil || *a2.Carrier || a2.SpeedMbps != nil {
		t.Errorf("vethA with peer down: %s admin %v carrier %v speed %v", a2.OperState, a2.AdminUp, deref(a2.Carrier), deref(a2.SpeedMbps))
	}
	for _, c := range []struct {
		name          string
		before, after *uint32
	}{
		{"vethA carrier_changes", a1.CarrierChanges, a2.CarrierChanges},
		{"vethA carrier_down_count", a1.CarrierDownCount, a2.CarrierDownCount},
		{"vethB carrier_changes", b1.CarrierChanges, b2.CarrierChanges},
	} {
		if c.before == nil || c.after == nil || *c.after <= *c.before {
			t.Errorf("%s: %v → %v, want an increment", c.name, deref(c.before), deref(c.after))
		}
	}
	// And up again.
	ns.IP(t, "link", "set", "vethB", "up")
	a3 := waitUp(t, k, "vethA")
	if *a3.CarrierUpCount <= *a2.CarrierUpCount || a3.SpeedMbps == nil {
		t.Errorf("vethA back up: up count %v → %v, speed %v", deref(a2.CarrierUpCount), deref(a3.CarrierUpCount), deref(a3.SpeedMbps))
	}

	// The loopback, up: no kind, no speed (ethtool has no link settings
	// for it, an error Link absorbs).
	ns.IP(t, "link", "set", "lo", "up")
	lo, err := k.Link("lo")
	if err != nil || lo.Index != 1 || lo.Kind != "" || lo.SpeedMbps != nil || lo.OperState != "unknown" || !lo.Up() {
		t.Errorf("Link(lo) = %+v, %v", lo, err)
	}
	links, err := k.Links()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range links {
		names = append(names, l.Name)
	}
	if !reflect.DeepEqual(names, []string{"lo", "vethB", "vethA"}) && !reflect.DeepEqual(names, []string{"lo", "vethA", "vethB"}) {
		t.Errorf("Links = %v", names)
	}

	// Not found, and removed mid-run.
	_, err = k.Link("nosuch0")
	if !errors.Is(err, ErrNoDevice) || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nosuch0") {
		t.Errorf("Link(nosuch0) = %v, want ErrNoDevice naming it", err)
	}
	if st := probes.StatusOf("rtnl nosuch0", err); st.State != probes.StateFailed || !strings.Contains(st.Detail, "no such network interface") {
		t.Errorf("status %+v", st)
	}
	ns.IP(t, "link", "del", "vethA")
	for _, name := range []string{"vethA", "vethB"} {
		if _, err := k.Link(name); !errors.Is(err, ErrNoDevice) {
			t.Errorf("Link(%s) after deletion = %v, want ErrNoDevice", name, err)
		}
	}
	if l := linkByIndex(t, k, a0.Index); l.Name != "" {
		t.Errorf("ifindex %d still listed after deletion: %s", a0.Index, l.Name)
	}
}

// waitUp reads a link until it is up (carrier comes back asynchronously).
func waitUp(t *testing.T, k *Kernel, name string) Link {
	t.Helper()
	for range 300 {
		l, err := k.Link(name)
		if err != nil {
			t.Fatal(err)
		}
		if l.Up() && l.OperState == "up" {
			return l
		}
		unix.Nanosleep(&unix.Timespec{Nsec: 10e6}, nil)
	}
	t.Fatalf("%s not up after 3 s", name)
	return Link{}
}

func kernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "?"
	}
	return unix.ByteSliceToString(u.Release[:])
}

// A VLAN on a veth, and a bond with two ports: the parent and master
// that map a RoCE netdev on a VLAN or a bond to its physical ports. Where
// the kernel lacks 802.1Q or bonding (this project's Firecracker test VM
// has neither), a macvlan stands in for the VLAN (it too has a parent)
// and a bridge for the bond (it too is a master).
func TestKernelParentAndMaster(t *testing.T) {
	ns := netnstest.New(t, "rtnl")
	ns.Veth(t, "vethA", "vethB")
	k := openIn(t, ns)
	a, err := k.Link("vethA")
	if err != nil {
		t.Fatal(err)
	}

	upper, kind := "vethA.100", "vlan"
	if _, err := ns.Exec("ip", "link", "add", "link", "vethA", "name", upper, "type", "vlan", "id", "100"); err != nil {
		t.Logf("no 802.1Q here (%v): testing the parent with a macvlan", err)
		upper, kind = "mvA", "macvlan"
		ns.IP(t, "link", "add", "link", "vethA", "name", upper, "type", "macvlan")
	}
	ns.IP(t, "link", "set", upper, "up")
	v := checkAgainstHost(t, ns, k, upper)
	if v.Kind != kind || v.ParentIndex != a.Index {
		t.Errorf("%s: kind %q parent %d, want %s on vethA (%d)", upper, v.Kind, v.ParentIndex, kind, a.Index)
	}
	if kind == "vlan" && (v.VLANID == nil || *v.VLANID != 100) {
		t.Errorf("%s: vlan id %v, want 100", upper, deref(v.VLANID))
	}
	if kind != "vlan" && v.VLANID != nil {
		t.Errorf("%s: vlan id %d on a %s", upper, *v.VLANID, kind)
	}
	if p := linkByIndex(t, k, v.ParentIndex); p.Name != "vethA" {
		t.Errorf("parent %d of %s is %q, want vethA", v.ParentIndex, upper, p.Name)
	}

	master, mkind := "bond0", "bond"
	if _, err := ns.Exec("ip", "link", "add", master, "type", "bond"); err != nil {
		t.Logf("no bonding here (%v): testing the master with a bridge", err)
		master, mkind = "br0", "bridge"
		ns.IP(t, "link", "add", master, "type", "bridge")
	}
	ns.Veth(t, "vethC", "vethD")
	ns.Veth(t, "vethE", "vethF")
	for _, port := range []string{"vethC", "vethE"} {
		ns.IP(t, "link", "set", port, "down")
		ns.IP(t, "link", "set", port, "master", master)
		ns.IP(t, "link", "set", port, "up")
	}
	ns.IP(t, "link", "set", master, "up")
	m := checkAgainstHost(t, ns, k, master)
	c := checkAgainstHost(t, ns, k, "vethC")
	if m.Kind != mkind || c.MasterIndex != m.Index || c.SlaveKind != mkind {
		t.Errorf("%s kind %q index %d; vethC master %d slave kind %q", master, m.Kind, m.Index, c.MasterIndex, c.SlaveKind)
	}
	links, err := k.Links()
	if err != nil {
		t.Fatal(err)
	}
	var ports []string
	for _, l := range Slaves(links, m.Index) {
		ports = append(ports, l.Name)
	}
	if !reflect.DeepEqual(ports, []string{"vethC", "vethE"}) {
		t.Errorf("ports of %s = %v, want [vethC vethE]", master, ports)
	}
}

// A long alternative name is looked up with IFLA_ALT_IFNAME.
func TestKernelAltName(t *testing.T) {
	ns := netnstest.New(t, "rtnl")
	ns.Veth(t, "vethA", "vethB")
	k := openIn(t, ns)
	const alt = "rdmatop-a-rather-long-alternative-name"
	if _, err := ns.Exec("ip", "link", "property", "add", "dev", "vethA", "altname", alt); err != nil {
		t.Skipf("alternative names not supported here (Linux 5.5+): %v", err)
	}
	l, err := k.Link(alt)
	if err != nil || l.Name != "vethA" {
		t.Errorf("Link(%s) = %+v, %v; want vethA", alt, l, err)
	}
	if l.SpeedMbps == nil {
		t.Errorf("speed of vethA by its altname absent")
	}
}

// DecodeLink agrees with vishvananda/netlink's own decoder on real kernel
// messages, field by field where both decode the same attribute.
func TestDecodeLinkAgreesWithNetlinkLibrary(t *testing.T) {
	ns := netnstest.New(t, "rtnl")
	ns.Veth(t, "vethA", "vethB")
	ns.IP(t, "link", "add", "link", "vethA", "name", "mvA", "type", "macvlan")
	ns.IP(t, "link", "set", "mvA", "mtu", "1400")
	ns.IP(t, "link", "add", "br0", "type", "bridge")
	ns.IP(t, "link", "set", "vethB", "master", "br0")
	k := openIn(t, ns)
	ns.Sender(t, "vethA").Send(t, 10, 100)

	msgs, err := k.execute(context.Background(), k.request(0, unix.NLM_F_DUMP), unix.RTM_NEWLINK)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 5 {
		t.Fatalf("%d links, want lo, vethA, vethB, mvA, br0", len(msgs))
	}
	for _, m := range msgs {
		ours, err := DecodeLink(m)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := netlink.LinkDeserialize(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		la := theirs.Attrs()
		got := []any{ours.Index, ours.Name, ours.MTU, ours.OperState, ours.MasterIndex, ours.ParentIndex, ours.Address, ours.Flags}
		wantAddr := ours.Address
		if la.HardwareAddr != nil || strings.Trim(ours.Address, "0:") != "" {
			wantAddr = la.HardwareAddr.String() // the library drops all-zero addresses, ip(8) shows them
		}
		want := []any{la.Index, la.Name, la.MTU, la.OperState.String(), la.MasterIndex, la.ParentIndex, wantAddr, la.RawFlags}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ours %v, netlink library %v", ours.Name, got, want)
		}
		kind := theirs.Type()
		if kind == "device" {
			kind = ""
		}
		if ours.Kind != kind {
			t.Errorf("%s: kind %q, library %q", ours.Name, ours.Kind, kind)
		}
		if vl, ok := theirs.(*netlink.Vlan); ok && (ours.VLANID == nil || int(*ours.VLANID) != vl.VlanId) {
			t.Errorf("%s: vlan id %v, library %d", ours.Name, deref(ours.VLANID), vl.VlanId)
		}
		s, ls := ours.Stats, la.Statistics
		if s == nil || ls == nil {
			t.Fatalf("%s: stats %v, library %v", ours.Name, s, ls)
		}
		oursStats := []uint64{s.RxPackets, s.TxPackets, s.RxBytes, s.TxBytes, s.RxErrors, s.TxErrors, s.RxDropped, s.TxDropped,
			s.Multicast, s.Collisions, s.RxLengthErrors, s.RxOverErrors, s.RxCRCErrors, s.RxFrameErrors, s.RxFIFOErrors,
			s.RxMissedErrors, s.TxAbortedErrors, s.TxCarrierErrors, s.TxFIFOErrors, s.TxHeartbeatErrors, s.TxWindowErrors,
			s.RxCompressed, s.TxCompressed}
		theirStats := []uint64{ls.RxPackets, ls.TxPackets, ls.RxBytes, ls.TxBytes, ls.RxErrors, ls.TxErrors, ls.RxDropped, ls.TxDropped,
			ls.Multicast, ls.Collisions, ls.RxLengthErrors, ls.RxOverErrors, ls.RxCrcErrors, ls.RxFrameErrors, ls.RxFifoErrors,
			ls.RxMissedErrors, ls.TxAbortedErrors, ls.TxCarrierErrors, ls.TxFifoErrors, ls.TxHeartbeatErrors, ls.TxWindowErrors,
			ls.RxCompressed, ls.TxCompressed}
		if !reflect.DeepEqual(oursStats, theirStats) {
			t.Errorf("%s: stats %v, library %v", ours.Name, oursStats, theirStats)
		}
	}
}

// linkByIndex finds the link with ifindex index in a dump (Link{} when
// there is none), as a Link's ParentIndex or MasterIndex is resolved.
func linkByIndex(t *testing.T, k *Kernel, index int) Link {
	t.Helper()
	links, err := k.Links()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		if l.Index == index {
			return l
		}
	}
	return Link{}
}
