package kmsg

import (
	"strings"

	"github.com/rdmatop/rdmatop/internal/lazyre"
)

// Device names in kernel log prefixes.
//
// dev_printk prints "<driver> <device>: " (for an RDMA device's own struct
// device, "infiniband <ibdev>: "); netdev_printk prints "<driver> <parent>
// <netdev>[ (state)]: "; ibdev_printk (drivers/infiniband/core/device.c)
// prints "<parent driver> <parent> <ibdev>: ", the parent being the PCI
// function (mlx5_core, bnxt_en, ice/i40e for irdma) or an auxiliary
// device. So the third name is a netdev or an RDMA device, and only its
// form tells which.
var (
	rePrefix = lazyre.New(`^([A-Za-z0-9_.-]+) (` + pciPattern + `|[A-Za-z0-9_.-]+)(?: ([A-Za-z0-9_.@-]+|\(unnamed net_device\))(?: \((?:unregistered|unregistering|uninitialized|unknown state)\))?)?: `)
	rePCI    = lazyre.New(`\b` + pciPattern + `\b`)
	// Kernel RDMA device names ("mlx5_0", "bnxt_re0", "irdma1", "rxe0",
	// ...) and the names rdma-core's udev rules give them (rdma_rename):
	// a link-layer prefix (roce, ib, iw) then onboard index (o1), hotplug
	// slot (s1f0), PCI path with optional domain (p59s0f0, P1p2s0f1) or
	// MAC (x0002c9a0b1c2), with optional function and port suffixes.
	reRDMAName = lazyre.New(`^(?:(?:mlx4|mlx5|efa|erdma|hns|hfi1|cxgb4|usnic|mana|ionic|bng_re)_\d+|(?:bnxt_re|irdma|i40iw|rxe|siw|qedr|qib|mthca|ocrdma|vmw_pvrdma)\d+|(?:roce|ib|iw)(?:P\d+)?(?:o\d+|s\d+|p\d+s\d+|x[0-9a-f]{12})(?:f\d+)?(?:d\d+)?)$`)
)

// A PCI address: domain (4 hex digits, more behind a VMD or on some
// hypervisors), bus, device, function.
const pciPattern = `[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]`

// isRDMAName reports whether name has the form of an RDMA device name.
func isRDMAName(name string) bool {
	return reRDMAName().MatchString(name)
}

// isRDMADriver reports whether driver only prints for RDMA devices, so
// that the name after its device is an RDMA device whatever its form
// (auxiliary drivers such as "mlx5_ib.rdma", "bnxt_re.rdma", "irdma.gen_2").
func isRDMADriver(driver string) bool {
	for _, p := range []string{"mlx5_ib", "mlx4_ib", "bnxt_re", "irdma", "i40iw", "rdma_rxe", "siw"} {
		if driver == p || strings.HasPrefix(driver, p+".") {
			return true
		}
	}
	return false
}

// fillDevice takes driver, device and netdev or RDMA device from the
// printk prefix and, failing that, from the record's dictionary.
func fillDevice(e *Event, msg string) {
	if m := rePrefix().FindStringSubmatch(msg); m != nil {
		driver, dev, third := m[1], m[2], m[3]
		e.Driver = driver
		switch {
		case rePCI().MatchString(dev):
			e.PCI = dev
		case driver == "infiniband":
			e.IBDev = dev
		}
		switch {
		case third == "" || strings.HasPrefix(third, "("):
		case isRDMADriver(driver):
			e.IBDev = third
		case isRDMAName(third) && !strings.HasPrefix(third, "ib"):
			// An "ib…" name here is as often the IPoIB netdev that
			// systemd named alike ("mlx4_core 0000:c3:00.0 ibp195s0:
			// renamed from ib0"): left as the netdev, for a DeviceMap.
			e.IBDev = third
		default:
			e.Netdev = third
		}
	} else if m := reModulePrefix().FindStringSubmatch(msg); m != nil {
		e.Driver = m[1]
	}
	if e.PCI == "" {
		e.PCI = rePCI().FindString(msg)
	}
	// /dev/kmsg dictionary: DEVICE=+pci:0000:3b:00.0, +infiniband:mlx5_0.
	if d := e.Dict["DEVICE"]; d != "" {
		if v, ok := strings.CutPrefix(d, "+pci:"); ok && e.PCI == "" {
			e.PCI = v
		}
		if v, ok := strings.CutPrefix(d, "+infiniband:"); ok && e.IBDev == "" {
			e.IBDev = v
		}
	}
}
