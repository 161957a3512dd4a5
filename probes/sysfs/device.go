package sysfs

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/rdmatop/rdmatop/probes"
)

// Device is one RDMA device under sys/class/infiniband.
type Device struct {
	Name string `json:"name"`
	// Driver is the kernel driver bound to the parent device (mlx5_core,
	// mlx5_ib.rdma, bnxt_en, ...) or, where there is no driver link, the
	// driver the name or the parent file implies (mlx5, rxe).
	Driver       string  `json:"driver,omitempty"`
	NodeType     *Enum   `json:"node_type,omitempty"`
	NodeGUID     *GUID   `json:"node_guid,omitempty"`
	SysImageGUID *GUID   `json:"sys_image_guid,omitempty"`
	FWVer        *string `json:"fw_ver,omitempty"` // present but empty on rxe
	HCAType      *string `json:"hca_type,omitempty"`
	HWRev        *string `json:"hw_rev,omitempty"`
	BoardID      *string `json:"board_id,omitempty"`
	NodeDesc     *string `json:"node_desc,omitempty"`
	// Parent is the netdev rxe runs over (its 'parent' file).
	Parent string `json:"parent,omitempty"`
	// DevicePath is the resolved sysfs directory of the parent device
	// (PCI function or auxiliary device); "" for virtual devices.
	DevicePath string      `json:"device_path,omitempty"`
	PCI        string      `json:"pci,omitempty"` // PCI address of the parent device
	Ports      []Port      `json:"ports"`
	Errors     []FileError `json:"errors,omitempty"`
}

// Port returns the port numbered n.
func (d *Device) Port(n int) (*Port, bool) {
	for i := range d.Ports {
		if d.Ports[i].Num == n {
			return &d.Ports[i], true
		}
	}
	return nil, false
}

// Discover reads every RDMA device, its ports and their GID tables. A
// host without sys/class/infiniband gives an error matching
// probes.ErrNotSupported; a device that disappears while being read is
// left out.
func Discover(fsys fs.FS) ([]Device, error) {
	names, err := DeviceNames(fsys)
	if err != nil {
		return nil, err
	}
	devs := make([]Device, 0, len(names))
	r := newResolver(fsys)
	for _, n := range names {
		d, err := readDevice(r, n)
		if errors.Is(err, ErrGone) {
			continue
		}
		if err != nil {
			return devs, err
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// DeviceNames lists sys/class/infiniband.
func DeviceNames(fsys fs.FS) ([]string, error) {
	ents, err := fs.ReadDir(fsys, ibClass)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no %s (no RDMA device, or ib_core not loaded): %w", ibClass, probes.ErrNotSupported)
	}
	if err != nil {
		return nil, permission(ibClass, err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, nil
}

// readDevice reads one device with all its ports. It fails with ErrGone
// when the device is not there.
func readDevice(r *resolver, name string) (Device, error) {
	fsys := r.fsys
	base := ibClass + "/" + name
	d := Device{Name: name}
	a := attrs{fsys: fsys, dir: base}
	a.prefetch("node_type", "node_guid", "sys_image_guid", "fw_ver", "hca_type", "hw_rev", "board_id", "node_desc", "parent")
	d.NodeType = parsed(&a, "node_type", ParseEnum)
	d.NodeGUID = parsed(&a, "node_guid", ParseGUID)
	d.SysImageGUID = parsed(&a, "sys_image_guid", ParseGUID)
	d.FWVer = strPtr(&a, "fw_ver")
	d.HCAType = strPtr(&a, "hca_type")
	d.HWRev = strPtr(&a, "hw_rev")
	d.BoardID = strPtr(&a, "board_id")
	d.NodeDesc = strPtr(&a, "node_desc")
	d.Parent, _ = a.str("parent")

	nums, err := portNums(fsys, name)
	if errors.Is(err, ErrGone) {
		return d, err
	}
	if err != nil { // ports/ unreadable: the device without its ports
		a.errs = append(a.errs, fileError(ibClass+"/"+name+"/ports", err))
	}
	d.DevicePath = ibDeviceDir(r, name)
	d.PCI = pciAddr(d.DevicePath)
	d.Driver = guessDriver(name, driverOf(fsys, d.DevicePath), d.Parent != "")
	for _, n := range nums {
		p, err := ReadPort(fsys, name, n)
		if errors.Is(err, ErrGone) {
			return d, err
		}
		d.Ports = append(d.Ports, p)
	}
	d.Errors = a.errs
	return d, nil
}

// portNums lists a device's ports, in order; ErrGone when the device is
// not there.
func portNums(fsys fs.FS, dev string) ([]int, error) {
	dir := ibClass + "/" + dev + "/ports"
	ents, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := fs.Stat(fsys, ibClass+"/"+dev); errors.Is(serr, fs.ErrNotExist) {
			return nil, &goneError{dev}
		}
		return nil, nil // a device without ports/ (never seen, but not ours to invent)
	}
	if err != nil {
		return nil, permission(dir, err)
	}
	nums := make([]int, 0, len(ents))
	for _, e := range ents {
		if n, err := parseInt(e.Name()); err == nil {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	return nums, nil
}

// namePrefixes maps kernel device names to their driver, for devices
// without a driver link (fixtures, virtual devices).
var namePrefixes = []struct{ prefix, driver string }{
	{"mlx5_", "mlx5"}, {"mlx4_", "mlx4"}, {"rxe", "rxe"}, {"siw", "siw"},
	{"bnxt_re", "bnxt_re"}, {"irdma", "irdma"}, {"erdma", "erdma"}, {"efa", "efa"},
	{"hns", "hns"}, {"qedr", "qedr"}, {"mana", "mana"},
}

func guessDriver(name, linked string, hasParent bool) string {
	if linked != "" {
		return linked
	}
	for _, p := range namePrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.driver
		}
	}
	if hasParent {
		return "rxe" // the 'parent' attribute is rxe's
	}
	return ""
}
