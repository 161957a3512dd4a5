package sysfs

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/rdmatop/rdmatop/probes"
)

func deref[T any](t *testing.T, what string, p *T) T {
	t.Helper()
	if p == nil {
		t.Fatalf("%s is absent", what)
	}
	return *p
}

func gid(s string) netip.Addr { return netip.MustParseAddr(s) }

// The RoCE fixture: two ConnectX-6 Dx PFs, mlx5_0 up on eth0, mlx5_1 down.
func TestDiscoverRoCE(t *testing.T) {
	devs, err := Discover(fixture("mlx5-roce-cx6dx-t0"))
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 2 || devs[0].Name != "mlx5_0" || devs[1].Name != "mlx5_1" {
		t.Fatalf("devices %+v", devs)
	}
	d := devs[0]
	if got := deref(t, "node_type", d.NodeType); got != (Enum{1, "CA"}) {
		t.Errorf("node_type %v", got)
	}
	if g := deref(t, "node_guid", d.NodeGUID); g != 0xb8cef603005a3c10 || g.String() != "b8ce:f603:005a:3c10" {
		t.Errorf("node_guid %v", g)
	}
	if g := deref(t, "sys_image_guid", d.SysImageGUID); g != 0xb8cef603005a3c10 {
		t.Errorf("sys_image_guid %v", g)
	}
	for what, c := range map[string][2]*string{
		"fw_ver":    {d.FWVer, ptr("22.39.1002")},
		"hca_type":  {d.HCAType, ptr("MT4125")},
		"board_id":  {d.BoardID, ptr("MT_0000000359")},
		"node_desc": {d.NodeDesc, ptr("host01 mlx5_0")},
		"hw_rev":    {d.HWRev, ptr("0x0")},
	} {
		if deref(t, what, c[0]) != *c[1] {
			t.Errorf("%s = %q, want %q", what, *c[0], *c[1])
		}
	}
	if d.Driver != "mlx5" || d.PCI != "0000:3b:00.0" || d.DevicePath != "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0" || d.Parent != "" {
		t.Errorf("driver %q pci %q path %q parent %q", d.Driver, d.PCI, d.DevicePath, d.Parent)
	}
	if len(d.Errors) != 0 || len(d.Ports) != 1 {
		t.Fatalf("errors %v ports %d", d.Errors, len(d.Ports))
	}
	p := d.Ports[0]
	if p.Num != 1 || deref(t, "state", p.State) != (Enum{4, "ACTIVE"}) || deref(t, "phys_state", p.PhysState) != (Enum{5, "LinkUp"}) || !p.Active() {
		t.Errorf("port state %v %v", p.State, p.PhysState)
	}
	if r := deref(t, "rate", p.Rate); r != (Rate{Raw: "100 Gb/sec (4X EDR)", Gbps: 100, Width: "4X", Speed: "EDR"}) {
		t.Errorf("rate %+v", r)
	}
	if deref(t, "link_layer", p.LinkLayer) != "Ethernet" || !p.Ethernet() {
		t.Errorf("link layer %v", *p.LinkLayer)
	}
	if deref(t, "lid", p.LID) != 0 || deref(t, "sm_lid", p.SMLID) != 0 || deref(t, "cap_mask", p.CapMask) != 0x04010000 || deref(t, "sm_sl", p.SMSL) != 0 || deref(t, "lmc", p.LMC) != 0 {
		t.Errorf("lids %v %v %v", *p.LID, *p.SMLID, *p.CapMask)
	}
	want := []GID{
		{0, gid("fe80::bace:f6ff:fe5a:3c10"), GIDTypeIBRoCEv1, "eth0"},
		{1, gid("fe80::bace:f6ff:fe5a:3c10"), GIDTypeRoCEv2, "eth0"},
		{2, gid("::ffff:192.168.10.11"), GIDTypeIBRoCEv1, "eth0"},
		{3, gid("::ffff:192.168.10.11"), GIDTypeRoCEv2, "eth0"},
	}
	if !equalGIDs(p.GIDs, want) {
		t.Errorf("gids\n got %+v\nwant %+v", p.GIDs, want)
	}
	if v4, ok := p.GIDs[3].IPv4(); !ok || v4 != netip.MustParseAddr("192.168.10.11") {
		t.Errorf("GID 3 IPv4 %v %v", v4, ok)
	}
	if _, ok := p.GIDs[0].IPv4(); ok {
		t.Error("link-local GID has no IPv4")
	}
	if len(p.PKeys) != 1 || p.PKeys[0] != (PKey{0, 0xffff}) || len(p.Errors) != 0 {
		t.Errorf("pkeys %v errors %v", p.PKeys, p.Errors)
	}

	// mlx5_1: the link-down port of the second PF.
	q := devs[1].Ports[0]
	if deref(t, "state", q.State) != (Enum{1, "DOWN"}) || deref(t, "phys_state", q.PhysState) != (Enum{3, "Disabled"}) || q.Active() {
		t.Errorf("mlx5_1 state %v %v", q.State, q.PhysState)
	}
	if devs[1].PCI != "0000:3b:00.1" || len(q.GIDs) != 4 || q.GIDs[3].Netdev != "eth1" || q.GIDs[3].Type != GIDTypeRoCEv2 {
		t.Errorf("mlx5_1 pci %s gids %+v", devs[1].PCI, q.GIDs)
	}
}

func ptr[T any](v T) *T { return &v }

func equalGIDs(a, b []GID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The InfiniBand fixture: one GID, no netdev, 8 P_Keys (one set), LIDs.
func TestDiscoverIB(t *testing.T) {
	devs, err := Discover(fixture("mlx5-ib-cx6"))
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 1 || devs[0].Name != "mlx5_2" || len(devs[0].Ports) != 1 {
		t.Fatalf("devices %+v", devs)
	}
	d, p := devs[0], devs[0].Ports[0]
	if *d.HCAType != "MT4123" || d.PCI != "0000:81:00.0" || d.NodeGUID.String() != "0a7f:bc12:45ef:d23b" {
		t.Errorf("device %+v", d)
	}
	if *p.LinkLayer != "InfiniBand" || p.Ethernet() || *p.LID != 0x1a || *p.SMLID != 0x1 || *p.CapMask != 0xa659e848 {
		t.Errorf("port %+v", p)
	}
	if r := *p.Rate; r.Gbps != 200 || r.Width != "4X" || r.Speed != "HDR" {
		t.Errorf("rate %+v", r)
	}
	want := []GID{{0, gid("fe80::a7f:bc12:45ef:d23b"), GIDTypeIBRoCEv1, ""}}
	if !equalGIDs(p.GIDs, want) {
		t.Errorf("gids %+v", p.GIDs)
	}
	if len(p.PKeys) != 1 || p.PKeys[0].Value != 0xffff {
		t.Errorf("pkeys %+v", p.PKeys)
	}
}

// Real Soft-RoCE sysfs (kernel 6.1): no parent device, a parent file, an
// empty fw_ver that is present, two RoCE v2 GIDs out of 1024 entries.
func TestDiscoverRXE(t *testing.T) {
	devs, err := Discover(rxeTar(t, "sysfs-final.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 2 {
		t.Fatalf("devices %+v", devs)
	}
	for i, d := range devs {
		n := string(rune('0' + i))
		if d.Name != "rxe"+n || d.Parent != "veth"+n || d.Driver != "rxe" || d.DevicePath != "" || d.PCI != "" {
			t.Errorf("%s: parent %q driver %q path %q", d.Name, d.Parent, d.Driver, d.DevicePath)
		}
		if d.FWVer == nil || *d.FWVer != "" {
			t.Errorf("%s: fw_ver should be present and empty: %v", d.Name, d.FWVer)
		}
		if d.HCAType != nil || *d.NodeDesc != "rxe" {
			t.Errorf("%s: hca_type %v node_desc %v", d.Name, d.HCAType, d.NodeDesc)
		}
		p := d.Ports[0]
		if *p.Rate != (Rate{Raw: "10 Gb/sec (1X FDR10)", Gbps: 10, Width: "1X", Speed: "FDR10"}) || !p.Active() || *p.PhysState != (Enum{5, "LinkUp"}) {
			t.Errorf("%s: port %+v", d.Name, p)
		}
		want := []GID{
			{0, gid("fe80::ff:fe00:770" + string(rune('1'+i))), GIDTypeRoCEv2, "veth" + n},
			{1, gid("::ffff:192.168.77." + string(rune('1'+i))), GIDTypeRoCEv2, "veth" + n},
		}
		if !equalGIDs(p.GIDs, want) || len(p.Errors) != 0 {
			t.Errorf("%s: gids %+v errors %v", d.Name, p.GIDs, p.Errors)
		}
	}
	if devs[0].NodeGUID.String() != "0000:00ff:fe00:7701" {
		t.Errorf("rxe0 guid %v", devs[0].NodeGUID)
	}
}

// The same snapshot with the reads that failed on the host failing again
// with EINVAL (empty gid_attrs slots): no entry, no error.
func TestGIDAttrsEINVAL(t *testing.T) {
	f := rxeTSV(t, "sysfs-final.tsv")
	devs, err := Discover(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.readErr) < 2*2*1022 {
		t.Fatalf("TSV has only %d failing reads", len(f.readErr))
	}
	if len(devs) != 2 {
		t.Fatalf("devices %v", devs)
	}
	for _, d := range devs {
		p := d.Ports[0]
		if len(p.GIDs) != 2 || p.GIDs[1].Type != GIDTypeRoCEv2 || len(p.Errors) != 0 || len(d.Errors) != 0 {
			t.Errorf("%s: gids %+v errors %v %v", d.Name, p.GIDs, p.Errors, d.Errors)
		}
	}
	// A populated entry whose type read fails with EINVAL keeps the GID.
	f.readErr["sys/class/infiniband/rxe0/ports/1/gid_attrs/types/1"] = syscall.EINVAL
	devs, _ = Discover(f)
	if g := devs[0].Ports[0].GIDs[1]; g.Type != "" || g.Netdev != "veth0" {
		t.Errorf("gid 1 with EINVAL type: %+v", g)
	}
	// Other errors are reported, and the rest is read.
	f.readErr["sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0"] = syscall.EIO
	devs, _ = Discover(f)
	p := devs[0].Ports[0]
	if len(p.GIDs) != 2 || len(p.Errors) != 1 || p.Errors[0].Kind != KindRead || !errors.Is(p.Errors[0], syscall.EIO) {
		t.Errorf("EIO on ndevs/0: gids %+v errors %v", p.GIDs, p.Errors)
	}
}

func TestDiscoverNotSupported(t *testing.T) {
	_, err := Discover(fstest.MapFS{"sys/class/net/lo/mtu": {Data: []byte("65536\n")}})
	if !errors.Is(err, probes.ErrNotSupported) || probes.StatusOf("sysfs", err).State != probes.StateNotSupported {
		t.Errorf("no sys/class/infiniband: %v", err)
	}
	f := &faultFS{MapFS: mapCopy(t, "mlx5-roce-cx6dx-t0"), dirErr: map[string]error{ibClass: syscall.EACCES}}
	_, err = Discover(f)
	var pe *probes.PermissionError
	if !errors.As(err, &pe) || !strings.Contains(pe.What, ibClass) || probes.StatusOf("sysfs", err).State != probes.StatePermissionDenied {
		t.Errorf("EACCES on the class dir: %v", err)
	}
	devs, err := Discover(fstest.MapFS{"sys/class/infiniband": {Mode: fs.ModeDir | 0o555}})
	if err != nil || len(devs) != 0 {
		t.Errorf("empty class: %v %v", devs, err)
	}
}

// Attribute files that fail are noted; the device is still read.
func TestDeviceAttributeErrors(t *testing.T) {
	m := mapCopy(t, "mlx5-roce-cx6dx-t0")
	dev := "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0"
	m[dev+"/node_guid"].Data = []byte("not a guid\n")
	m[dev+"/ports/1/rate"].Data = []byte("fast\n")
	f := &faultFS{MapFS: m, readErr: map[string]error{"sys/class/infiniband/mlx5_0/fw_ver": syscall.EACCES}}
	devs, err := Discover(f)
	if err != nil {
		t.Fatal(err)
	}
	d := devs[0]
	if d.NodeGUID != nil || d.FWVer != nil || d.HCAType == nil || len(d.Errors) != 2 {
		t.Fatalf("guid %v fw %v errors %v", d.NodeGUID, d.FWVer, d.Errors)
	}
	if d.Errors[0].Kind != KindParse || d.Errors[1].Kind != KindPermission {
		t.Errorf("kinds %v", d.Errors)
	}
	var pe *probes.PermissionError
	if !errors.As(d.Errors[1], &pe) || pe.What != "read sys/class/infiniband/mlx5_0/fw_ver" {
		t.Errorf("permission error %v", d.Errors[1])
	}
	if p := d.Ports[0]; p.Rate != nil || len(p.Errors) != 1 || p.Errors[0].Path != "sys/class/infiniband/mlx5_0/ports/1/rate" || p.State == nil {
		t.Errorf("rate %v errors %v", p.Rate, p.Errors)
	}
	js, err := json.Marshal(d.Errors)
	if err != nil || !strings.Contains(string(js), `"kind":"permission"`) || !strings.Contains(string(js), `"error":"needs read sys/class/infiniband/mlx5_0/fw_ver`) {
		t.Errorf("json %s %v", js, err)
	}
}

// A ports/ directory that cannot be listed: the device is still reported,
// without ports, with the error; the other devices are read.
func TestPortsUnreadable(t *testing.T) {
	f := &faultFS{MapFS: mapCopy(t, "mlx5-roce-cx6dx-t0"), dirErr: map[string]error{"sys/class/infiniband/mlx5_0/ports": syscall.EACCES}}
	devs, err := Discover(f)
	if err != nil || len(devs) != 2 {
		t.Fatalf("%v %v", devs, err)
	}
	if d := devs[0]; len(d.Ports) != 0 || len(d.Errors) != 1 || d.Errors[0].Kind != KindPermission || d.Errors[0].Path != "sys/class/infiniband/mlx5_0/ports" {
		t.Errorf("mlx5_0 ports %v errors %v", d.Ports, d.Errors)
	}
	if len(devs[1].Ports) != 1 {
		t.Errorf("mlx5_1 ports %v", devs[1].Ports)
	}
}
