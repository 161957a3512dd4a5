package saved

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/sampler"
)

// isSysfsRoot: a directory holding a copy of a host's /sys (sys/class/
// infiniband or sys/class/net at its top), as `--root` reads it. Its
// class directories are symbolic links into sys/devices, so it is read by
// the host probes themselves, not file by file.
func isSysfsRoot(dir string) bool {
	for _, c := range []string{"infiniband", "net"} {
		if st, err := os.Stat(filepath.Join(dir, "sys", "class", c)); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// sysfsRoot reads a sysfs-style tree with the host probes (one sample) and
// adds what they found to the model.
func (l *loader) sysfsRoot(root string) Input {
	in := Input{Path: root, Kind: KindSysfsTree}
	s := sampler.New(sampler.TreeSources(root), sampler.Options{}).Sample(context.Background(), time.Time{})
	l.fromSnapshot(s, &in)
	for _, st := range s.Status {
		if st.State != probes.StateOK && st.Detail != "" && st.State != probes.StateNotSupported {
			in.ignore("%s: %s", st.Source, st.Detail)
		}
	}
	if len(in.Read) == 0 {
		in.ignore("no RDMA device or netdev in it")
	}
	return in
}

// fromSnapshot adds a sample's devices, ports (one reading each), GIDs and
// configuration to the model.
func (l *loader) fromSnapshot(s *probes.Snapshot, in *Input) {
	if s.Host.Hostname != "" {
		l.h.hostname = s.Host.Hostname
	}
	if s.Host.Kernel != "" {
		l.h.kernel = s.Host.Kernel
	}
	for _, d := range s.Devices {
		*l.h.device(d.Name) = d
	}
	for _, p := range s.Ports {
		pf := l.h.port(p.Device, p.Port)
		pf.netdev, pf.state, pf.phys, pf.linkLayer = p.Netdev, p.State, p.PhysState, p.LinkLayer
		cs := make([]probes.Counter, 0, len(p.Counters))
		for _, c := range p.Counters {
			c.Delta, c.Rate, c.Note = nil, nil, ""
			cs = append(cs, c)
		}
		pf.readings = mergeReading(pf.readings, reading{counters: cs})
		if p.MTU != nil && p.Netdev != "" {
			l.h.netdev(p.Netdev).mtu = p.MTU
		}
		in.read("%s port %d%s: %s, %s", p.Device, p.Port, onNetdev(p.Netdev), orUnknown(p.State), plural(len(cs), "counter"))
	}
	l.h.gids = append(l.h.gids, s.Config.GIDs...)
	l.h.ecn = append(l.h.ecn, s.Config.ECN...)
	for _, d := range s.Config.DCB {
		l.h.dcb[d.Netdev] = d
	}
}

func onNetdev(nd string) string {
	if nd == "" {
		return ""
	}
	return " on " + nd
}
