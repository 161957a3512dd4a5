package qos

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/rdmatop/rdmatop/probes"
)

// Netdev is one netdev's QoS settings. Nil maps and slices are settings
// the host did not report.
type Netdev struct {
	Name string
	// Trust is "dscp", "pcp", another selector, or "" when unknown.
	Trust      string
	DSCPToPrio map[int]int
	// PFC lists the priorities with PFC on; nil: PFC not reported.
	PFC      []int
	PrioToTC []int
	TCTSA    []string
	// NP and RP: the DCQCN notification point (CNP generation) and
	// reaction point (rate reduction) per priority.
	NP, RP map[int]bool
	// CNPDSCP and CNPPCP: the class this host's notification point gives
	// the CNPs it sends (mlx5 ecn/roce_np/cnp_dscp, cnp_802p_prio); -1
	// when not reported.
	CNPDSCP, CNPPCP int
}

// Host is the QoS settings of a host's netdevs, by name.
type Host struct {
	Netdevs []Netdev
}

// HostOf collects c's DCB and ECN settings per netdev. Settings of a
// device with no netdev (debugfs cc_params, mlxconfig) are not per
// priority and are left out.
func HostOf(c *probes.Config) Host {
	var h Host
	if c == nil {
		return h
	}
	at := func(name string) *Netdev {
		for i := range h.Netdevs {
			if h.Netdevs[i].Name == name {
				return &h.Netdevs[i]
			}
		}
		h.Netdevs = append(h.Netdevs, Netdev{Name: name, CNPDSCP: -1, CNPPCP: -1})
		return &h.Netdevs[len(h.Netdevs)-1]
	}
	for _, d := range c.DCB {
		n := at(d.Netdev)
		n.Trust, n.DSCPToPrio, n.PFC, n.PrioToTC, n.TCTSA = d.Trust, d.DSCPToPrio, d.PFCEnabled, d.PrioToTC, d.TCTSA
	}
	for _, e := range c.ECN {
		if e.Netdev == "" {
			continue
		}
		n := at(e.Netdev)
		n.NP, n.RP = e.NPEnabled, e.RPEnabled
		n.CNPDSCP, n.CNPPCP = param(e.Params, "roce_np/cnp_dscp", 63), param(e.Params, "roce_np/cnp_802p_prio", 7)
	}
	slices.SortFunc(h.Netdevs, func(a, b Netdev) int { return cmp.Compare(a.Name, b.Name) })
	return h
}

// param is a small integer setting, -1 when absent or out of 0..most.
func param(m map[string]string, key string, most int) int {
	v, err := strconv.Atoi(m[key])
	if err != nil || v < 0 || v > most {
		return -1
	}
	return v
}

// Priority is the priority the netdev gives traffic of a class: by its
// DSCP under DSCP trust (a DSCP the map does not list is unknown: the
// driver's default map is not reported), by its PCP under PCP trust
// (untagged traffic gets the port's default priority, 0).
func (n *Netdev) Priority(dscp uint8, pcp *uint8) (int, bool) {
	switch n.Trust {
	case "dscp":
		p, ok := n.DSCPToPrio[int(dscp)]
		return p, ok
	case "pcp":
		if pcp == nil {
			return 0, true
		}
		return int(*pcp), true
	}
	return 0, false
}

// PFCOn says whether priority p is lossless, and whether that is known.
func (n *Netdev) PFCOn(p int) (on, known bool) {
	if n.PFC == nil {
		return false, false
	}
	return slices.Contains(n.PFC, p), true
}

// TSA is the transmission selection of priority p's traffic class.
func (n *Netdev) TSA(p int) (string, bool) {
	if p < 0 || p >= len(n.PrioToTC) {
		return "", false
	}
	tc := n.PrioToTC[p]
	if tc < 0 || tc >= len(n.TCTSA) {
		return "", false
	}
	return n.TCTSA[tc], true
}

// NPOn and RPOn say whether the DCQCN notification or reaction point is
// enabled on priority p, and whether that is known.
func (n *Netdev) NPOn(p int) (on, known bool) { return enabled(n.NP, p) }

// RPOn: see NPOn.
func (n *Netdev) RPOn(p int) (on, known bool) { return enabled(n.RP, p) }

func enabled(m map[int]bool, p int) (on, known bool) {
	on, known = m[p]
	return on, known
}

// ECNInUse says whether DCQCN is enabled on any priority: a host that
// enables it nowhere runs without it by choice.
func (n *Netdev) ECNInUse() bool {
	for _, m := range []map[int]bool{n.NP, n.RP} {
		for _, on := range m {
			if on {
				return true
			}
		}
	}
	return false
}

// CNPPriority is the priority of the CNPs this netdev's notification
// point sends, by its trust mode.
func (n *Netdev) CNPPriority() (int, bool) {
	switch n.Trust {
	case "dscp":
		if n.CNPDSCP < 0 {
			return 0, false
		}
		return n.Priority(uint8(n.CNPDSCP), nil)
	case "pcp":
		return n.CNPPCP, n.CNPPCP >= 0
	}
	return 0, false
}

// Netdev returns the settings of the netdev called name, nil when the
// host reported none.
func (h Host) Netdev(name string) *Netdev {
	for i := range h.Netdevs {
		if h.Netdevs[i].Name == name {
			return &h.Netdevs[i]
		}
	}
	return nil
}

// Agree asks each netdev (only the one called name, unless name is "")
// and returns the answer they all give: a capture's flow is judged by
// the host's netdevs together, since which of them carried it is not
// known. Netdevs that cannot tell are not asked; none that can, or two
// that disagree, is unknown.
func Agree[T comparable](h Host, name string, ask func(*Netdev) (T, bool)) (T, bool) {
	var v, zero T
	found := false
	for i := range h.Netdevs {
		n := &h.Netdevs[i]
		if name != "" && n.Name != name {
			continue
		}
		w, ok := ask(n)
		if !ok {
			continue
		}
		if found && w != v {
			return zero, false
		}
		v, found = w, true
	}
	return v, found
}
