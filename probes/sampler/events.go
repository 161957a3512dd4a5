package sampler

// The sample's events: what changed since the last sample that read it
// (QP states, ports, links, GIDs, devices) and the kernel log's lines.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
)

// events: QP transitions, port state changes, link_downed increments,
// GID table and device changes, and classified kernel log lines, of the
// selected devices (qps are already selected). A sample whose QPs or
// sysfs are unknown (timed out) says nothing about them: absent is not
// gone.
func (s *Sampler) events(c *collected, qps []rdmanl.QP, qpsKnown bool, sel *selection, snap *probes.Snapshot) {
	now := snap.Time
	if qpsKnown {
		for _, e := range s.qps.Observe(qps, now, c.rdma.failed...) {
			snap.Events = append(snap.Events, e.Probe())
		}
	}
	s.portEvents(c, snap)
	if c.addrs != nil {
		snap.Events = append(snap.Events, c.addrs.events(c.rtnl, s.prevGIDs, snap)...)
	}
	if c.sysfs {
		s.sysfsEvents(snap, c.addrs)
	}
	for _, r := range c.kmsg {
		if e, ok := kmsg.Classify(r); ok && sel.hasKmsg(e) {
			pe := e.Snapshot(time.Time{})
			pe.Time = now
			snap.Events = append(snap.Events, pe)
		}
	}
	if c.ncclBatch != nil {
		s.ncclEvents(c.ncclBatch, now, snap)
	}
	if c.gpus != nil {
		snap.GPUProcesses = c.gpus.Procs
	}
	if c.ras != nil {
		snap.NCCLRAS = c.ras.Status
		s.rasEvents(c.ras.Status, now, snap)
	}
	if c.kmsgLost > 0 {
		snap.Events = append(snap.Events, probes.Event{Time: now, Source: "kmsg", Kind: "kmsg_lost", Severity: probes.SevWarning,
			Detail: fmt.Sprintf("%d kernel log records were overwritten before rdmatop read them", c.kmsgLost)})
	}
}

// hasKmsg: the kernel log event names no device (host-wide: OOM, hung
// task, module load) or one of the selection's.
func (sel *selection) hasKmsg(e kmsg.Event) bool {
	if sel == nil || e.IBDev == "" && e.Netdev == "" && e.PCI == "" {
		return true
	}
	return sel.devs[e.IBDev] || sel.netdevs[e.Netdev] || sel.pcis[e.PCI]
}

// portEvents diffs each port's state and link counters against the last
// sample that read them, from sysfs or, when sysfs did not answer, RDMA
// netlink: a flap is seen while sysfs hangs. A port whose state is
// carried forward says nothing new.
func (s *Sampler) portEvents(c *collected, snap *probes.Snapshot) {
	now := snap.Time
	first := s.prevPorts == nil
	if first {
		s.prevPorts = map[string]portState{}
	}
	for _, p := range snap.Ports {
		if p.StaleS != nil || !c.sysfs && p.From == "" {
			continue // carried forward: says nothing new
		}
		k := portKey(p.Device, p.Port)
		old, seen := s.prevPorts[k]
		st := portState{state: p.State, phys: p.PhysState, linkDowned: freshValue(p.Counters, "link_downed"),
			linkErrRec: freshValue(p.Counters, "link_error_recovery")}
		known := st.state != "" || st.phys != ""
		if !known {
			// Its state file did not answer: unknown, not changed.
			st.state, st.phys = old.state, old.phys
		}
		if st.linkDowned == nil {
			st.linkDowned = old.linkDowned // the last reading, to compare the next with
		}
		if st.linkErrRec == nil {
			st.linkErrRec = old.linkErrRec
		}
		s.prevPorts[k] = st
		if !seen || first {
			continue
		}
		if known && (old.state != st.state || old.phys != st.phys) {
			sev := probes.SevInfo
			if st.state != "ACTIVE" {
				sev = probes.SevWarning
			}
			detail := fmt.Sprintf("%s/%s -> %s/%s", old.state, old.phys, st.state, st.phys)
			if p.From != "" {
				detail += " (from " + p.From + ")"
			}
			snap.Events = append(snap.Events, probes.Event{Time: now, Source: "port", Kind: "port_state", Severity: sev,
				Device: p.Device, Port: p.Port, Detail: detail})
		}
		for _, x := range []struct {
			name     string
			old, cur *uint64
		}{{"link_downed", old.linkDowned, freshValue(p.Counters, "link_downed")}, {"link_error_recovery", old.linkErrRec, freshValue(p.Counters, "link_error_recovery")}} {
			if x.old != nil && x.cur != nil && *x.cur > *x.old {
				snap.Events = append(snap.Events, probes.Event{Time: now, Source: "port", Kind: x.name, Severity: probes.SevWarning,
					Device: p.Device, Port: p.Port, Detail: fmt.Sprintf("%s +%d", x.name, *x.cur-*x.old)})
			}
		}
	}
}

// freshValue is valueOf for a counter read in this sample (not carried).
func freshValue(cs []probes.Counter, name string) *uint64 {
	if c := counterByName(cs, name); c != nil && c.Note != probes.NoteStale {
		v := c.Value
		return &v
	}
	return nil
}

// sysfsEvents diffs devices and GIDs against the last sample sysfs
// answered.
func (s *Sampler) sysfsEvents(snap *probes.Snapshot, addrs *addrBatch) {
	now := snap.Time
	devs := map[string]bool{}
	for _, d := range snap.Devices {
		devs[d.Name] = true
		if s.prevDevs != nil && !s.prevDevs[d.Name] {
			snap.Events = append(snap.Events, probes.Event{Time: now, Source: "device", Kind: "device_added", Severity: probes.SevInfo, Device: d.Name, Detail: "RDMA device appeared"})
		}
	}
	for d := range s.prevDevs {
		if !devs[d] {
			snap.Events = append(snap.Events, probes.Event{Time: now, Source: "device", Kind: "device_removed", Severity: probes.SevCritical, Device: d, Detail: "RDMA device disappeared"})
		}
	}
	gids := make(map[gidSlot]probes.GID, len(snap.Config.GIDs))
	for _, g := range snap.Config.GIDs {
		gids[gidSlot{g.Device, g.Port, g.Index}] = g
	}
	if s.prevGIDs != nil {
		snap.Events = append(snap.Events, gidEvents(s.prevGIDs, gids, now, addrs)...)
	}
	s.prevGIDs, s.prevDevs = gids, devs
}

// gidSlot is one entry of a port's GID table.
type gidSlot struct {
	dev         string
	port, index int
}

// gidEvents tells how a GID table changed between two samples, in table
// order: an entry that holds another GID, type or netdev than before
// (gid_changed, a warning: a QP created with that index now sends from
// another address), an entry that was empty (gid_added) and one emptied
// (gid_removed, a warning).
//
// An address change rtnetlink announced since the last sample dates the
// event: the GID that came or went is that address (an IPv4 address's GID
// is its IPv4-mapped form), and it changed then, not at the sample.
func gidEvents(prev, cur map[gidSlot]probes.GID, now time.Time, addrs *addrBatch) []probes.Event {
	slots := make([]gidSlot, 0, len(cur)+len(prev))
	for k := range cur {
		slots = append(slots, k)
	}
	for k := range prev {
		if _, ok := cur[k]; !ok {
			slots = append(slots, k)
		}
	}
	slices.SortFunc(slots, func(a, b gidSlot) int {
		return cmp.Or(strings.Compare(a.dev, b.dev), cmp.Compare(a.port, b.port), cmp.Compare(a.index, b.index))
	})
	var evs []probes.Event
	for _, k := range slots {
		old, had := prev[k]
		g, has := cur[k]
		e := probes.Event{Time: now, Source: "gid", Device: k.dev, Port: k.port}
		switch {
		case had && has && old == g:
			continue
		case had && has:
			e.Kind, e.Severity = "gid_changed", probes.SevWarning
			e.Detail = fmt.Sprintf("index %d: %s → %s", k.index, gidText(old), gidText(g))
			e.Time = addrs.when(now, gidChange{g, false}, gidChange{old, true})
		case has:
			e.Kind, e.Severity = "gid_added", probes.SevInfo
			e.Detail = fmt.Sprintf("index %d: %s (new)", k.index, gidText(g))
			e.Time = addrs.when(now, gidChange{g, false})
		default:
			e.Kind, e.Severity = "gid_removed", probes.SevWarning
			e.Detail = fmt.Sprintf("index %d: %s removed", k.index, gidText(old))
			e.Time = addrs.when(now, gidChange{old, true})
		}
		evs = append(evs, e)
	}
	return evs
}

func gidText(g probes.GID) string {
	s := g.GID
	if g.Type != "" {
		s += " " + g.Type
	}
	if g.Netdev != "" {
		s += " " + g.Netdev
	}
	return s
}
