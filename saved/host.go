package saved

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// reading is one reading of an object's counters: one file, or one
// section of a file.
type reading struct {
	time     *time.Time
	counters []probes.Counter
}

// portFacts is what the inputs say about one RDMA port.
type portFacts struct {
	device    string
	port      int
	netdev    string
	state     string
	phys      string
	linkLayer string
	readings  []reading
}

// netdevFacts is what the inputs say about one netdev.
type netdevFacts struct {
	name     string
	driver   string
	mtu      *int
	ethtool  []reading
	link     []reading // ip -s link
	filtered bool      // an ethtool paste without its header: counters may have been left out
}

// host gathers the facts of every input, then builds snapshots.
type host struct {
	hostname string
	kernel   string
	devices  map[string]*probes.Device
	ports    map[string]*portFacts // "dev/port"
	netdevs  map[string]*netdevFacts
	qps      []probes.QP
	events   []probes.Event
	dcb      map[string]probes.DCBConfig
	gids     []probes.GID
	ecn      []probes.ECNConfig
	// ncclLogs counts the NCCL logs read, warnings or not: a log without
	// a warning was read, and says so, but judges nothing.
	ncclLogs int
}

func newHost() *host {
	return &host{devices: map[string]*probes.Device{}, ports: map[string]*portFacts{},
		netdevs: map[string]*netdevFacts{}, dcb: map[string]probes.DCBConfig{}}
}

func portKey(dev string, port int) string { return fmt.Sprintf("%s/%d", dev, port) }

func (h *host) port(dev string, port int) *portFacts {
	k := portKey(dev, port)
	p := h.ports[k]
	if p == nil {
		p = &portFacts{device: dev, port: port}
		h.ports[k] = p
	}
	return p
}

func (h *host) netdev(name string) *netdevFacts {
	n := h.netdevs[name]
	if n == nil {
		n = &netdevFacts{name: name}
		h.netdevs[name] = n
	}
	return n
}

func (h *host) device(name string) *probes.Device {
	d := h.devices[name]
	if d == nil {
		d = &probes.Device{Name: name}
		h.devices[name] = d
	}
	return d
}

// empty reports whether no input added anything to the model.
func (h *host) empty() bool {
	return len(h.devices) == 0 && len(h.ports) == 0 && len(h.netdevs) == 0 && len(h.qps) == 0 &&
		len(h.events) == 0 && len(h.dcb) == 0 && len(h.ecn) == 0 && len(h.gids) == 0 && h.ncclLogs == 0
}

// snapshots builds the host model: as many snapshots as the most read
// object has readings. Each object's readings fill the last snapshots, with
// deltas against the reading before, and rates when both say when they
// were taken. An object read fewer times appears in fewer snapshots:
// carrying a reading back or forward would claim its counters did not
// move.
func (h *host) snapshots(source string, views func(p *probes.Port, dcb *probes.DCBConfig)) []*probes.Snapshot {
	n := 1
	for _, p := range h.ports {
		n = max(n, len(p.readings))
	}
	for _, d := range h.netdevs {
		n = max(n, len(d.ethtool), len(d.link))
	}
	attached := map[string]bool{}
	for _, p := range h.ports {
		if p.netdev != "" {
			attached[p.netdev] = true
		}
	}
	out := make([]*probes.Snapshot, 0, n)
	for k := range n {
		s := &probes.Snapshot{Host: probes.HostInfo{Hostname: h.hostname, Kernel: h.kernel, Source: source},
			Devices: []probes.Device{}, Ports: []probes.Port{}, QPs: []probes.QP{}, Events: []probes.Event{},
			Config: probes.Config{GIDs: []probes.GID{}}}
		var times []time.Time
		for _, name := range sortedKeys(h.devices) {
			s.Devices = append(s.Devices, *h.devices[name])
		}
		for _, key := range sortedKeys(h.ports) {
			pf := h.ports[key]
			p := probes.Port{Device: pf.device, Port: pf.port, Netdev: pf.netdev, State: pf.state, PhysState: pf.phys,
				LinkLayer: pf.linkLayer, Counters: []probes.Counter{}}
			present := len(pf.readings) == 0 && k == n-1
			present = addReading(&p, pf.readings, k, n, &times) || present
			if nd := h.netdevs[pf.netdev]; nd != nil {
				present = addReading(&p, nd.ethtool, k, n, &times) || present
				present = addReading(&p, nd.link, k, n, &times) || present
				p.MTU = nd.mtu
			}
			if !present {
				continue
			}
			h.finishPort(&p, views)
			s.Ports = append(s.Ports, p)
		}
		// Netdevs no RDMA port is known to sit on: their counters still
		// tell (PFC, discards), on a port with no RDMA device named.
		for _, name := range sortedKeys(h.netdevs) {
			if attached[name] {
				continue
			}
			nd := h.netdevs[name]
			p := probes.Port{Netdev: name, Counters: []probes.Counter{}, MTU: nd.mtu}
			a := addReading(&p, nd.ethtool, k, n, &times)
			b := addReading(&p, nd.link, k, n, &times)
			if !a && !b && !(k == n-1 && len(nd.ethtool) == 0 && len(nd.link) == 0) {
				continue
			}
			h.finishPort(&p, views)
			s.Ports = append(s.Ports, p)
		}
		if len(times) > 0 {
			slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
			s.Time = times[len(times)-1]
		}
		if k > 0 && !s.Time.IsZero() && !out[k-1].Time.IsZero() {
			s.Interval = s.Time.Sub(out[k-1].Time).Seconds()
		}
		if k == n-1 {
			// QPs, events and configuration are one reading each: they
			// describe the host as sent, so they go with the last snapshot.
			s.QPs = append(s.QPs, h.qps...)
			s.Events = append(s.Events, h.events...)
			for _, nd := range sortedKeys(h.dcb) {
				s.Config.DCB = append(s.Config.DCB, h.dcb[nd])
			}
			s.Config.ECN = append(s.Config.ECN, h.ecn...)
			s.Config.GIDs = append(s.Config.GIDs, h.gids...)
		}
		out = append(out, s)
	}
	return out
}

func (h *host) finishPort(p *probes.Port, views func(p *probes.Port, dcb *probes.DCBConfig)) {
	if p.MTU != nil {
		m := probes.RoCEMTU(*p.MTU)
		p.RoCEMTU = &m
	}
	var cfg *probes.DCBConfig
	if c, ok := h.dcb[p.Netdev]; ok && p.Netdev != "" {
		cfg = &c
	}
	if views != nil {
		views(p, cfg)
	}
}

// addReading adds the reading of rs that falls in snapshot k of n, with
// deltas against the one before it. Readings align at the end: the last
// snapshot holds every object's latest reading.
func addReading(p *probes.Port, rs []reading, k, n int, times *[]time.Time) bool {
	k -= n - len(rs)
	if k < 0 || k >= len(rs) {
		return false
	}
	cur := slices.Clone(rs[k].counters)
	var prev []probes.Counter
	dt := 0.0
	if k > 0 {
		prev = rs[k-1].counters
		if rs[k].time != nil && rs[k-1].time != nil {
			dt = rs[k].time.Sub(*rs[k-1].time).Seconds()
		}
	}
	probes.Rates(prev, cur, dt)
	if rs[k].time != nil {
		*times = append(*times, *rs[k].time)
	}
	p.Counters = append(p.Counters, cur...)
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// describe says in a line what the model holds.
func (h *host) describe() string {
	var parts []string
	if n := len(h.devices); n > 0 {
		parts = append(parts, plural(n, "RDMA device"))
	}
	if n := len(h.ports); n > 0 {
		parts = append(parts, plural(n, "RDMA port"))
	}
	if n := len(h.netdevs); n > 0 {
		parts = append(parts, plural(n, "netdev"))
	}
	if n := len(h.dcb); n > 0 {
		parts = append(parts, "QoS settings of "+plural(n, "netdev"))
	}
	if n := len(h.qps); n > 0 {
		parts = append(parts, plural(n, "QP"))
	}
	bySource := map[string]int{}
	ncclWarnings := 0
	for _, e := range h.events {
		bySource[e.Source]++
		if e.Source == "nccl" && e.Severity != probes.SevInfo {
			ncclWarnings++
		}
	}
	if n := bySource["kmsg"]; n > 0 {
		parts = append(parts, plural(n, "kernel log event"))
	}
	switch n := bySource["nccl"]; {
	case ncclWarnings > 0:
		parts = append(parts, plural(n, "NCCL event"))
	case h.ncclLogs > 0 && n > 0:
		parts = append(parts, plural(h.ncclLogs, "NCCL log")+" without a warning ("+plural(n, "event")+" of what NCCL chose)")
	case h.ncclLogs > 0:
		parts = append(parts, plural(h.ncclLogs, "NCCL log")+" without a warning")
	}
	return strings.Join(parts, ", ")
}
