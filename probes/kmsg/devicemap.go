package kmsg

// DeviceMap says which RDMA device a PCI function or a netdev belongs to,
// as the caller learnt it from the same host (sysfs
// /sys/class/infiniband/*/device, `rdma link`, `ibdev2netdev`). Kernel
// messages often name only the PCI address ("mlx5_core 0000:5c:00.0:
// ...") or the netdev; with a map their events can be put on the RDMA
// device. The zero value maps nothing.
type DeviceMap struct {
	ByPCI    map[string]string // PCI address ("0000:3b:00.0") → RDMA device
	ByNetdev map[string]string // netdev ("enp59s0f0np0") → RDMA device
}

// Resolve returns the RDMA device e concerns: the one it names, else the
// one its netdev or PCI address maps to (the netdev first: a PCI function
// can carry several ports, a netdev only one). A netdev name that is
// itself one of the map's RDMA devices is taken as such (an "ib…" name
// left as a netdev because systemd names IPoIB netdevs alike). ok is false
// when nothing maps.
func (m DeviceMap) Resolve(e Event) (ibdev string, ok bool) {
	if e.IBDev != "" {
		return e.IBDev, true
	}
	if e.Netdev != "" {
		if d, ok := m.ByNetdev[e.Netdev]; ok && d != "" {
			return d, true
		}
		if m.isIBDev(e.Netdev) {
			return e.Netdev, true
		}
	}
	if e.PCI != "" {
		if d, ok := m.ByPCI[e.PCI]; ok && d != "" {
			return d, true
		}
	}
	return "", false
}

// Fill sets e.IBDev from Resolve when the event names no RDMA device, and
// reports whether e now names one.
func (m DeviceMap) Fill(e *Event) bool {
	d, ok := m.Resolve(*e)
	if ok {
		e.IBDev = d
	}
	return ok
}

func (m DeviceMap) isIBDev(name string) bool {
	for _, mm := range []map[string]string{m.ByNetdev, m.ByPCI} {
		for _, d := range mm {
			if d == name {
				return true
			}
		}
	}
	return false
}
