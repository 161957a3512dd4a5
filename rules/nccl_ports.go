package rules

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/nccl"
)

// ncclIdlePorts lists the host's ACTIVE RDMA ports that NCCL's network
// could use and does not: of the link layer and rate of those it uses
// (its "NET/IB : Using [0]mlx5_0:1/RoCE …" lines, every process of the
// log together), not among them. NCCL_IB_HCA or the topology leaving
// NICs out shows here; nil when NCCL named no RDMA device or the host's
// ports are unknown.
func ncclIdlePorts(events []probes.Event, ports []probes.Port) (used, idle []string) {
	inUse := map[string]bool{} // "mlx5_0/1"
	for i := range events {
		e := &events[i]
		if e.Source != "nccl" || e.Kind != nccl.KindNetDevices || e.NCCL == nil || e.NCCL.Net == "Socket" {
			continue
		}
		for _, d := range e.NCCL.Devices {
			// "mlx5_0:1/RoCE", "mlx5_0:1/IB/SHARP".
			name, rest, ok := strings.Cut(d, ":")
			port, _, _ := strings.Cut(rest, "/")
			if _, err := strconv.Atoi(port); ok && err == nil {
				inUse[name+"/"+port] = true
			}
		}
	}
	if len(inUse) == 0 {
		return nil, nil
	}
	// The kind of port NCCL uses: its link layer and its fastest rate.
	layers, rate := map[string]bool{}, 0.0
	for i := range ports {
		if p := &ports[i]; inUse[p.Device+"/"+strconv.Itoa(p.Port)] {
			layers[p.LinkLayer] = true
			rate = max(rate, p.RateGbps)
		}
	}
	for i := range ports {
		p := &ports[i]
		key := p.Device + "/" + strconv.Itoa(p.Port)
		switch {
		case inUse[key]:
			used = append(used, portLabel(p))
		case p.State == "ACTIVE" && len(layers) > 0 && layers[p.LinkLayer] && p.RateGbps >= rate:
			idle = append(idle, portLabel(p))
		}
	}
	slices.Sort(used)
	slices.Sort(idle)
	return used, idle
}
