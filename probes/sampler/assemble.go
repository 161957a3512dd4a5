package sampler

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/alias"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/sysfs"
)

func (s *Sampler) assemble(c *collected, now time.Time) *probes.Snapshot {
	snap := &probes.Snapshot{Time: now, Host: s.src.Host, Devices: []probes.Device{}, Ports: []probes.Port{},
		QPs: []probes.QP{}, Events: []probes.Event{}, Config: probes.Config{GIDs: []probes.GID{}}}
	snap.Host.Source = s.src.Label
	var dt float64
	if s.prev != nil {
		dt = now.Sub(s.prev.Time).Seconds()
		snap.Interval = dt
	}
	netdevOf := portNetdevs(c)
	nds := map[string]sysfs.Netdev{}
	for _, n := range c.netdevs {
		nds[n.Name] = n
	}
	for _, d := range c.devs {
		snap.Devices = append(snap.Devices, probes.Device{Name: d.Name, NodeType: enumName(d.NodeType),
			NodeGUID: guidString(d), FW: deref(d.FWVer), HCAType: deref(d.HCAType), BoardID: deref(d.BoardID),
			Driver: alias.Driver(d.Driver), Ports: len(d.Ports)})
		for _, p := range d.Ports {
			nd := netdevOf[portKey(d.Name, p.Num)]
			port := sysfsPort(c, d, p, nd, nds)
			s.finishPort(c, &port, now, dt)
			snap.Ports = append(snap.Ports, port)
			for _, g := range p.GIDs {
				snap.Config.GIDs = append(snap.Config.GIDs, probes.GID{Device: d.Name, Port: p.Num, Index: g.Index,
					GID: g.GID.String(), Type: string(g.Type), Netdev: g.Netdev})
			}
		}
	}
	sel, known := s.selectionOf(c)
	s.netlinkPorts(c, sel, snap, now, dt)
	snap.RDMABalance = balanceView(snap.Ports)
	s.configViews(c, snap)
	if sel != nil && known && c.devsOK {
		s.selected = sel
	}
	qps, qpsKnown := selectQPs(c, sel, known)
	s.qpView(c, qps, snap)
	s.events(c, qps, qpsKnown, sel, snap)
	return snap
}

// portNetdevs maps "dev/port" to the port's netdev: the GID table's
// netdev, the parent rather than a VLAN, where the links disagree.
func portNetdevs(c *collected) map[string]string {
	netdevOf := map[string]string{}
	for _, l := range c.links {
		k := portKey(l.Device, l.Port)
		if _, ok := netdevOf[k]; !ok || l.Via == sysfs.ViaGIDNdev && !strings.Contains(l.Netdev, ".") {
			netdevOf[k] = l.Netdev
		}
	}
	return netdevOf
}

// sysfsPort is what the sources say of port p of device d, whose netdev
// is nd: its sysfs attributes and netdev, and its counters from sysfs
// (or netlink's statistics when sysfs has none), ethtool and rtnetlink.
func sysfsPort(c *collected, d sysfs.Device, p sysfs.Port, nd string, nds map[string]sysfs.Netdev) probes.Port {
	port := probes.Port{Device: d.Name, Port: p.Num, State: enumName(p.State), PhysState: enumName(p.PhysState),
		LinkLayer: deref(p.LinkLayer), Counters: []probes.Counter{}, Netdev: nd}
	if p.Rate != nil {
		port.Rate, port.RateGbps = p.Rate.Raw, p.Rate.Gbps
	}
	if p.LID != nil {
		port.LID = fmt.Sprintf("0x%x", *p.LID)
	}
	if n, ok := nds[nd]; ok {
		port.MTU, port.SpeedMbps = n.MTU, n.SpeedMbps
		if n.OperState != nil {
			port.OperState = *n.OperState
		}
		if n.MTU != nil {
			m := probes.RoCEMTU(*n.MTU)
			port.RoCEMTU = &m
		}
	}
	for _, set := range c.counters {
		if set.Device == d.Name && set.Port == p.Num {
			port.Counters = append(port.Counters, set.ProbeCounters()...)
		}
	}
	if len(port.Counters) == 0 && c.rdma != nil {
		if st, ok := c.rdma.stats[portKey(d.Name, p.Num)]; ok {
			port.Counters = append(port.Counters, netlinkCounters(alias.Driver(d.Driver), st)...)
		}
	}
	if raw, ok := c.ethtool[nd]; ok {
		port.Counters = append(port.Counters, ethtoolCounters(raw)...)
	}
	if l, ok := c.rtnl[nd]; ok {
		port.Counters = append(port.Counters, rtnlCounters(l)...)
		if port.MTU == nil && l.MTU > 0 {
			m, rm := int(l.MTU), probes.RoCEMTU(int(l.MTU))
			port.MTU, port.RoCEMTU = &m, &rm
		}
	}
	if c.sysfsAge != nil {
		age := *c.sysfsAge
		port.StaleS = &age
	}
	return port
}

// selectQPs keeps the QPs of the selected devices. ok is false when the
// QPs are not known this sample: no dump, or a selection this sample
// cannot resolve.
func selectQPs(c *collected, sel *selection, known bool) (qps []rdmanl.QP, ok bool) {
	if c.rdma == nil || c.rdmaStale || !known {
		return nil, false
	}
	if sel == nil {
		return c.rdma.qps, true
	}
	for _, q := range c.rdma.qps {
		if sel.devs[q.Dev] {
			qps = append(qps, q)
		}
	}
	return qps, true
}

func portKey(dev string, port int) string { return fmt.Sprintf("%s/%d", dev, port) }

// seen is a counter as last read, and when.
type seen struct {
	c  probes.Counter
	at time.Time
}

// rates fills the port's counters' deltas and rates against their last
// reading, however long ago: a counter missing from a sample (its source
// timed out) gets its rate over the longer interval next time, not a
// first_sample.
func (s *Sampler) rates(port string, cs []probes.Counter, now time.Time) {
	if s.lastSeen == nil {
		s.lastSeen = map[string]map[string]seen{}
	}
	last := s.lastSeen[port]
	if last == nil {
		last = map[string]seen{}
		s.lastSeen[port] = last
	}
	for i := range cs {
		c := &cs[i]
		if c.Note == probes.NoteStale {
			// Carried forward: its last reading stays the one to
			// measure the next against, over the whole gap.
			continue
		}
		k := c.Source + "\x00" + c.Native
		if p, ok := last[k]; ok {
			c.RateFrom(&p.c, now.Sub(p.at).Seconds())
		} else {
			c.RateFrom(nil, 0)
		}
		keep := *c // not shared with the snapshot, which consumers own
		keep.Delta, keep.Rate = nil, nil
		if keep.NativeValue != nil {
			v := *keep.NativeValue
			keep.NativeValue = &v
		}
		last[k] = seen{c: keep, at: now}
	}
}

func findPort(s *probes.Snapshot, dev string, port int) *probes.Port {
	for i := range s.Ports {
		if s.Ports[i].Device == dev && s.Ports[i].Port == port {
			return &s.Ports[i]
		}
	}
	return nil
}

func enumName(e *sysfs.Enum) string {
	if e == nil {
		return ""
	}
	return e.Name
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func guidString(d sysfs.Device) string {
	if d.NodeGUID == nil {
		return ""
	}
	return fmt.Sprint(*d.NodeGUID)
}

func (s *Sampler) configViews(c *collected, snap *probes.Snapshot) {
	snap.Config.GPUDirect = c.gpudir
	for _, nd := range sortedKeys(c.dcb) {
		// The settings are those of the netdev asked for, whatever name
		// the reply echoes (a recorded or fake reply may carry another).
		d := c.dcb[nd].Snapshot()
		d.Netdev = nd
		snap.Config.DCB = append(snap.Config.DCB, d)
	}
	for _, nd := range sortedKeys(c.ecn) {
		e := c.ecn[nd]
		ec := probes.ECNConfig{Netdev: nd, Source: "sysfs ecn/ (MLNX_OFED)", Params: map[string]string{}}
		if np, ok := e.NP(); ok {
			ec.NPEnabled = np.Enabled
			for k, v := range np.Params {
				ec.Params["roce_np/"+k] = strconv.FormatUint(v, 10)
			}
		}
		if rp, ok := e.RP(); ok {
			ec.RPEnabled = rp.Enabled
			for k, v := range rp.Params {
				ec.Params["roce_rp/"+k] = strconv.FormatUint(v, 10)
			}
		}
		snap.Config.ECN = append(snap.Config.ECN, ec)
	}
	for _, dev := range sortedKeys(c.cc) {
		ec := probes.ECNConfig{Device: dev, Source: "debugfs cc_params", Params: map[string]string{}}
		for k, v := range c.cc[dev].Params {
			ec.Params[k] = strconv.FormatUint(v, 10)
		}
		snap.Config.ECN = append(snap.Config.ECN, ec)
	}
	snap.Config.Memory = c.memory
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func (s *Sampler) qpView(c *collected, qps []rdmanl.QP, snap *probes.Snapshot) {
	for _, q := range qps {
		pq := ProbeQP(q)
		if q.HasPID {
			if f, ok := c.procs[q.PID]; ok {
				pq.MemlockSoft, pq.MemlockUnlimited = f.soft, f.unlimited
				o := &f.owner
				pq.Cgroup, pq.Runtime, pq.ContainerID, pq.PodUID, pq.PodQoS = o.Cgroup, o.Runtime, o.ContainerID, o.PodUID, o.QoS
				if pod, ok := c.pods[o.PodUID]; ok {
					pq.Pod = pod.String()
				}
			}
		}
		snap.QPs = append(snap.QPs, pq)
	}
}

// finishPort carries forward the counters that did not answer, works out
// the rates of the fresh ones and the views.
func (s *Sampler) finishPort(c *collected, port *probes.Port, now time.Time, dt float64) {
	k := portKey(port.Device, port.Port)
	port.Counters = s.carryCounters(c, k, port.Counters, now)
	s.rates(k, port.Counters, now)
	port.PFC = pfcView(c, port.Netdev, port.Counters, dt)
	port.Congestion = congestionView(port.Counters)
	port.Traffic = trafficView(port.Counters)
}

// netlinkPorts makes the port list the union of what sysfs and RDMA
// netlink know. A port RDMA netlink names that sysfs did not (sysfs hung,
// or a container without the device's sysfs directory) is added with its
// state, physical state, netdev and STAT_GET counters; a port sysfs gave
// only as carried forward takes its state from RDMA netlink's fresh
// answer.
func (s *Sampler) netlinkPorts(c *collected, sel *selection, snap *probes.Snapshot, now time.Time, dt float64) {
	if c.rdma == nil {
		return
	}
	added := false
	for _, rp := range c.rdma.ports {
		if s.opt.Device != "" && rp.Dev != s.opt.Device || sel != nil && !sel.devs[rp.Dev] {
			continue
		}
		state, phys := rp.State.String(), sysfsPhysState(rp.PhysState)
		if p := findPort(snap, rp.Dev, int(rp.Index)); p != nil {
			// sysfs's state is carried forward, or its state file did
			// not answer: RDMA netlink's fresh one stands in.
			if (p.StaleS != nil || p.State == "") && !c.rdmaStale {
				p.State, p.PhysState, p.StaleS, p.From = state, phys, nil, "rdma netlink"
				if p.Netdev == "" {
					p.Netdev = rp.Netdev
				}
			}
			continue
		}
		port := probes.Port{Device: rp.Dev, Port: int(rp.Index), Netdev: rp.Netdev, State: state, PhysState: phys,
			Counters: []probes.Counter{}, From: "rdma netlink"}
		driver := driverOfName(rp.Dev)
		for _, d := range c.rdma.devices {
			if d.Name == rp.Dev {
				switch d.Protocol {
				case "roce":
					port.LinkLayer = "Ethernet"
				case "ib":
					port.LinkLayer = "InfiniBand"
				}
			}
		}
		if rp.LID != 0 {
			port.LID = fmt.Sprintf("0x%x", rp.LID)
		}
		if c.rdmaStale {
			age := c.rdmaAge
			port.StaleS, port.From = &age, ""
		}
		if st, ok := c.rdma.stats[portKey(rp.Dev, int(rp.Index))]; ok {
			port.Counters = append(port.Counters, netlinkCounters(driver, st)...)
		}
		if raw, ok := c.ethtool[rp.Netdev]; ok {
			port.Counters = append(port.Counters, ethtoolCounters(raw)...)
		}
		if l, ok := c.rtnl[rp.Netdev]; ok {
			port.Counters = append(port.Counters, rtnlCounters(l)...)
		}
		s.finishPort(c, &port, now, dt)
		snap.Ports = append(snap.Ports, port)
		if !slices.ContainsFunc(snap.Devices, func(d probes.Device) bool { return d.Name == rp.Dev }) {
			dev := probes.Device{Name: rp.Dev, Driver: driver}
			for _, d := range c.rdma.devices {
				if d.Name == rp.Dev {
					dev.Ports, dev.FW = int(d.NumPorts), d.FW
				}
			}
			snap.Devices = append(snap.Devices, dev)
		}
		added = true
	}
	if added {
		slices.SortStableFunc(snap.Ports, func(a, b probes.Port) int {
			return cmp.Or(strings.Compare(a.Device, b.Device), cmp.Compare(a.Port, b.Port))
		})
		slices.SortStableFunc(snap.Devices, func(a, b probes.Device) int { return strings.Compare(a.Name, b.Name) })
	}
}

// sysfsPhysState spells a physical state as sysfs does (phys_state:
// "5: LinkUp"), so that a port read from either source compares equal.
func sysfsPhysState(p rdmanl.PhysState) string {
	names := []string{"", "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "Phy Test"}
	if int(p) < len(names) && p != 0 {
		return names[p]
	}
	return ""
}

// driverOfName guesses the driver family from an RDMA device's name
// (mlx5_0 → mlx5, rxe0 → rxe), for the alias table of its STAT_GET
// counters when sysfs did not say.
func driverOfName(dev string) string {
	return alias.Driver(strings.TrimRight(strings.TrimRight(dev, "0123456789"), "_"))
}
