package dcb

import "github.com/rdmatop/rdmatop/probes"

// Snapshot returns the part of c that the snapshot model carries. PFC
// priorities are listed only when PFC was reported; Trust only when known.
// Where the APP table maps one DSCP to several priorities, the highest wins.
func (c Config) Snapshot() probes.DCBConfig {
	s := probes.DCBConfig{Netdev: c.Ifname, PFCEnabled: []int{}, Trust: c.Trust.Mode}
	if c.PFC != nil {
		for p, on := range c.PFC.Enabled {
			if on {
				s.PFCEnabled = append(s.PFCEnabled, p)
			}
		}
	}
	if len(c.DSCPMap) > 0 {
		s.DSCPToPrio = map[int]int{}
		for _, m := range c.DSCPMap {
			s.DSCPToPrio[int(m.DSCP)] = int(m.Priority)
		}
	}
	if c.ETS != nil {
		s.PrioToTC = make([]int, 8)
		for p, tc := range c.ETS.PrioTC {
			s.PrioToTC[p] = int(tc)
		}
		s.TCTSA = c.ETS.TSA
	}
	return s
}
