package sampler

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
)

// The views a live sample builds, for models built from other inputs
// (package saved reads what a customer sends): the same counters get the
// same canonical names, PFC, congestion and traffic views as on a live
// host.

// EthtoolCounters turns ethtool -S statistics into counters, under
// canonical names where the driver's table has them.
func EthtoolCounters(raw ethtool.Raw) []probes.Counter { return ethtoolCounters(raw) }

// PortViews fills p's PFC, congestion and traffic views from its counters
// (with their rates, when known). dcb, when known, says which priorities
// have PFC on.
func PortViews(p *probes.Port, dcb *probes.DCBConfig) {
	p.PFC = pfcView(&collected{}, p.Netdev, p.Counters, 0)
	if dcb != nil {
		for _, e := range dcb.PFCEnabled {
			if !slices.ContainsFunc(p.PFC, func(q probes.PFCPriority) bool { return q.Priority == e }) {
				p.PFC = append(p.PFC, probes.PFCPriority{Priority: e})
			}
		}
		for i := range p.PFC {
			on := slices.Contains(dcb.PFCEnabled, p.PFC[i].Priority)
			p.PFC[i].Enabled = &on
		}
		slices.SortFunc(p.PFC, func(a, b probes.PFCPriority) int { return a.Priority - b.Priority })
	}
	p.Congestion = congestionView(p.Counters)
	p.Traffic = trafficView(p.Counters)
}

// ProbeQP is a QP of the RDMA netlink dump (or of `rdma -j res show qp`)
// in the snapshot model, without what /proc adds (memlock).
func ProbeQP(q rdmanl.QP) probes.QP {
	pq := probes.QP{Device: q.Dev, Port: int(q.Port), LQPN: q.LQPN, Type: q.Type.String(), State: q.State.String(),
		Comm: q.Comm, KernOwner: q.KernOwner}
	if q.HasRQPN {
		v := q.RQPN
		pq.RQPN = &v
	}
	sq := q.SQPSN
	pq.SQPSN = &sq
	if q.HasRQPSN {
		v := q.RQPSN
		pq.RQPSN = &v
	}
	if q.HasPathMig {
		pq.PathMig = q.PathMig.String()
	}
	if q.HasPID {
		v := int(q.PID)
		pq.PID = &v
	}
	return pq
}

// TreeSources reads a saved sysfs-style tree (sys/ and proc/ below root)
// and nothing else: unlike LiveSources, no netlink, ioctl or kmsg source
// of the running kernel is opened, since the tree is another host's.
func TreeSources(root string) Sources {
	src := Sources{FS: os.DirFS(root), Label: "tree " + root, Host: hostInfo(root)}
	if _, err := os.Stat(filepath.Join(root, "proc", "meminfo")); err == nil {
		src.ProcRoot = root
	}
	return src
}
