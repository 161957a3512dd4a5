package sampler

// Which devices -d and -i select in a sample.

import "maps"

// selection is the RDMA devices -d and -i select, with their netdevs and
// PCI addresses (to match kernel log lines).
type selection struct {
	devs, netdevs, pcis map[string]bool
}

// selectionOf says which devices -d/-i select in this sample: nil when
// there is no selection; known false when this sample cannot tell (sysfs
// did not answer and nothing earlier said).
func (s *Sampler) selectionOf(c *collected) (sel *selection, known bool) {
	if s.opt.Device == "" && s.opt.Netdev == "" {
		return nil, true
	}
	sel = &selection{devs: map[string]bool{}, netdevs: map[string]bool{}, pcis: map[string]bool{}}
	if s.opt.Netdev != "" {
		sel.netdevs[s.opt.Netdev] = true
	}
	if s.opt.Netdev == "" {
		// -d alone names the device: nothing to look up.
		sel.devs[s.opt.Device] = true
		known = true
	}
	switch {
	case c.devsOK:
		for _, d := range c.devs {
			sel.devs[d.Name] = true
			if d.PCI != "" {
				sel.pcis[d.PCI] = true
			}
		}
		for _, l := range c.links {
			sel.netdevs[l.Netdev] = true
		}
		known = true
	case s.selected != nil:
		maps.Copy(sel.devs, s.selected.devs)
		maps.Copy(sel.netdevs, s.selected.netdevs)
		maps.Copy(sel.pcis, s.selected.pcis)
		known = true
	}
	// RDMA netlink names each RoCE port's netdev too (sysfs may lack the
	// device, e.g. in a container).
	if c.rdma != nil && s.opt.Netdev != "" {
		for _, p := range c.rdma.ports {
			if p.Netdev == s.opt.Netdev && (s.opt.Device == "" || p.Dev == s.opt.Device) {
				sel.devs[p.Dev] = true
				known = true
			}
		}
	}
	return sel, known
}
