package flight

import (
	"fmt"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
)

// silence follows each port's RDMA traffic for TriggerSilence: the port
// carried RDMA traffic, then none for Options.Silence while QPs that a
// process owns stayed in RTS on it. No transport error comes of it (an
// idle QP has nothing to time out), so nothing else triggers: the job
// above the QPs hung.
//
// Only a process's QPs count: the kernel keeps its own in RTS whether or
// not a job runs (QP0/QP1, the SMI and GSI QPs every port has; QPs of
// ib_core, rdma_cm, nvme_rdma, ...), so a job that ended and destroyed
// its QPs leaves only those, and must not read as a hung one.
//
// Traffic is RDMA traffic, never the netdev's bytes: the port's RDMA
// byte or packet counters where the device has them (mlx5's
// port_xmit_data, Soft-RoCE's sent_pkts), else the RoCE packets the
// capture saw on the port's netdev in the Frame's interval. A netdev
// carries other traffic (IPv6 router solicitations and MLD reports keep
// coming on an idle Soft-RoCE link) that would reset the silence forever.
type silence struct {
	after time.Duration // 0: off
	ports map[string]*portQuiet
}

type portQuiet struct {
	active time.Time // the last Frame with RDMA traffic while a process's QPs were in RTS
	fired  bool      // this silence has triggered
}

// judge returns the detail of a port gone silent in f, if one has, and
// when it last carried traffic.
func (s *silence) judge(f *monitor.Frame) (string, time.Time, bool) {
	if s.after <= 0 || f.Snapshot == nil {
		return "", time.Time{}, false
	}
	type key struct {
		dev  string
		port int
	}
	rts := map[key]int{}
	for i := range f.Snapshot.QPs {
		if q := &f.Snapshot.QPs[i]; q.State == "RTS" && processQP(q) {
			rts[key{q.Device, q.Port}]++
		}
	}
	if s.ports == nil {
		s.ports = map[string]*portQuiet{}
	}
	seen := map[string]bool{}
	detail, since, found := "", time.Time{}, false
	for i := range f.Snapshot.Ports {
		p := &f.Snapshot.Ports[i]
		id := fmt.Sprintf("%s/%d", p.Device, p.Port)
		seen[id] = true
		st := s.ports[id]
		if st == nil {
			st = &portQuiet{}
			s.ports[id] = st
		}
		n := rts[key{p.Device, p.Port}]
		if n == 0 {
			// No job's QP in RTS: nothing can hang. The next silence
			// counts from the next traffic of the next job's QPs, not
			// from a job that ended long ago.
			st.active, st.fired = time.Time{}, false
			continue
		}
		moved, known := rdmaTraffic(p, f.Interval)
		if !known {
			continue // no RDMA rate this tick: no evidence either way
		}
		if moved {
			st.active, st.fired = f.Time, false
			continue
		}
		if st.active.IsZero() || st.fired || f.Time.Sub(st.active) < s.after {
			continue
		}
		st.fired = true
		if !found {
			detail, found = fmt.Sprintf("%s: no RDMA traffic for %s while %d QPs of a process stay in RTS", id, f.Time.Sub(st.active).Round(time.Second), n), true
			since = st.active
		}
	}
	for id := range s.ports {
		if !seen[id] {
			delete(s.ports, id) // the port went away: its state with it
		}
	}
	return detail, since, found
}

// processQP says whether a process owns q: it has an owning task (the
// kernel names none for its own QPs, it names their module instead) and
// is none of the two special QPs every port has (0: SMI, 1: GSI).
func processQP(q *probes.QP) bool {
	return q.LQPN > 1 && q.KernOwner == "" && q.PID != nil
}

// trafficRDMA is probes.Traffic.Source when the port's rates come from its
// RDMA counters (probes/sampler's trafficView).
const trafficRDMA = "rdma port counters"

// rdmaTraffic says whether port p carried RDMA traffic in the interval,
// and whether that is known: from its RDMA byte counters, else its RDMA
// packet counters (canonical rx_packets/tx_packets are the RDMA port's;
// the netdev's are netdev_*), else the RoCE packets a capture of its
// netdev saw in iv (a capture that was blind part of the interval, its
// link down, proves nothing).
func rdmaTraffic(p *probes.Port, iv *capture.Summary) (moved, known bool) {
	add := func(r *float64) {
		if r != nil {
			known = true
			moved = moved || *r > 0
		}
	}
	if p.Traffic.Source == trafficRDMA {
		add(p.Traffic.RxBytesPerSec)
		add(p.Traffic.TxBytesPerSec)
		add(p.Traffic.RxPacketsPerSec)
		add(p.Traffic.TxPacketsPerSec)
	}
	for i := range p.Counters {
		switch c := &p.Counters[i]; c.Name {
		case "rx_bytes", "tx_bytes", "rx_packets", "tx_packets":
			add(c.Rate)
		}
	}
	if known {
		return moved, true
	}
	if iv != nil && p.Netdev != "" && iv.Interface == p.Netdev && iv.BlindS == 0 {
		return iv.RoCEPackets > 0, true
	}
	return false, false
}
