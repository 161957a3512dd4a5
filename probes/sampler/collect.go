package sampler

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/alias"
	"github.com/rdmatop/rdmatop/probes/dcb"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/probes/procinfo"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/rtnl"
	"github.com/rdmatop/rdmatop/probes/sysfs"
)

func procFS(root string) fs.FS { return os.DirFS(filepath.Join(root, "proc")) }

// tasks lists this sample's sources. sysfs decides which netdevs the
// per-netdev sources read, so they wait for it inside their own task;
// everything else runs side by side.
func (s *Sampler) tasks(c *collected) []probes.Task {
	var mu sync.Mutex // guards c between tasks
	sysDone := make(chan struct{})
	t := s.opt.Timeout
	netdevs := func(ctx context.Context) ([]string, error) {
		select {
		case <-sysDone:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		mu.Lock()
		defer mu.Unlock()
		return s.selectedNetdevs(c), nil
	}
	var list []probes.Task
	list = append(list, probes.Task{Name: "sysfs", Timeout: t, Run: func(ctx context.Context) error {
		defer close(sysDone)
		return s.readSysfs(c, &mu)
	}})
	if s.src.Ethtool != nil {
		list = append(list, probes.Task{Name: "ethtool", Timeout: t, Run: func(ctx context.Context) error {
			nds, err := netdevs(ctx)
			if err != nil {
				return err
			}
			out := map[string]ethtool.Raw{}
			var errs []error
			for _, n := range nds {
				raw, err := ethtool.Read(s.src.Ethtool, n)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				out[n] = raw
			}
			mu.Lock()
			c.ethtool = out
			mu.Unlock()
			return joinSome(errs, len(nds))
		}})
	}
	if s.src.Links != nil {
		list = append(list, probes.Task{Name: "rtnetlink", Timeout: t, Run: func(ctx context.Context) error {
			nds, err := netdevs(ctx)
			if err != nil {
				return err
			}
			var errs []error
			for _, n := range nds {
				l, err := s.src.Links.Link(n)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				mu.Lock()
				if c.rtnl == nil {
					c.rtnl = map[string]rtnl.Link{}
				}
				c.rtnl[n] = l
				mu.Unlock()
			}
			return joinSome(errs, len(nds))
		}})
	}
	if s.src.DCB != nil {
		list = append(list, probes.Task{Name: "dcb", Timeout: t, Run: func(ctx context.Context) error {
			nds, err := netdevs(ctx)
			if err != nil {
				return err
			}
			var errs []error
			for _, n := range nds {
				cfg, raw, err := dcb.Probe(s.src.DCB, n)
				mu.Lock()
				if c.dcbRaw == nil {
					c.dcbRaw = map[string]dcb.Raw{}
				}
				c.dcbRaw[n] = raw
				mu.Unlock()
				if err != nil {
					errs = append(errs, err)
					continue
				}
				mu.Lock()
				if c.dcb == nil {
					c.dcb = map[string]dcb.Config{}
				}
				c.dcb[n] = cfg
				mu.Unlock()
			}
			return joinSome(errs, len(nds))
		}})
	}
	list = append(list, probes.Task{Name: "rdma netlink", Timeout: t, Run: func(ctx context.Context) error {
		if s.src.RDMA == nil {
			return fmt.Errorf("no RDMA netlink connection: %w", probes.ErrNotSupported)
		}
		cl := rdmanl.Client{Conn: s.src.RDMA}
		if s.src.ProcRoot != "" {
			cl.Comm = rdmanl.CommFromProc(procFS(s.src.ProcRoot))
		}
		smp, err := cl.Sample()
		r := &rdmaResult{devices: smp.Devices, qps: smp.QPs}
		// Hardware counters through STAT_GET where sysfs has none (e.g.
		// a container without the device's sysfs directory).
		select {
		case <-sysDone:
		case <-ctx.Done():
		}
		for _, p := range smp.Ports {
			mu.Lock()
			have := false
			for _, set := range c.counters {
				if set.Device == p.Dev && set.Port == int(p.Index) && len(set.Counters) > 0 {
					have = true
				}
			}
			mu.Unlock()
			if have {
				continue
			}
			if st, serr := cl.PortStats(p.DevIndex, p.Index); serr == nil {
				if r.stats == nil {
					r.stats = map[string]rdmanl.PortStats{}
				}
				r.stats[portKey(p.Dev, int(p.Index))] = st
			}
		}
		if err != nil && len(smp.Devices) > 0 {
			// Some devices failed: keep the others, remember which failed
			// so their QPs are not taken for destroyed.
			for _, d := range smp.Devices {
				if !slices.ContainsFunc(smp.QPs, func(q rdmanl.QP) bool { return q.DevIndex == d.Index }) {
					r.failed = append(r.failed, d.Index)
				}
			}
		}
		mu.Lock()
		if err == nil || len(smp.Devices) > 0 {
			c.rdma = r
		}
		mu.Unlock()
		return err
	}})
	if s.src.Kmsg != nil {
		list = append(list, probes.Task{Name: "kmsg", Timeout: t, Run: func(ctx context.Context) error {
			b, err := s.src.Kmsg.Poll()
			if err != nil {
				return err
			}
			var recs []kmsg.Record
			for _, raw := range b.Raw {
				if r, err := kmsg.ParseRecord(raw); err == nil {
					recs = append(recs, r)
				}
			}
			mu.Lock()
			c.kmsg, c.kmsgLost, c.kmsgBatch = recs, b.Lost, &b
			mu.Unlock()
			return nil
		}})
	}
	if s.src.ProcRoot != "" {
		list = append(list, probes.Task{Name: "proc", Timeout: t, Run: func(ctx context.Context) error {
			p, err := procinfo.New(s.src.ProcRoot, procinfo.Options{})
			if err != nil {
				return err
			}
			m, err := p.Memory()
			if err != nil {
				return err
			}
			fr, ferr := p.Fragmentation()
			var mc probes.MemoryConfig
			if ferr == nil {
				mc = m.Snapshot(&fr)
			} else {
				mc = m.Snapshot(nil)
			}
			mu.Lock()
			c.memory = &mc
			mu.Unlock()
			return ferr
		}})
	}
	return list
}

// joinSome reports per-netdev errors; when every netdev failed the same
// way (not supported, permission) that is the source's state.
func joinSome(errs []error, n int) error {
	if len(errs) == 0 {
		return nil
	}
	if len(errs) == n {
		return errors.Join(errs...)
	}
	return fmt.Errorf("%d of %d netdevs: %w", len(errs), n, errors.Join(errs...))
}

func (s *Sampler) readSysfs(c *collected, mu *sync.Mutex) error {
	if s.src.FS == nil {
		return fmt.Errorf("no /sys: %w", probes.ErrNotSupported)
	}
	devs, err := s.devices()
	if err != nil {
		return err
	}
	devs = s.filterDevices(devs)
	sets, cerr := sysfs.ReadAllCounters(s.src.FS, devs)
	// Which netdevs belong to the ports is settled at full discovery (it
	// may need every netdev's device link); each sample then reads only
	// those.
	if s.linkCache == nil || s.fullDiscovery {
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
		all, _ := sysfs.Netdevs(s.src.FS)
		names = append(names, all...)
		slices.Sort(names)
		names = slices.Compact(names)
		nds, _ := sysfs.ReadNetdevs(s.src.FS, names)
		s.linkCache = sysfs.LinksFrom(devs, nds)
	}
	links := s.linkCache
	var linked []string
	for _, l := range links {
		linked = append(linked, l.Netdev)
	}
	slices.Sort(linked)
	nds, _ := sysfs.ReadNetdevs(s.src.FS, slices.Compact(linked))
	// Congestion-control settings are configuration: read with the full
	// discovery, not every sample.
	if s.ecnCache == nil || s.fullDiscovery {
		s.ecnCache = map[string]sysfs.ECN{}
		for _, l := range links {
			if e, err := sysfs.ReadECN(s.src.FS, l.Netdev); err == nil {
				s.ecnCache[l.Netdev] = e
			}
		}
	}
	ecn := s.ecnCache
	if s.ccCache == nil || s.fullDiscovery {
		s.ccCache = map[string]sysfs.CCParams{}
		for _, d := range devs {
			if d.PCI == "" || alias.Driver(d.Driver) != "mlx5" {
				continue
			}
			cc, err := sysfs.ReadCCParams(s.src.FS, d.PCI)
			switch {
			case err == nil:
				s.ccCache[d.Name] = cc
			case errors.Is(err, os.ErrPermission):
				mu.Lock()
				c.extraStatus = append(c.extraStatus, probes.StatusOf("debugfs cc_params", err))
				mu.Unlock()
			}
		}
	}
	cc := s.ccCache
	mu.Lock()
	c.devs, c.counters, c.netdevs, c.links, c.ecn, c.cc = devs, sets, nds, links, ecn, cc
	mu.Unlock()
	return cerr
}

// filterDevices applies -d and -i.
func (s *Sampler) filterDevices(devs []sysfs.Device) []sysfs.Device {
	if s.opt.Device == "" && s.opt.Netdev == "" {
		return devs
	}
	var out []sysfs.Device
	for _, d := range devs {
		if s.opt.Device != "" && d.Name != s.opt.Device {
			continue
		}
		if s.opt.Netdev != "" && !deviceHasNetdev(d, s.opt.Netdev) {
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
func (s *Sampler) selectedNetdevs(c *collected) []string {
	var out []string
	for _, l := range c.links {
		if s.opt.Netdev == "" || l.Netdev == s.opt.Netdev {
			out = append(out, l.Netdev)
		}
	}
	if s.opt.Netdev != "" && !slices.Contains(out, s.opt.Netdev) {
		out = append(out, s.opt.Netdev)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// memlock reads the locked-memory limit of every process that owns a QP.
func (s *Sampler) memlock(c *collected) {
	if c.rdma == nil || s.src.ProcRoot == "" {
		return
	}
	p, err := procinfo.New(s.src.ProcRoot, procinfo.Options{})
	if err != nil {
		return
	}
	var pids []int
	for _, q := range c.rdma.qps {
		if q.HasPID && !slices.Contains(pids, int(q.PID)) {
			pids = append(pids, int(q.PID))
		}
	}
	procs, _, _ := p.Processes(pids)
	c.procs = map[uint32]procFacts{}
	for _, pr := range procs {
		soft, unl := pr.MemlockSnapshot()
		c.procs[uint32(pr.PID)] = procFacts{soft: soft, unlimited: unl}
	}
}

// gidEvery is how often (in samples) the GID tables are read again: a full
// table is hundreds of files, and GIDs change rarely (address changes).
const gidEvery = 10

// devices discovers the RDMA devices in full on the first sample, every
// gidEvery samples and whenever the device list changes; in between it
// reads only each port's state and keeps the GID tables it has.
func (s *Sampler) devices() ([]sysfs.Device, error) {
	s.fullDiscovery = false
	names, err := sysfs.DeviceNames(s.src.FS)
	if err != nil {
		s.devCache = nil
		return nil, err
	}
	if s.devCache != nil && s.ticks%gidEvery != 0 && slices.Equal(names, s.devCacheNames) {
		devs := make([]sysfs.Device, len(s.devCache))
		copy(devs, s.devCache)
		ok := true
		for i := range devs {
			ports := make([]sysfs.Port, len(devs[i].Ports))
			for j, p := range devs[i].Ports {
				np, err := sysfs.ReadPortState(s.src.FS, devs[i].Name, p.Num)
				if err != nil {
					ok = false
					break
				}
				np.GIDs, np.PKeys = p.GIDs, p.PKeys
				ports[j] = np
			}
			devs[i].Ports = ports
		}
		if ok {
			return devs, nil
		}
	}
	devs, err := sysfs.Discover(s.src.FS)
	if err != nil {
		s.devCache = nil
		return nil, err
	}
	s.devCache, s.devCacheNames = devs, names
	s.fullDiscovery = true
	return devs, nil
}
