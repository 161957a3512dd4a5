package sampler

import (
	"fmt"
	"slices"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/alias"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/rtnl"
)

// The port views of a sample: counters from each source under canonical
// names, and the PFC, congestion and traffic views derived from them.

// ethtoolCounters turns ethtool -S into counters under canonical names
// where the driver's table has them.
func ethtoolCounters(raw ethtool.Raw) []probes.Counter {
	names := make([]string, 0, len(raw.Stats))
	for n := range raw.Stats {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]probes.Counter, 0, len(names))
	for _, n := range names {
		unit, gauge := ethtool.Unit(n)
		c := probes.Counter{Name: n, Native: n, Source: "ethtool", Value: raw.Stats[n], Unit: unit}
		if m, ok := alias.MapFrom(raw.Driver, alias.SourceEthtool, n); ok {
			c.Name = m.Canonical
			c.SetScale(m.Scale, alias.Lookup(m.Canonical).Unit)
		} else if alias.Lookup(n).Name != "" {
			// mlx5's netdev rx_packets is not the RDMA port's rx_packets:
			// an unmapped ethtool name must not pose as a canonical one.
			c.Name = "ethtool_" + n
		}
		if gauge {
			c.Behavior = probes.NotCounter
		}
		out = append(out, c)
	}
	return out
}

// rtnlCounters are the netdev's kernel link statistics.
func rtnlCounters(l rtnl.Link) []probes.Counter {
	if l.Stats == nil {
		return nil
	}
	st := l.Stats
	mk := func(name, unit string, v uint64) probes.Counter {
		return probes.Counter{Name: "netdev_" + name, Native: name, Source: "rtnl", Value: v, Unit: unit}
	}
	return []probes.Counter{
		mk("rx_bytes", "bytes", st.RxBytes), mk("tx_bytes", "bytes", st.TxBytes),
		mk("rx_packets", "packets", st.RxPackets), mk("tx_packets", "packets", st.TxPackets),
		mk("rx_errors", "packets", st.RxErrors), mk("tx_errors", "packets", st.TxErrors),
		mk("rx_dropped", "packets", st.RxDropped), mk("tx_dropped", "packets", st.TxDropped),
		mk("rx_missed_errors", "packets", st.RxMissedErrors), mk("rx_crc_errors", "packets", st.RxCRCErrors),
	}
}

func counterByName(cs []probes.Counter, name string) *probes.Counter {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

func rateOf(cs []probes.Counter, names ...string) *float64 {
	for _, n := range names {
		if c := counterByName(cs, n); c != nil && c.Rate != nil {
			r := *c.Rate
			return &r
		}
	}
	return nil
}

func valueOf(cs []probes.Counter, name string) *uint64 {
	if c := counterByName(cs, name); c != nil {
		v := c.Value
		return &v
	}
	return nil
}

// pfcView shows each priority that has PFC counters or is enabled. A
// priority whose driver lists counters for it reads them, zeros included
// (bnxt_en and ice list all eight); one with none stays absent (mlx5 lists
// pause counters only for priorities with PFC on). Durations are µs, so
// µs paused per second gives the paused share.
// pausedPercent is the share of time paused from the rate of a pause
// duration counter (µs paused per second), at most 100: a port is paused
// no longer than the interval, and a counter that moved a little more
// than the interval was read a little later than the sample's time (the
// NIC updates it on its own schedule). nil when the rate is unknown.
func pausedPercent(usPerSec *float64) *float64 {
	if usPerSec == nil {
		return nil
	}
	pct := min(*usPerSec/1e6*100, 100)
	return &pct
}

func pfcView(c *collected, nd string, cs []probes.Counter, dt float64) []probes.PFCPriority {
	enabled := map[int]bool{}
	known := false
	if cfg, ok := c.dcb[nd]; ok {
		snap := cfg.Snapshot()
		known = true
		for _, p := range snap.PFCEnabled {
			enabled[p] = true
		}
	}
	var out []probes.PFCPriority
	for p := range 8 {
		sfx := fmt.Sprintf("_prio%d", p)
		pp := probes.PFCPriority{Priority: p,
			RxPausePerSec: rateOf(cs, "rx_pfc_pause_frames"+sfx), TxPausePerSec: rateOf(cs, "tx_pfc_pause_frames"+sfx),
			RxPauseTotal: valueOf(cs, "rx_pfc_pause_frames"+sfx), TxPauseTotal: valueOf(cs, "tx_pfc_pause_frames"+sfx),
			RxTransitions: valueOf(cs, "rx_pfc_pause_transitions"+sfx), TxTransitions: valueOf(cs, "tx_pfc_pause_transitions"+sfx)}
		pp.RxPausedPercent = pausedPercent(rateOf(cs, "rx_pfc_pause_duration"+sfx))
		pp.TxPausedPercent = pausedPercent(rateOf(cs, "tx_pfc_pause_duration"+sfx))
		if known {
			e := enabled[p]
			pp.Enabled = &e
		}
		counted := pp.RxPauseTotal != nil || pp.TxPauseTotal != nil || pp.RxTransitions != nil || pp.TxTransitions != nil ||
			counterByName(cs, "rx_pfc_pause_duration"+sfx) != nil || counterByName(cs, "tx_pfc_pause_duration"+sfx) != nil
		if !counted && !enabled[p] {
			continue
		}
		out = append(out, pp)
	}
	return out
}

func congestionView(cs []probes.Counter) probes.Congestion {
	return probes.Congestion{
		CNPSentPerSec: rateOf(cs, "cnp_sent"), CNPHandledPerSec: rateOf(cs, "cnp_handled"),
		CNPIgnoredPerSec: rateOf(cs, "cnp_ignored"), ECNMarkedPerSec: rateOf(cs, "ecn_marked_roce_packets"),
		PauseStormWarning: valueOf(cs, "pause_storm_warning_events"), PauseStormError: valueOf(cs, "pause_storm_error_events"),
	}
}

// trafficRDMA is Traffic.Source when the RDMA port's own counters gave it.
const trafficRDMA = "rdma port counters"

// trafficView prefers the RDMA port's own byte counters (canonical, so
// in bytes), then the netdev's.
func trafficView(cs []probes.Counter) probes.Traffic {
	var t probes.Traffic
	if rx := rateOf(cs, "rx_bytes"); rx != nil {
		t.RxBytesPerSec = rx
		t.TxBytesPerSec = rateOf(cs, "tx_bytes")
		t.RxPacketsPerSec, t.TxPacketsPerSec = rateOf(cs, "rx_packets"), rateOf(cs, "tx_packets")
		t.Source = trafficRDMA
		return t
	}
	t.RxBytesPerSec, t.TxBytesPerSec = rateOf(cs, "netdev_rx_bytes"), rateOf(cs, "netdev_tx_bytes")
	t.RxPacketsPerSec, t.TxPacketsPerSec = rateOf(cs, "netdev_rx_packets"), rateOf(cs, "netdev_tx_packets")
	if t.RxBytesPerSec != nil {
		t.Source = "netdev"
	}
	return t
}

// netlinkCounters are a port's hardware counters read with RDMA netlink
// STAT_GET (the same counters as sysfs hw_counters, 64-bit).
func netlinkCounters(driver string, st rdmanl.PortStats) []probes.Counter {
	out := make([]probes.Counter, 0, len(st.Counters))
	for _, nc := range st.Counters {
		c := probes.Counter{Name: nc.Name, Native: nc.Name, Source: "netlink", Value: nc.Value}
		if m, ok := alias.MapFrom(driver, alias.SourceHWCounters, nc.Name); ok {
			c.Name = m.Canonical
			c.SetScale(m.Scale, alias.Lookup(m.Canonical).Unit)
		}
		out = append(out, c)
	}
	return out
}

// balanceView is how the ports' RDMA bytes spread (probes.RDMABalance),
// from each port's traffic view when it comes from the RDMA port's own
// counters; nil when no ACTIVE port has their rates or a port of the
// busiest's kind lacks them.
func balanceView(ports []probes.Port) *probes.RDMABalance {
	type load struct {
		p     *probes.Port
		bytes float64 // rx + tx per second
		busy  float64 // the busier direction's
		ok    bool
	}
	var loads []load
	busiest := -1
	for i := range ports {
		p := &ports[i]
		if p.State != "ACTIVE" {
			continue
		}
		t := &p.Traffic
		l := load{p: p, ok: t.Source == trafficRDMA && t.RxBytesPerSec != nil && t.TxBytesPerSec != nil}
		if l.ok {
			l.bytes, l.busy = *t.RxBytesPerSec+*t.TxBytesPerSec, max(*t.RxBytesPerSec, *t.TxBytesPerSec)
			if busiest < 0 || l.bytes > loads[busiest].bytes {
				busiest = len(loads)
			}
		}
		loads = append(loads, l)
	}
	if busiest < 0 {
		return nil
	}
	top := loads[busiest]
	b := &probes.RDMABalance{Busiest: portKey(top.p.Device, top.p.Port), LinkLayer: top.p.LinkLayer, RateGbps: top.p.RateGbps}
	if top.p.RateGbps > 0 {
		u := top.busy * 8 / (top.p.RateGbps * 1e9)
		b.Util = &u
	}
	for _, l := range loads {
		if l.p.LinkLayer != top.p.LinkLayer || l.p.RateGbps != top.p.RateGbps {
			continue
		}
		if !l.ok {
			return nil
		}
		b.Ports++
		b.BytesPerSec += l.bytes
		if l.p.RateGbps > 0 && l.bytes*8 < probes.IdleOfLine*l.p.RateGbps*1e9 {
			b.Idle = append(b.Idle, portKey(l.p.Device, l.p.Port))
		}
	}
	if b.BytesPerSec > 0 {
		b.Share = top.bytes / b.BytesPerSec
	}
	slices.Sort(b.Idle)
	return b
}
