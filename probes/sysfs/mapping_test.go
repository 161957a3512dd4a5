package sysfs

import (
	"errors"
	"io/fs"
	"net"
	"reflect"
	"syscall"
	"testing"
	"testing/fstest"
)

func TestReadNetdev(t *testing.T) {
	f := fixture("mlx5-roce-cx6dx-t0")
	eth0, err := ReadNetdev(f, "eth0")
	if err != nil {
		t.Fatal(err)
	}
	mac, _ := net.ParseMAC("b8:ce:f6:5a:3c:10")
	if *eth0.MTU != 9000 || *eth0.OperState != "up" || *eth0.SpeedMbps != 100000 || !*eth0.Carrier ||
		eth0.Address.String() != mac.String() || *eth0.Type != ARPHRDEther || *eth0.IfIndex != 4 || *eth0.DevPort != 0 {
		t.Errorf("eth0 %+v", eth0)
	}
	if eth0.CarrierChanges != nil {
		t.Errorf("carrier_changes is not in the fixture: absent, not %d", *eth0.CarrierChanges)
	}
	if eth0.PCI != "0000:3b:00.0" || eth0.DevicePath != "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0" || len(eth0.Errors) != 0 {
		t.Errorf("eth0 device %q %q errors %v", eth0.PCI, eth0.DevicePath, eth0.Errors)
	}
	eth1, err := ReadNetdev(f, "eth1")
	if err != nil {
		t.Fatal(err)
	}
	if eth1.SpeedMbps != nil || *eth1.OperState != "down" || *eth1.Carrier || eth1.PCI != "0000:3b:00.1" {
		t.Errorf("eth1 (down): speed %v oper %v carrier %v", eth1.SpeedMbps, *eth1.OperState, *eth1.Carrier)
	}
	ib0, err := ReadNetdev(fixture("mlx5-ib-cx6"), "ib0")
	if err != nil {
		t.Fatal(err)
	}
	if *ib0.Type != ARPHRDInfiniband || len(ib0.Address) != 20 || *ib0.MTU != 4092 || *ib0.SpeedMbps != 200000 || ib0.PCI != "0000:81:00.0" {
		t.Errorf("ib0 %+v", ib0)
	}
	if _, err := ReadNetdev(f, "nosuch0"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing netdev: %v", err)
	}

	// speed and carrier fail with EINVAL when the interface is down: absent.
	m := mapCopy(t, "mlx5-roce-cx6dx-t0")
	ff := &faultFS{MapFS: m, readErr: map[string]error{
		"sys/class/net/eth1/speed":   syscall.EINVAL,
		"sys/class/net/eth1/carrier": syscall.EINVAL,
	}}
	m["sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1/net/eth1/carrier_changes"] = &fstest.MapFile{Data: []byte("7\n")}
	eth1, _ = ReadNetdev(ff, "eth1")
	if eth1.SpeedMbps != nil || eth1.Carrier != nil || len(eth1.Errors) != 0 || *eth1.CarrierChanges != 7 {
		t.Errorf("eth1 with EINVAL: %+v", eth1)
	}
	names, err := Netdevs(f)
	if err != nil || !reflect.DeepEqual(names, []string{"eth0", "eth1"}) {
		t.Errorf("Netdevs %v %v", names, err)
	}
}

func TestMapping(t *testing.T) {
	cases := []struct {
		fsys   fs.FS
		netdev string
		want   PortRef
	}{
		{fixture("mlx5-roce-cx6dx-t0"), "eth0", PortRef{"mlx5_0", 1}},
		{fixture("mlx5-roce-cx6dx-t0"), "eth1", PortRef{"mlx5_1", 1}},
		{fixture("mlx5-ib-cx6"), "ib0", PortRef{"mlx5_2", 1}},
		{rxeTar(t, "sysfs-idle.tar.gz"), "veth0", PortRef{"rxe0", 1}},
		{rxeTar(t, "sysfs-idle.tar.gz"), "veth1", PortRef{"rxe1", 1}},
	}
	for _, c := range cases {
		var ports []PortRef
		var back []string
		for _, l := range LinksFrom(discoverAll(t, c.fsys)) {
			if l.Netdev == c.netdev {
				ports = append(ports, l.PortRef)
			}
			if l.PortRef == c.want {
				back = append(back, l.Netdev)
			}
		}
		if !reflect.DeepEqual(ports, []PortRef{c.want}) || !reflect.DeepEqual(back, []string{c.netdev}) {
			t.Errorf("%s links to %v, want %v; %v links to %v", c.netdev, ports, c.want, c.want, back)
		}
	}
	for _, l := range LinksFrom(discoverAll(t, fixture("mlx5-roce-cx6dx-t0"))) {
		if l.Netdev == "lo" || l.PortRef == (PortRef{"mlx5_0", 2}) {
			t.Errorf("link %+v: lo carries no RDMA port, mlx5_0 has no port 2", l)
		}
	}
}

func discoverAll(t *testing.T, fsys fs.FS) ([]Device, []Netdev) {
	t.Helper()
	devs, err := Discover(fsys)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := Netdevs(fsys)
	var nds []Netdev
	for _, n := range names {
		nd, err := ReadNetdev(fsys, n)
		if err != nil {
			t.Fatal(err)
		}
		nds = append(nds, nd)
	}
	return devs, nds
}

func stripGIDs(devs []Device) {
	for i := range devs {
		for j := range devs[i].Ports {
			devs[i].Ports[j].GIDs = nil
		}
	}
}

// Each method on its own: GID netdevs first, then the PCI link alone, the
// rxe parent file alone, the IPoIB GUID alone.
func TestLinkMethods(t *testing.T) {
	devs, nds := discoverAll(t, fixture("mlx5-roce-cx6dx-t0"))
	want := []Link{{"eth0", PortRef{"mlx5_0", 1}, ViaGIDNdev}, {"eth1", PortRef{"mlx5_1", 1}, ViaGIDNdev}}
	if got := LinksFrom(devs, nds); !reflect.DeepEqual(got, want) {
		t.Errorf("links %+v", got)
	}
	stripGIDs(devs)
	want = []Link{{"eth0", PortRef{"mlx5_0", 1}, ViaDevice}, {"eth1", PortRef{"mlx5_1", 1}, ViaDevice}}
	if got := LinksFrom(devs, nds); !reflect.DeepEqual(got, want) {
		t.Errorf("links by PCI device %+v", got)
	}

	devs, nds = discoverAll(t, fixture("mlx5-ib-cx6"))
	if got := LinksFrom(devs, nds); !reflect.DeepEqual(got, []Link{{"ib0", PortRef{"mlx5_2", 1}, ViaDevice}}) {
		t.Errorf("ib links %+v", got)
	}
	nds[0].DevicePath = "" // a netdev without a parent link: the port GUID still ties it
	if got := LinksFrom(devs, nds); !reflect.DeepEqual(got, []Link{{"ib0", PortRef{"mlx5_2", 1}, ViaIPoIB}}) {
		t.Errorf("ib links by GUID %+v", got)
	}
	stripGIDs(devs) // and the node GUID when the GID table was not read
	if got := LinksFrom(devs, nds); len(got) != 1 || got[0].Via != ViaIPoIB {
		t.Errorf("ib links by node GUID %+v", got)
	}

	devs, _ = discoverAll(t, rxeTar(t, "sysfs-final.tar.gz"))
	stripGIDs(devs)
	want = []Link{{"veth0", PortRef{"rxe0", 1}, ViaParent}, {"veth1", PortRef{"rxe1", 1}, ViaParent}}
	if got := LinksFrom(devs, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("rxe links by parent %+v", got)
	}
}

func TestSameFunction(t *testing.T) {
	pf := "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0"
	for _, c := range []struct {
		ib, nd string
		want   bool
	}{
		{pf, pf, true},
		{pf + "/mlx5_core.rdma.0", pf, true}, // mlx5 auxiliary RDMA device (kernel ≥ 5.11)
		{pf, pf + "/mlx5_core.eth.0", true},
		{pf, "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1", false},
		{pf + "/mlx5_core.sf.2", pf, true},
		{"", "", false},
	} {
		if got := sameFunction(c.ib, c.nd); got != c.want {
			t.Errorf("sameFunction(%q, %q) = %v", c.ib, c.nd, got)
		}
	}
	if got := pciAddr(pf + "/mlx5_core.rdma.0"); got != "0000:3b:00.0" {
		t.Errorf("pciAddr aux %q", got)
	}
	if got := pciAddr("sys/devices/virtual/net/veth0"); got != "" {
		t.Errorf("pciAddr virtual %q", got)
	}
}

func TestRealPath(t *testing.T) {
	m := fstest.MapFS{
		"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/net/eth0/mtu": {Data: []byte("1500")},
		"sys/class/net/eth0": {Mode: fs.ModeSymlink, Data: []byte("../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/net/eth0")},
		"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/net/eth0/device": {Mode: fs.ModeSymlink, Data: []byte("../../../0000:01:00.0")},
		"sys/class/net/abs":  {Mode: fs.ModeSymlink, Data: []byte("/sys/class/net/eth0")},
		"sys/class/net/loop": {Mode: fs.ModeSymlink, Data: []byte("loop")},
		"sys/class/net/up":   {Mode: fs.ModeSymlink, Data: []byte("../../../../etc")},
	}
	for in, want := range map[string]string{
		"sys/class/net/eth0/device": "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0",
		"sys/class/net/abs/device":  "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0",
		"sys/class/net/eth0/mtu":    "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/net/eth0/mtu",
	} {
		if got, err := realPath(m, in); err != nil || got != want {
			t.Errorf("realPath(%s) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"sys/class/net/loop", "sys/class/net/up", "sys/class/net/nosuch/device"} {
		if got, err := realPath(m, bad); err == nil {
			t.Errorf("realPath(%s) = %q, want an error", bad, got)
		}
	}
}

func link(target string) *fstest.MapFile {
	return &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(target)}
}

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s + "\n")} }

// Layouts the fixtures lack: a two-port function with one netdev per port
// (mlx4: dev_port picks the port), and an mlx5 auxiliary RDMA device
// (kernel ≥ 5.11: the device link points at mlx5_core.rdma.N under the PCI
// function), both with driver links.
func TestDriverLinksAndLayouts(t *testing.T) {
	mlx4 := "sys/devices/pci0000:00/0000:00:02.0/0000:05:00.0"
	mlx5 := "sys/devices/pci0000:00/0000:00:03.0/0000:06:00.0"
	aux := mlx5 + "/mlx5_core.rdma.0"
	m := fstest.MapFS{
		"sys/bus/pci/drivers/mlx4_core/bind":                             file(""),
		mlx4 + "/driver":                                                 link("../../../../bus/pci/drivers/mlx4_core"),
		mlx4 + "/infiniband/mlx4_0/ports/1/state":                        file("4: ACTIVE"),
		mlx4 + "/infiniband/mlx4_0/ports/2/state":                        file("1: DOWN"),
		mlx4 + "/net/eth2/dev_port":                                      file("0"),
		mlx4 + "/net/eth2/device":                                        link("../../../0000:05:00.0"),
		mlx4 + "/net/eth3/dev_port":                                      file("1"),
		mlx4 + "/net/eth3/device":                                        link("../../../0000:05:00.0"),
		"sys/class/infiniband/mlx4_0":                                    link("../../devices/pci0000:00/0000:00:02.0/0000:05:00.0/infiniband/mlx4_0"),
		"sys/class/net/eth2":                                             link("../../devices/pci0000:00/0000:00:02.0/0000:05:00.0/net/eth2"),
		"sys/class/net/eth3":                                             link("../../devices/pci0000:00/0000:00:02.0/0000:05:00.0/net/eth3"),
		"sys/bus/auxiliary/drivers/mlx5_ib.rdma/x":                       file(""),
		aux + "/driver":                                                  link("../../../../../bus/auxiliary/drivers/mlx5_ib.rdma"),
		aux + "/infiniband/rocep6s0/device":                              link("../../../mlx5_core.rdma.0"),
		aux + "/infiniband/rocep6s0/ports/1/state":                       file("4: ACTIVE"),
		aux + "/infiniband/rocep6s0/ports/1/hw_counters/out_of_sequence": file("7"),
		mlx5 + "/net/ens6/device":                                        link("../../../0000:06:00.0"),
		"sys/class/infiniband/rocep6s0":                                  link("../../devices/pci0000:00/0000:00:03.0/0000:06:00.0/mlx5_core.rdma.0/infiniband/rocep6s0"),
		"sys/class/net/ens6":                                             link("../../devices/pci0000:00/0000:00:03.0/0000:06:00.0/net/ens6"),
		"sys/class/infiniband/mystery0":                                  &fstest.MapFile{Mode: fs.ModeDir | 0o555},
		"sys/class/infiniband/mystery0/x":                                file(""),
	}
	devs, err := Discover(m)
	if err != nil || len(devs) != 3 {
		t.Fatalf("%+v %v", devs, err)
	}
	if d := devs[0]; d.Name != "mlx4_0" || d.Driver != "mlx4_core" || d.PCI != "0000:05:00.0" || len(d.Ports) != 2 {
		t.Errorf("mlx4_0 %+v", d)
	}
	if d := devs[2]; d.Name != "rocep6s0" || d.Driver != "mlx5_ib.rdma" || d.PCI != "0000:06:00.0" || d.DevicePath != aux {
		t.Errorf("aux device %+v", d)
	}
	if d := devs[1]; d.Name != "mystery0" || d.Driver != "" || len(d.Ports) != 0 {
		t.Errorf("unknown device %+v", d)
	}
	nds, err := ReadNetdevs(m, nil)
	if err != nil || len(nds) != 3 {
		t.Fatalf("%v %v", nds, err)
	}
	want := []Link{
		{"ens6", PortRef{"rocep6s0", 1}, ViaDevice},
		{"eth2", PortRef{"mlx4_0", 1}, ViaDevice},
		{"eth3", PortRef{"mlx4_0", 2}, ViaDevice},
	}
	if got := LinksFrom(devs, nds); !reflect.DeepEqual(got, want) {
		t.Errorf("links %+v", got)
	}
	if nds[0].Driver != "" || nds[1].Driver != "mlx4_core" {
		t.Errorf("netdev drivers %q %q", nds[0].Driver, nds[1].Driver)
	}
	// The driver link names the family for the width metadata.
	s, err := ReadCounters(m, "rocep6s0", 1, devs[2].Driver)
	if c, ok := s.Get(SourceHW, "out_of_sequence"); err != nil || !ok || c.Meta.Bits != 32 || c.Meta.Overflow != Wraps {
		t.Errorf("aux device counter %+v %v", c, err)
	}
	if r := (PortRef{"mlx4_0", 2}); r.String() != "mlx4_0/2" {
		t.Error(r.String())
	}
}
