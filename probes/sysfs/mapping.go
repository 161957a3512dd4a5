package sysfs

import (
	"bytes"
	"fmt"
	"sort"
)

// Method says how a netdev was tied to an RDMA port.
type Method string

// Methods, most exact first.
const (
	ViaGIDNdev Method = "gid_ndev"   // a GID entry of the port names the netdev (RoCE; also VLAN, bond, macvlan uppers)
	ViaParent  Method = "parent"     // rxe's parent file names the netdev
	ViaDevice  Method = "device"     // the netdev and the RDMA device hang off the same PCI function (or its auxiliary device)
	ViaIPoIB   Method = "ipoib_guid" // an IPoIB address ends in the port GUID
)

var methodRank = map[Method]int{ViaGIDNdev: 0, ViaParent: 1, ViaDevice: 2, ViaIPoIB: 3}

// PortRef names one port of an RDMA device.
type PortRef struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
}

func (r PortRef) String() string { return fmt.Sprintf("%s/%d", r.Device, r.Port) }

// Link ties a netdev to an RDMA port.
type Link struct {
	Netdev string `json:"netdev"`
	PortRef
	Via Method `json:"via"`
}

// LinksFrom ties netdevs to RDMA ports from what Discover and ReadNetdev
// read: by GID netdevs, rxe parent files, shared parent devices and IPoIB
// port GUIDs. Netdevs named only in GID tables or parent files need not be
// in nds. Each (netdev, port) pair appears once, with its most exact
// method; the result is sorted by netdev, device, port.
func LinksFrom(devs []Device, nds []Netdev) []Link {
	type key struct {
		nd string
		PortRef
	}
	best := map[key]Method{}
	add := func(nd string, ref PortRef, m Method) {
		k := key{nd, ref}
		if old, ok := best[k]; !ok || methodRank[m] < methodRank[old] {
			best[k] = m
		}
	}
	for di := range devs {
		d := &devs[di]
		for pi := range d.Ports {
			p := &d.Ports[pi]
			ref := PortRef{d.Name, p.Num}
			for _, g := range p.GIDs {
				if g.Netdev != "" {
					add(g.Netdev, ref, ViaGIDNdev)
				}
			}
		}
		if d.Parent != "" && len(d.Ports) > 0 {
			add(d.Parent, PortRef{d.Name, d.Ports[0].Num}, ViaParent)
		}
		for ni := range nds {
			n := &nds[ni]
			if sameFunction(d.DevicePath, n.DevicePath) {
				if p := portForNetdev(d, n); p > 0 {
					add(n.Name, PortRef{d.Name, p}, ViaDevice)
				}
			}
			if n.Type != nil && *n.Type == ARPHRDInfiniband && len(n.Address) == 20 {
				for pi := range d.Ports {
					if portGUIDMatches(d, &d.Ports[pi], n.Address[12:]) {
						add(n.Name, PortRef{d.Name, d.Ports[pi].Num}, ViaIPoIB)
					}
				}
			}
		}
	}
	out := make([]Link, 0, len(best))
	for k, m := range best {
		out = append(out, Link{Netdev: k.nd, PortRef: k.PortRef, Via: m})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Netdev != b.Netdev {
			return a.Netdev < b.Netdev
		}
		if a.Device != b.Device {
			return a.Device < b.Device
		}
		return a.Port < b.Port
	})
	return out
}

// portForNetdev picks the port of a multi-port function from the netdev's
// dev_port (0-based), or the only port.
func portForNetdev(d *Device, n *Netdev) int {
	if n.DevPort != nil {
		if _, ok := d.Port(*n.DevPort + 1); ok {
			return *n.DevPort + 1
		}
	}
	if len(d.Ports) == 1 {
		return d.Ports[0].Num
	}
	return 0
}

// portGUIDMatches compares the last 8 bytes of an IPoIB address with the
// port GUID (the interface id of GID 0), or the node GUID when the GID
// table was not read.
func portGUIDMatches(d *Device, p *Port, guid []byte) bool {
	for _, g := range p.GIDs {
		if g.Index == 0 {
			b := g.GID.As16()
			return bytes.Equal(b[8:], guid)
		}
	}
	if d.NodeGUID == nil {
		return false
	}
	var b [8]byte
	for i := range b {
		b[i] = byte(uint64(*d.NodeGUID) >> (56 - 8*i))
	}
	return bytes.Equal(b[:], guid)
}
