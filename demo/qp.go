package demo

import (
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/sampler"
)

// The demo's queue pairs: an ib_write_bw-like job with four RC QPs on
// mlx5_0 and an NVMe-oF kernel QP on mlx5_1.
//
// Simulated above the parser: these are rdmanl.QP values as the RDMA
// netlink parser would return them (no netlink replies are encoded). They
// go through the real qpevent.Detector, which turns the state change into
// the qp_state event, and into the Snapshot as the sampler's assembly does.
const (
	demoPID   = 4242
	demoComm  = "ib_write_bw"
	failedQPN = 0x1a5 // the QP that goes to ERR
	newQPN    = 0x1a8 // the QP the job creates after it
)

func rcQP(dev string, devIndex uint32, lqpn, rqpn, psn uint32) rdmanl.QP {
	return rdmanl.QP{DevIndex: devIndex, Dev: dev, Port: 1, LQPN: lqpn, RQPN: rqpn, HasRQPN: true,
		Type: rdmanl.QPTypeRC, State: rdmanl.QPRTS, SQPSN: psn, RQPSN: psn + 0x100, HasRQPSN: true,
		PDN: 3, HasPDN: true, PID: demoPID, HasPID: true, Comm: demoComm}
}

func initialQPs() []rdmanl.QP {
	var qps []rdmanl.QP
	for n := uint32(0); n < 4; n++ {
		qps = append(qps, rcQP("mlx5_0", 0, 0x1a4+n, 0x3c4+n, 0x10000*(n+1)))
	}
	k := rcQP("mlx5_1", 1, 0x2c0, 0x5e0, 0x777)
	k.HasPID, k.PID, k.Comm, k.KernOwner = false, 0, "", "nvme_rdma"
	return append(qps, k)
}

// addQPs updates the QP table for tick i (state changes at the start of
// the "QP drops to ERR" episode and after it), and adds the QPs and their
// events to snap.
func (s *Scenario) addQPs(snap *probes.Snapshot, k phaseKind, i int, now time.Time) {
	switch {
	case k == qpErr && i == phases[qpErr].First:
		for j := range s.qps {
			if s.qps[j].LQPN == failedQPN {
				s.qps[j].State = rdmanl.QPErr
			}
		}
	case k == loss && i == phases[loss].First:
		// The job destroys the failed QP and reconnects with a new one.
		var keep []rdmanl.QP
		for _, q := range s.qps {
			if q.LQPN != failedQPN {
				keep = append(keep, q)
			}
		}
		s.qps = append(keep, rcQP("mlx5_0", 0, newQPN, 0x3c8, 0x50000))
	}
	for j := range s.qps {
		if s.qps[j].State == rdmanl.QPRTS && s.qps[j].Dev == "mlx5_0" {
			s.qps[j].SQPSN = (s.qps[j].SQPSN + 977) & 0xffffff // traffic moves the PSNs
		}
	}
	for _, q := range s.qps {
		snap.QPs = append(snap.QPs, sampler.ProbeQP(q))
	}
	for _, e := range s.det.Observe(s.qps, now) {
		snap.Events = append(snap.Events, e.Probe())
	}
	for j := range snap.Status {
		if snap.Status[j].Source == "rdma netlink" {
			snap.Status[j] = probes.Status{Source: "rdma netlink", State: probes.StateOK,
				Detail: "demo: QPs simulated above the RDMA netlink parser"}
		}
	}
}
