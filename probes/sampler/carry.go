package sampler

import (
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// A source that does not answer must not take away what it said last:
// the ports, their state and counters stay, marked stale with their age,
// until it answers again. Absent is not zero: a value carried forward
// has no delta and no rate (it did not "move 0"), and the next real
// reading gets its rate over the whole gap. What is carried:
//
//   - sysfs: the devices, ports, netdev links and netdev attributes of its
//     last answer (Port.StaleS), and its counters (Counter.StaleS);
//     within an answer, the counters whose files hung.
//   - ethtool, rtnetlink: their counters.
//   - RDMA netlink: its devices and ports (state, physical state,
//     netdev), not its QPs: a QP list that could not be read is unknown,
//     and QP rules cannot evaluate rather than judge an old one.
//   - DCB: its configuration.
//
// Events are never carried: they happened in one interval.

// counterSource is the source (status name) each counter source is
// read by.
var counterSource = map[string]string{"counters": "sysfs", "hw_counters": "sysfs", "ethtool": "ethtool",
	"rtnl": "rtnetlink", "netlink": "rdma netlink"}

// carry decides, from this sample's statuses, what is carried forward,
// and keeps this sample's answers for the next ones.
func (s *Sampler) carry(c *collected, status []probes.Status, now time.Time) {
	timedOut := map[string]bool{}
	for _, st := range status {
		if st.State == probes.StateTimeout {
			timedOut[st.Source] = true
		}
	}
	c.stale, c.staleAge = map[string]bool{}, map[string]float64{}
	for cs, src := range counterSource {
		if timedOut[src] {
			c.stale[cs] = true
		}
	}
	switch {
	case c.sysfs && c.devsOK:
		s.lastSysfs = &sysfsAnswer{devs: c.devs, links: c.links, netdevs: c.netdevs, at: now}
	case !c.sysfs && timedOut["sysfs"] && s.lastSysfs != nil:
		l := s.lastSysfs
		c.devs, c.links, c.netdevs, c.devsOK = l.devs, l.links, l.netdevs, true
		age := now.Sub(l.at).Seconds()
		c.sysfsAge = &age
		c.noteAge("sysfs", age)
	}
	switch {
	case c.rdma != nil:
		s.lastRDMA, s.rdmaAt = c.rdma, now
	case timedOut["rdma netlink"] && s.lastRDMA != nil:
		c.rdma = &rdmaResult{devices: s.lastRDMA.devices, ports: s.lastRDMA.ports}
		c.rdmaStale, c.rdmaAge = true, now.Sub(s.rdmaAt).Seconds()
		c.noteAge("rdma netlink", c.rdmaAge)
	}
	switch {
	case c.dcb != nil:
		s.lastDCB, s.dcbAt = c.dcb, now
	case timedOut["dcb"] && s.lastDCB != nil:
		c.dcb = s.lastDCB
		c.noteAge("dcb", now.Sub(s.dcbAt).Seconds())
	}
}

func (c *collected) noteAge(source string, age float64) {
	if a, ok := c.staleAge[source]; !ok || age > a {
		c.staleAge[source] = age
	}
}

// carryCounters appends to a port's fresh counters the last reading of
// each counter whose source (or file) did not answer, noted stale.
func (s *Sampler) carryCounters(c *collected, port string, cs []probes.Counter, now time.Time) []probes.Counter {
	last := s.lastSeen[port]
	hung := c.hungCounters[port]
	if len(last) == 0 || len(c.stale) == 0 && len(hung) == 0 {
		return cs
	}
	fresh := make(map[string]bool, len(cs))
	for i := range cs {
		fresh[cs[i].Source+"\x00"+cs[i].Native] = true
	}
	for _, k := range sortedKeys(last) {
		p := last[k]
		if fresh[k] || !c.stale[p.c.Source] && !hung[k] {
			continue
		}
		x := p.c
		if x.NativeValue != nil {
			v := *x.NativeValue
			x.NativeValue = &v
		}
		age := now.Sub(p.at).Seconds()
		x.Delta, x.Rate, x.Note, x.StaleS = nil, nil, probes.NoteStale, &age
		c.noteAge(counterSource[x.Source], age)
		cs = append(cs, x)
	}
	return cs
}

// track says, in each status of a source that does not answer, since
// when (the first sample of this run of timeouts) and how old the values
// carried forward for it are.
func (s *Sampler) track(status []probes.Status, c *collected, now time.Time) {
	for i := range status {
		st := &status[i]
		name := st.Source
		switch {
		case st.Hung():
			since, ok := s.downSince[name]
			if !ok {
				since = now
				if st.State == probes.StatePartial && name == "sysfs" && !c.hungSince.IsZero() {
					since = c.hungSince
				}
				s.downSince[name] = since
			}
			st.Since = &since
			if a, ok := c.staleAge[name]; ok {
				st.StaleS = &a
			} else if last, ok := s.lastOK[name]; ok && st.State == probes.StateTimeout {
				a := now.Sub(last).Seconds()
				st.StaleS = &a
			}
			if st.State == probes.StatePartial {
				s.lastOK[name] = now
			}
		case st.State == probes.StateOK:
			delete(s.downSince, name)
			s.lastOK[name] = now
		}
	}
}
