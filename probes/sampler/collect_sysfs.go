package sampler

// The sysfs task: RDMA devices, their counters and netdevs, discovered in
// full now and then and cheaply in between.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/alias"
	"github.com/rdmatop/rdmatop/probes/fsrec"
	"github.com/rdmatop/rdmatop/probes/sysfs"
)

// sysfsResult is what the sysfs task read, and what it learned for the
// next samples.
type sysfsResult struct {
	devsOK   bool
	devs     []sysfs.Device
	counters []sysfs.CounterSet
	netdevs  []sysfs.Netdev
	links    []sysfs.Link
	ecn      map[string]sysfs.ECN
	cc       map[string]sysfs.CCParams
	gpudir   *probes.GPUDirectConfig
	extra    []probes.Status
	files    fsrec.Tree
	// hung are the files that did not answer (see fileGuard), the
	// oldest stuck since hungSince.
	hung      []string
	hungSince time.Time

	devCache      []sysfs.Device
	devCacheNames []string
	linksKnown    bool
}

// commitSysfs hands a sysfs result over to the sample and keeps what it
// learned for the next ones.
func (s *Sampler) commitSysfs(c *collected, r *sysfsResult) {
	c.sysfs, c.devsOK = true, r.devsOK
	c.devs, c.counters, c.netdevs, c.links, c.ecn, c.cc = r.devs, r.counters, r.netdevs, r.links, r.ecn, r.cc
	c.gpudir = r.gpudir
	c.extraStatus = append(c.extraStatus, r.extra...)
	c.files = r.files
	for _, set := range r.counters {
		for _, ce := range set.Errors {
			if ce.Kind != sysfs.KindHung || ce.Name == "" {
				continue
			}
			if c.hungCounters == nil {
				c.hungCounters = map[string]map[string]bool{}
			}
			k := portKey(set.Device, set.Port)
			if c.hungCounters[k] == nil {
				c.hungCounters[k] = map[string]bool{}
			}
			c.hungCounters[k][string(ce.Source)+"\x00"+ce.Name] = true
		}
	}
	c.hungSince = r.hungSince
	s.devCache, s.devCacheNames = r.devCache, r.devCacheNames
	if !r.devsOK {
		// Nothing to go by: the next sample's netdev sources wait for
		// sysfs again rather than read stale netdevs.
		s.linkCache, s.linksKnown = nil, false
		return
	}
	s.linkCache, s.linksKnown = r.links, r.linksKnown
	s.ecnCache, s.ccCache = r.ecn, r.cc
	s.hwPorts = map[string]bool{}
	for _, set := range r.counters {
		if len(set.Counters) > 0 {
			s.hwPorts[portKey(set.Device, set.Port)] = true
		}
	}
}

// readSysfs discovers the devices (see devices), publishes the netdev ↔
// port links as soon as it knows them, then reads the counters, the
// netdevs and the congestion-control settings.
func (e *env) readSysfs(fsys fs.FS, links *handoff[linkAnswer]) (*sysfsResult, error) {
	r := &sysfsResult{devCache: e.devCache, devCacheNames: e.devCacheNames}
	if fsys == nil {
		return r, fmt.Errorf("no /sys: %w", probes.ErrNotSupported)
	}
	if e.record {
		rec := fsrec.NewRecorder(fsys)
		fsys = rec
		defer func() { r.files = rec.Take() }()
	}
	devs, full, err := e.devices(fsys, r)
	if err != nil {
		return r, err
	}
	r.devsOK = true
	devs = filterDevices(devs, e.opt)
	// Which netdevs belong to the ports is settled at full discovery (it
	// may need every netdev's device link); each sample then reads only
	// those.
	r.links = e.linkCache
	if !e.linksKnown || full {
		r.links = discoverLinks(fsys, devs)
	}
	r.linksKnown = true
	links.put(linkAnswer{r.links, true})
	r.devs = devs
	sets, cerr := sysfs.ReadAllCounters(fsys, devs)
	r.counters = sets
	var linked []string
	for _, l := range r.links {
		linked = append(linked, l.Netdev)
	}
	slices.Sort(linked)
	r.netdevs, _ = sysfs.ReadNetdevs(fsys, slices.Compact(linked))
	// Congestion-control settings are configuration: read with the full
	// discovery, not every sample.
	r.ecn, r.cc = e.ecnCache, e.ccCache
	if r.ecn == nil || full {
		r.ecn = readECN(fsys, r.links)
	}
	if r.cc == nil || full {
		r.cc = readCC(fsys, devs, r)
	}
	r.gpudir = readGPUDirect(fsys)
	return r, cerr
}

// readGPUDirect reads which GPUDirect RDMA modules are loaded: three
// stats a sample, as modules come and go with driver installs. Nil when
// /sys/module cannot be read.
func readGPUDirect(fsys fs.FS) *probes.GPUDirectConfig {
	loaded, ok, err := sysfs.ReadModules(fsys, append([]string{"nvidia"}, sysfs.PeerMemModules...)...)
	if !ok || err != nil {
		return nil
	}
	g := &probes.GPUDirectConfig{}
	for _, m := range loaded {
		if m == "nvidia" {
			g.NVIDIA = true
		} else {
			g.PeerMem = append(g.PeerMem, m)
		}
	}
	return g
}

// discoverLinks works out which netdev belongs to which port: from the
// devices' parents and GID tables, and every netdev's device link.
func discoverLinks(fsys fs.FS, devs []sysfs.Device) []sysfs.Link {
	var names []string
	for _, d := range devs {
		if d.Parent != "" {
			names = append(names, d.Parent)
		}
		for _, p := range d.Ports {
			for _, g := range p.GIDs {
				if g.Netdev != "" {
					names = append(names, g.Netdev)
				}
			}
		}
	}
	all, _ := sysfs.Netdevs(fsys)
	names = append(names, all...)
	slices.Sort(names)
	names = slices.Compact(names)
	nds, _ := sysfs.ReadNetdevs(fsys, names)
	return sysfs.LinksFrom(devs, nds)
}

// readECN reads the ECN settings of the ports' netdevs.
func readECN(fsys fs.FS, links []sysfs.Link) map[string]sysfs.ECN {
	ecn := map[string]sysfs.ECN{}
	for _, l := range links {
		if ec, err := sysfs.ReadECN(fsys, l.Netdev); err == nil {
			ecn[l.Netdev] = ec
		}
	}
	return ecn
}

// readCC reads the mlx5 devices' congestion-control parameters (debugfs);
// a permission refused is noted in r, as a status of its own.
func readCC(fsys fs.FS, devs []sysfs.Device, r *sysfsResult) map[string]sysfs.CCParams {
	cc := map[string]sysfs.CCParams{}
	for _, d := range devs {
		if d.PCI == "" || alias.Driver(d.Driver) != "mlx5" {
			continue
		}
		p, err := sysfs.ReadCCParams(fsys, d.PCI)
		switch {
		case err == nil:
			cc[d.Name] = p
		case errors.Is(err, os.ErrPermission):
			r.extra = append(r.extra, probes.StatusOf("debugfs cc_params", err))
		}
	}
	return cc
}

// filterDevices applies -d and -i.
func filterDevices(devs []sysfs.Device, opt Options) []sysfs.Device {
	if opt.Device == "" && opt.Netdev == "" {
		return devs
	}
	var out []sysfs.Device
	for _, d := range devs {
		if opt.Device != "" && d.Name != opt.Device {
			continue
		}
		if opt.Netdev != "" && !deviceHasNetdev(d, opt.Netdev) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func deviceHasNetdev(d sysfs.Device, nd string) bool {
	if d.Parent == nd {
		return true
	}
	for _, l := range sysfs.LinksFrom([]sysfs.Device{d}, nil) {
		if l.Netdev == nd {
			return true
		}
	}
	return false
}

// selectedNetdevs are the netdevs the per-netdev sources read: those tied
// to the sampled RDMA ports, or -i's even when it has no RDMA port.
func selectedNetdevs(links []sysfs.Link, opt Options) []string {
	var out []string
	for _, l := range links {
		if opt.Netdev == "" || l.Netdev == opt.Netdev {
			out = append(out, l.Netdev)
		}
	}
	if opt.Netdev != "" && !slices.Contains(out, opt.Netdev) {
		out = append(out, opt.Netdev)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// gidEvery is how often (in samples) the GID tables are read again: a full
// table is hundreds of files, and GIDs change rarely (address changes,
// which rtnetlink announces: then the tables are read at once; and the
// table of a port that changes state is read at once, see devices). The
// schedule is for hosts where the announcements cannot be followed.
const gidEvery = 10

// devices discovers the RDMA devices in full on the first sample, every
// gidEvery samples, whenever the device list changes and whenever an
// address changed since the last sample (rtnetlink announced it); in between it
// reads only each port's state and keeps the GID tables it has, except
// that it reads again the table of a port whose state changed. The cache
// it leaves for the next sample goes into r; full says it rediscovered.
func (e *env) devices(fsys fs.FS, r *sysfsResult) (devs []sysfs.Device, full bool, err error) {
	names, err := sysfs.DeviceNames(fsys)
	if err != nil {
		r.devCache, r.devCacheNames = nil, nil
		return nil, false, err
	}
	if e.devCache != nil && !e.rereadGIDs && e.ticks%gidEvery != 0 && slices.Equal(names, e.devCacheNames) {
		devs := slices.Clone(e.devCache)
		ok, moved := true, false
		for i := range devs {
			ports := make([]sysfs.Port, len(devs[i].Ports))
			for j, p := range devs[i].Ports {
				np, err := sysfs.ReadPortState(fsys, devs[i].Name, p.Num)
				if err != nil {
					ok = false
					break
				}
				np.GIDs, np.PKeys = p.GIDs, p.PKeys
				if !sameEnum(np.State, p.State) || !sameEnum(np.PhysState, p.PhysState) {
					// A port that went down or came up re-registers its
					// GIDs, maybe at other indexes: its table is read
					// again now (kept when it cannot be listed).
					if g, read := sysfs.ReadPortGIDs(fsys, devs[i].Name, p.Num); read {
						np.GIDs = g
					}
					moved = true
				}
				ports[j] = np
			}
			devs[i].Ports = ports
		}
		if ok {
			if moved {
				r.devCache = devs // the states and tables to compare the next sample with
			}
			return devs, false, nil
		}
	}
	devs, err = sysfs.Discover(fsys)
	if err != nil {
		r.devCache, r.devCacheNames = nil, nil
		return nil, false, err
	}
	r.devCache, r.devCacheNames = devs, names
	return devs, true, nil
}

func sameEnum(a, b *sysfs.Enum) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
