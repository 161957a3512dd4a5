package rules

import (
	"net/netip"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
)

// maxPayloadTo maps each destination address of a capture to the largest
// RoCE payload addressed to it, or nil without a capture.
func maxPayloadTo(w *capture.Summary) map[netip.Addr]int {
	if w == nil {
		return nil
	}
	m := map[netip.Addr]int{}
	for i := range w.Flows {
		f := &w.Flows[i]
		if a, err := netip.ParseAddr(f.Dst); err == nil {
			a = a.Unmap()
			m[a] = max(m[a], f.MaxPayload)
		}
	}
	return m
}

// portMaxPayloadIn is the largest payload the capture shows addressed to
// one of the port's GIDs: nil without a capture or GIDs, or when nothing
// was addressed to the port.
func portMaxPayloadIn(to map[netip.Addr]int, cfg *probes.Config, dev string, port int) any {
	if to == nil || cfg == nil {
		return nil
	}
	var best any
	for _, g := range cfg.GIDs {
		if g.Device != dev || g.Port != port {
			continue
		}
		a, err := netip.ParseAddr(g.GID)
		if err != nil {
			continue
		}
		if n, ok := to[a.Unmap()]; ok && (best == nil || n > best.(int)) {
			best = n
		}
	}
	return best
}
