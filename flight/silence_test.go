package flight

import (
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/rules"
)

func ptr[T any](v T) *T { return &v }

// jobQP is a QP of ib_write_bw (qps.txt of testdata/lab/flight-stopped),
// gsiQP the kernel's QP1 beside it, which stays in RTS after every job.
func jobQP(state string) probes.QP {
	return probes.QP{Device: "rxe0", Port: 1, LQPN: 17, RQPN: ptr(uint32(17)), Type: "RC", State: state, PID: ptr(216), Comm: "ib_write_bw"}
}

func gsiQP() probes.QP {
	return probes.QP{Device: "rxe0", Port: 1, LQPN: 1, Type: "GSI", State: "RTS", KernOwner: "ib_core"}
}

// silenceRun judges 60 one-second Frames of a port (port(i) builds the
// port, qps(i) its QPs, iv(i) the capture's interval, nil: none) and
// returns the seconds at which traffic-stopped fired.
func silenceRun(port func(i int) probes.Port, qps func(i int) []probes.QP, iv func(i int) *capture.Summary) []int {
	s := silence{after: 10 * time.Second}
	var fired []int
	for i := range 60 {
		at := t0.Add(time.Duration(i) * time.Second)
		f := &monitor.Frame{Time: at, Snapshot: &probes.Snapshot{Time: at, Ports: []probes.Port{port(i)}, QPs: qps(i)}}
		if iv != nil {
			f.Interval = iv(i)
		}
		if _, _, ok := s.judge(f); ok {
			fired = append(fired, i)
		}
	}
	return fired
}

// mlx5Port carries RDMA byte counters (the sampler's traffic view says
// so); busy says whether they moved.
func mlx5Port(busy bool) probes.Port {
	bps := 0.0
	if busy {
		bps = 3e9
	}
	return probes.Port{Device: "rxe0", Port: 1, Netdev: "eth0",
		Traffic: probes.Traffic{RxBytesPerSec: ptr(bps), TxBytesPerSec: ptr(bps), Source: trafficRDMA}}
}

// A job ends normally: its QPs are destroyed at 20 s, only the kernel's
// QP1 stays in RTS and the port is silent. Nothing hung: no trigger,
// however long the silence. The same job with its QP left in RTS and
// nothing sent from 20 s on (stopped with SIGSTOP, as in the lab) fires
// once, 10 s after its last traffic.
func TestSilenceCountsOnlyAProcesssQPs(t *testing.T) {
	port := func(i int) probes.Port { return mlx5Port(i < 20) }
	ended := silenceRun(port, func(i int) []probes.QP {
		if i < 20 {
			return []probes.QP{jobQP("RTS"), gsiQP()}
		}
		return []probes.QP{gsiQP()}
	}, nil)
	if len(ended) != 0 {
		t.Errorf("a job that ended (only QP1 in RTS) fired traffic-stopped at %v s", ended)
	}
	// Kernel QPs other than QP0/QP1 (a storage initiator's) are not a job
	// either.
	kernel := silenceRun(port, func(i int) []probes.QP {
		return []probes.QP{gsiQP(), {Device: "rxe0", Port: 1, LQPN: 40, Type: "RC", State: "RTS", KernOwner: "nvme_rdma"}}
	}, nil)
	if len(kernel) != 0 {
		t.Errorf("kernel QPs fired traffic-stopped at %v s", kernel)
	}
	hung := silenceRun(port, func(int) []probes.QP { return []probes.QP{jobQP("RTS"), gsiQP()} }, nil)
	if len(hung) != 1 || hung[0] != 29 {
		t.Errorf("a job's QP in RTS without traffic since 19 s: fired at %v s, want once at 29", hung)
	}
}

// Soft-RoCE: the port has no RDMA counters the sampler rates (here
// none at all; rxe's are packets) and its netdev keeps moving (IPv6
// router solicitations, MLD reports). The silence is judged on the RoCE
// packets a capture of the netdev saw: the job's traffic stops at 20 s,
// the netdev's bytes do not, and traffic-stopped fires 10 s later.
// Without a capture of the port's netdev there is no evidence either way.
func TestSilenceSoftRoCEByCapture(t *testing.T) {
	port := func(i int) probes.Port {
		return probes.Port{Device: "rxe0", Port: 1, Netdev: "veth0",
			Traffic: probes.Traffic{RxBytesPerSec: ptr(180.0), TxBytesPerSec: ptr(90.0), RxPacketsPerSec: ptr(2.0), TxPacketsPerSec: ptr(1.0), Source: "netdev"}}
	}
	qps := func(int) []probes.QP { return []probes.QP{jobQP("RTS"), gsiQP()} }
	iv := func(i int) *capture.Summary {
		s := &capture.Summary{Interface: "veth0", Packets: 3, NonRoCEPackets: 3} // RS and MLD
		if i < 20 {
			s.RoCEPackets, s.Packets = 9000, 9003
		}
		return s
	}
	if got := silenceRun(port, qps, iv); len(got) != 1 || got[0] != 29 {
		t.Errorf("fired at %v s, want once at 29: RoCE packets stopped at 20 s, the netdev's RS/MLD must not reset the silence", got)
	}
	if got := silenceRun(port, qps, nil); len(got) != 0 {
		t.Errorf("without a capture: fired at %v s", got)
	}
	other := func(i int) *capture.Summary { s := iv(i); s.Interface = "veth1"; return s }
	if got := silenceRun(port, qps, other); len(got) != 0 {
		t.Errorf("a capture of another netdev: fired at %v s", got)
	}
	// rxe's own packet counters (sent_pkts, rcvd_pkts: canonical
	// tx_packets, rx_packets) are RDMA traffic and judge it without a
	// capture.
	counted := func(i int) probes.Port {
		p, r := port(i), 0.0
		if i < 20 {
			r = 5000
		}
		p.Counters = []probes.Counter{{Name: "tx_packets", Native: "sent_pkts", Source: "hw_counters", Rate: ptr(r)},
			{Name: "rx_packets", Native: "rcvd_pkts", Source: "hw_counters", Rate: ptr(r)},
			{Name: "netdev_rx_bytes", Native: "rx_bytes", Source: "rtnl", Rate: ptr(180.0)}}
		return p
	}
	if got := silenceRun(counted, qps, nil); len(got) != 1 || got[0] != 29 {
		t.Errorf("rxe's packet counters: fired at %v s, want once at 29", got)
	}
}

// Through the recorder: a job that ends normally under
// --trigger-silence writes nothing.
func TestJobThatEndsWritesNothing(t *testing.T) {
	r, dir, _ := newTestRecorder(t, func(o *Options) { o.Silence, o.Keep = 5*time.Second, time.Minute })
	for i := range 30 {
		at := t0.Add(time.Duration(i) * time.Second)
		if err := r.WriteTick(&bundle.Tick{Time: at, Full: true}); err != nil {
			t.Fatal(err)
		}
		snap := &probes.Snapshot{Time: at, Ports: []probes.Port{mlx5Port(i < 10)}, QPs: []probes.QP{gsiQP()}}
		if i < 10 {
			snap.QPs = append(snap.QPs, jobQP("RTS"))
		}
		r.Observe(&monitor.Frame{Time: at, Snapshot: snap, Rules: []rules.RuleState{{Rule: "x"}}})
	}
	r.Close()
	if files := incidents(t, dir); len(files) != 0 {
		t.Errorf("a job that ended wrote %v", files)
	}
}
