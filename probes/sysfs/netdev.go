package sysfs

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
)

// ARPHRD types of netdevs rdmatop meets.
const (
	ARPHRDEther      = 1
	ARPHRDInfiniband = 32
)

// Netdev is what sys/class/net/<name> says about a netdev.
type Netdev struct {
	Name    string `json:"name"`
	IfIndex *int   `json:"ifindex,omitempty"`
	MTU     *int   `json:"mtu,omitempty"`
	// OperState is the RFC 2863 state: up, down, lowerlayerdown, ...
	OperState *string `json:"operstate,omitempty"`
	// Carrier is absent when the kernel will not say (EINVAL when the
	// interface is administratively down).
	Carrier *bool `json:"carrier,omitempty"`
	// SpeedMbps is absent when the link is down (the kernel prints -1 or
	// fails with EINVAL) or the driver has no speed.
	SpeedMbps      *int    `json:"speed_mbps,omitempty"`
	Address        HWAddr  `json:"address,omitempty"` // 20 bytes for IPoIB
	Type           *int    `json:"type,omitempty"`    // ARPHRD: 1 Ethernet, 32 InfiniBand
	CarrierChanges *uint64 `json:"carrier_changes,omitempty"`
	DevPort        *int    `json:"dev_port,omitempty"` // 0-based port of a multi-port function
	// DevicePath is the resolved sysfs directory of the parent device;
	// "" for virtual netdevs (veth, bond, vlan).
	DevicePath string      `json:"device_path,omitempty"`
	PCI        string      `json:"pci,omitempty"`
	Driver     string      `json:"driver,omitempty"` // driver of the parent device (mlx5_core, ...)
	Errors     []FileError `json:"errors,omitempty"`
}

// HWAddr is a link-layer address, written "b8:ce:f6:5a:3c:10" in JSON.
type HWAddr []byte

func (a HWAddr) String() string { return net.HardwareAddr(a).String() }

// MarshalText writes the colon form.
func (a HWAddr) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// Netdevs lists sys/class/net. A root without it gives no names and no
// error.
func Netdevs(fsys fs.FS) ([]string, error) {
	ents, err := fs.ReadDir(fsys, netClass)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, permission(netClass, err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, nil
}

// ReadNetdev reads a netdev's attributes. A netdev that is not there
// gives an error matching fs.ErrNotExist.
func ReadNetdev(fsys fs.FS, name string) (Netdev, error) {
	return readNetdev(newResolver(fsys), name)
}

// ReadNetdevs reads the named netdevs (all of sys/class/net when names is
// nil); netdevs that are gone by the time they are read are left out.
func ReadNetdevs(fsys fs.FS, names []string) ([]Netdev, error) {
	if names == nil {
		var err error
		if names, err = Netdevs(fsys); err != nil {
			return nil, err
		}
	}
	r := newResolver(fsys)
	out := make([]Netdev, 0, len(names))
	for _, n := range names {
		nd, err := readNetdev(r, n)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, nd)
	}
	return out, nil
}

func readNetdev(r *resolver, name string) (Netdev, error) {
	fsys := r.fsys
	dir := netClass + "/" + name
	n := Netdev{Name: name}
	if _, err := fs.Stat(fsys, dir); err != nil {
		return n, fmt.Errorf("netdev %s: %w", name, permission(dir, err))
	}
	a := attrs{fsys: fsys, dir: dir}
	a.prefetch("ifindex", "mtu", "operstate", "carrier", "speed", "address", "type", "carrier_changes", "dev_port")
	n.IfIndex = parsed(&a, "ifindex", parseInt)
	n.MTU = parsed(&a, "mtu", parseInt)
	n.OperState = strPtr(&a, "operstate")
	if s, ok := a.strOrNone("carrier"); ok {
		switch s {
		case "0", "1":
			c := s == "1"
			n.Carrier = &c
		default:
			a.errs = append(a.errs, parseError(dir+"/carrier", fmt.Errorf("%q is not 0 or 1", s)))
		}
	}
	if s, ok := a.strOrNone("speed"); ok {
		v, err := parseInt(s)
		switch {
		case err != nil:
			a.errs = append(a.errs, parseError(dir+"/speed", err))
		case v >= 0: // -1 (SPEED_UNKNOWN) when down
			n.SpeedMbps = &v
		}
	}
	if s, ok := a.str("address"); ok && s != "" {
		hw, err := net.ParseMAC(s)
		if err != nil {
			a.errs = append(a.errs, parseError(dir+"/address", err))
		} else {
			n.Address = HWAddr(hw)
		}
	}
	n.Type = parsed(&a, "type", parseInt)
	n.CarrierChanges = parsed(&a, "carrier_changes", ParseCounter)
	n.DevPort = parsed(&a, "dev_port", parseInt)
	if p, err := r.realPath(dir + "/device"); err == nil {
		n.DevicePath = p
		n.PCI = pciAddr(p)
		n.Driver = driverOf(fsys, p)
	}
	n.Errors = a.errs
	return n, nil
}
