package qos

import (
	"cmp"
	"net/netip"
	"slices"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/roce"
	"github.com/rdmatop/rdmatop/probes"
)

// Roles of a class on the wire: what the flows riding it carry.
const (
	RoleRequests      = "requests"       // a requester's send queue
	RoleReadResponses = "read responses" // a responder's READ data
	RoleACKs          = "acks"           // a responder's ACKs and NAKs only
	RoleCNPs          = "cnps"           // congestion notifications
)

// Class is the traffic of one role on one class, summed over the flows
// that ride it, and what this host gives that class.
type Class struct {
	Role string `json:"role"`
	// Dir is "sent" or "received" when the host's GIDs name one end of
	// the flows ("" without GIDs, or a capture of other hosts' traffic).
	Dir  string `json:"dir,omitempty"`
	DSCP uint8  `json:"dscp"`
	// PCP is the 802.1Q priority when the packets were tagged.
	PCP     *uint8 `json:"pcp,omitempty"`
	Flows   int    `json:"flows"`
	Packets uint64 `json:"packets"`
	// ECN counts the codepoints of the flows' packets other than CNPs
	// (dataECN). Nil for RoleCNPs.
	ECN *capture.ECNCounts `json:"ecn,omitempty"`
	// What this host gives the class (nil: it cannot tell, see Host).
	Priority *int  `json:"priority,omitempty"`
	PFC      *bool `json:"pfc,omitempty"`
	NP       *bool `json:"np,omitempty"`
	RP       *bool `json:"rp,omitempty"`
}

// Table is a host's QoS settings per netdev beside the classes the
// captured traffic rides. Either side may be empty: a capture alone has
// no settings, a host without a capture no classes.
type Table struct {
	Netdevs []Netdev `json:"netdevs"`
	Classes []Class  `json:"classes"`
}

// Empty reports whether the table has nothing to show.
func (t Table) Empty() bool { return len(t.Netdevs) == 0 && len(t.Classes) == 0 }

// TableOf builds the table from a host's configuration (nil: none) and
// a capture's flows (nil: none). One pass over the flows, one map entry
// per class.
func TableOf(c *probes.Config, w *capture.Summary) Table {
	h := HostOf(c)
	t := Table{Netdevs: h.Netdevs}
	if w == nil {
		return t
	}
	type key struct {
		role, dir string
		dscp      uint8
		pcp       int16 // -1: untagged
	}
	at := map[key]int{}
	local := localAddrs(c)
	add := func(role, dir string, dscp uint8, pcp *uint8, packets uint64, ecn *capture.ECNCounts) {
		k := key{role: role, dir: dir, dscp: dscp, pcp: -1}
		if pcp != nil {
			k.pcp = int16(*pcp)
		}
		i, ok := at[k]
		if !ok {
			i = len(t.Classes)
			at[k] = i
			cl := Class{Role: role, Dir: dir, DSCP: dscp}
			if pcp != nil {
				v := *pcp
				cl.PCP = &v
			}
			if role != RoleCNPs {
				cl.ECN = &capture.ECNCounts{}
			}
			t.Classes = append(t.Classes, cl)
		}
		cl := &t.Classes[i]
		cl.Flows++
		cl.Packets += packets
		if ecn != nil {
			cl.ECN.NotECT += ecn.NotECT
			cl.ECN.ECT0 += ecn.ECT0
			cl.ECN.ECT1 += ecn.ECT1
			cl.ECN.CE += ecn.CE
		}
	}
	for i := range w.Flows {
		f := &w.Flows[i]
		dir := direction(local, f)
		if data := f.Packets - f.CNPsCarried; data > 0 {
			ecn := dataECN(f)
			add(roleOf(f), dir, f.DSCP, f.PCP, data, &ecn)
		}
		if f.CNPsCarried > 0 && f.CNPDSCP != nil {
			add(RoleCNPs, dir, *f.CNPDSCP, f.CNPPCP, f.CNPsCarried, nil)
		}
	}
	for i := range t.Classes {
		cl := &t.Classes[i]
		p, ok := Agree(h, "", func(n *Netdev) (int, bool) { return n.Priority(cl.DSCP, cl.PCP) })
		if !ok {
			continue
		}
		cl.Priority = &p
		cl.PFC = boolOf(Agree(h, "", func(n *Netdev) (bool, bool) { return n.PFCOn(p) }))
		cl.NP = boolOf(Agree(h, "", func(n *Netdev) (bool, bool) { return n.NPOn(p) }))
		cl.RP = boolOf(Agree(h, "", func(n *Netdev) (bool, bool) { return n.RPOn(p) }))
	}
	slices.SortFunc(t.Classes, func(a, b Class) int {
		return cmp.Or(cmp.Compare(dirRank(a.Dir), dirRank(b.Dir)), cmp.Compare(roleRank(a.Role), roleRank(b.Role)), cmp.Compare(a.DSCP, b.DSCP),
			cmp.Compare(pcpOr(a.PCP), pcpOr(b.PCP)))
	})
	return t
}

// roleOf is what a flow carries: requests, else READ responses (by their
// opcodes: a WRITE's responder sends NAKs, RNR NAKs and copied ACKs too,
// responses that are no positive ACK and no READ data), else ACKs.
func roleOf(f *capture.FlowSummary) string {
	if f.Requests > 0 {
		return RoleRequests
	}
	for _, o := range f.Opcodes {
		if o.Packets > 0 && roce.Opcode(o.Opcode).IsReadResponse() {
			return RoleReadResponses
		}
	}
	return RoleACKs
}

func roleRank(r string) int {
	return slices.Index([]string{RoleRequests, RoleReadResponses, RoleACKs, RoleCNPs}, r)
}

func dirRank(d string) int { return slices.Index([]string{"sent", "received", ""}, d) }

func pcpOr(p *uint8) int {
	if p == nil {
		return -1
	}
	return int(*p)
}

func boolOf(v, ok bool) *bool {
	if !ok {
		return nil
	}
	return &v
}

// dataECN is the codepoints of a flow's packets other than its CNPs: a
// flow counts them together, and a NIC sends its CNPs with one codepoint
// (the latest CNP's, CNPECN).
func dataECN(f *capture.FlowSummary) capture.ECNCounts {
	e := f.ECN
	if f.CNPsCarried == 0 || f.CNPECN == nil {
		return e
	}
	n := f.CNPsCarried
	sub := func(c *uint64) { *c -= min(*c, n) }
	switch *f.CNPECN {
	case 0:
		sub(&e.NotECT)
	case 1:
		sub(&e.ECT1)
	case 2:
		sub(&e.ECT0)
	case 3:
		sub(&e.CE)
	}
	return e
}

// localAddrs is the host's addresses from its GID table (IPv4 GIDs
// unmapped, as flows name them), nil without GIDs.
func localAddrs(c *probes.Config) map[netip.Addr]bool {
	if c == nil || len(c.GIDs) == 0 {
		return nil
	}
	m := map[netip.Addr]bool{}
	for _, g := range c.GIDs {
		if a, err := netip.ParseAddr(g.GID); err == nil {
			m[a.Unmap()] = true
		}
	}
	return m
}

// direction is "sent" when the flow leaves one of the host's addresses,
// "received" when it arrives at one, "" otherwise.
func direction(local map[netip.Addr]bool, f *capture.FlowSummary) string {
	if local == nil {
		return ""
	}
	if a, err := netip.ParseAddr(f.Src); err == nil && local[a.Unmap()] {
		return "sent"
	}
	if a, err := netip.ParseAddr(f.Dst); err == nil && local[a.Unmap()] {
		return "received"
	}
	return ""
}
