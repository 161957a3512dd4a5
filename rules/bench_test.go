package rules

import (
	"fmt"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// fleetSnapshot is a host at fleet size: 16 ports (each with a real mlx5
// port's counter set and 8 PFC priorities) and nQPs QPs spread over them,
// owned by 50 processes. Every errEvery-th QP is in ERR (0: none), and
// every 10th of those also changed state in the sample (a qp_state event);
// every 7th QP of a process with a low memlock limit (memlock: true).
func fleetSnapshot(nQPs, errEvery int, memlock bool) *probes.Snapshot {
	snap := &probes.Snapshot{Time: time.Unix(1_800_000_000, 0)}
	rate := func(v float64) *float64 { return &v }
	delta := func(v uint64) *uint64 { return &v }
	on := true
	for i := range 16 {
		port := probes.Port{Device: fmt.Sprintf("mlx5_%d", i), Port: 1, Netdev: fmt.Sprintf("eth%d", i), State: "ACTIVE",
			PhysState: "LinkUp", LinkLayer: "Ethernet", RateGbps: 100}
		for j, n := range []string{"cnp_sent", "cnp_handled", "cnp_ignored", "ecn_marked_roce_packets", "out_of_sequence",
			"packet_seq_err", "local_ack_timeout_err", "rnr_nak_retry_err", "out_of_buffer", "phy_rx_discards",
			"phy_rx_crc_errors", "phy_symbol_errors", "link_downed", "rx_packets", "tx_packets", "rx_bytes", "tx_bytes"} {
			port.Counters = append(port.Counters, probes.Counter{Name: n, Native: n, Source: "hw_counters", Value: uint64(j * 1000), Delta: delta(10), Rate: rate(10)})
		}
		for pr := range 8 {
			port.PFC = append(port.PFC, probes.PFCPriority{Priority: pr, Enabled: &on, RxPausePerSec: rate(1), TxPausePerSec: rate(1), RxPausedPercent: rate(0.1)})
		}
		mtu, rm := 9000, 4096
		port.MTU, port.RoCEMTU = &mtu, &rm
		snap.Ports = append(snap.Ports, port)
	}
	low := uint64(64 << 10)
	for i := range nQPs {
		pid := 1000 + i%50
		q := probes.QP{Device: fmt.Sprintf("mlx5_%d", i%16), Port: 1, LQPN: uint32(0x100 + i), Type: "RC", State: "RTS",
			PID: &pid, Comm: "trainer", MemlockUnlimited: true}
		if memlock && i%7 == 0 {
			q.MemlockUnlimited, q.MemlockSoft = false, &low
		}
		if errEvery > 0 && i%errEvery == 0 {
			q.State = "ERR"
			if i%(10*errEvery) == 0 {
				qpn := q.LQPN
				snap.Events = append(snap.Events, probes.Event{Time: snap.Time, Source: "qp", Kind: "qp_state",
					Severity: probes.SevCritical, Device: q.Device, QPN: &qpn, Detail: "RTS -> ERR"})
			}
		}
		snap.QPs = append(snap.QPs, q)
	}
	snap.Status = []probes.Status{{Source: "sysfs", State: probes.StateOK}, {Source: "rdma netlink", State: probes.StateOK}}
	return snap
}

// benchEvaluate evaluates the built-in pack on snap, one second later each
// time (the same objects tick after tick, as in a live run).
func benchEvaluate(b *testing.B, snap *probes.Snapshot) {
	benchSnapshot(b, snap, func(*probes.Counter) bool { return false }, false)
}

// BenchmarkEvaluatePack evaluates the whole built-in pack on a frame with
// 16 ports (each with a real mlx5 port's counter set and 8 PFC priorities)
// and 10,000 healthy QPs.
//
// Target (issue 12): at most 2 ms per Evaluate at 16 ports and 10,000
// QPs, with allocations bounded by the ports and the findings, not the QPs
// (TestEvaluateAllocsBounded).
//
// Measured with go test -run '^$' -bench BenchmarkEvaluatePack -benchmem
// -count=3 ./rules/ (the range of the runs, on a shared 2-core VM):
//
//	2026-12-02  1.31-2.2 ms/op  362,000 B/op   4,424 allocs/op (with a
//	            second interpreter of expr and text/template in Go)
//	2026-12-04  1.16 ms/op      387,000 B/op   4,483 allocs/op (the same
//	            code, measured beside the next line)
//	2026-12-04  2.09-2.13 ms/op 701,000 B/op  12,589 allocs/op (one
//	            evaluator: every condition is expr's, through its public
//	            API; a QP that did not change keeps the answers of the
//	            conditions that read only it, qpmemo.go)
//
// Where it goes: the 144 port and priority objects run about 1,000
// conditions through expr (a VM and its stack per run are most of the
// allocations), building the 10,000 QPs' views and telling which changed
// about a fifth, rendering evidence a quarter.
func BenchmarkEvaluatePack(b *testing.B) {
	benchEvaluate(b, fleetSnapshot(10_000, 0, false))
}

// BenchmarkEvaluatePackQPsInError is BenchmarkEvaluatePack with QPs that
// fire: 1 QP in 100 in ERR (a tenth of them with their qp_state event) and
// 1 in 7 with a low memlock limit, so qp-error-state and
// memory-registration-risk fire on about 1,500 QPs every tick.
//
// Measured as BenchmarkEvaluatePack:
//
//	before  28.5 ms/op  8,567,333 B/op  165,159 allocs/op
//	after   7.33 ms/op  2,833,269 B/op   15,910 allocs/op
//	2026-12-04, beside each other: 3.65 ms/op, 10,245 allocs/op with the
//	second interpreter; 5.07-5.23 ms/op, 3,261,000 B/op, 19,108 allocs/op
//	with one evaluator (the 1,500 firing QPs' identities, keys and
//	grouping are most of it, as before)
//
// A QP that keeps firing unchanged keeps its answers (qpmemo.go) and its
// evidence (evidence.go): a few allocations a tick (its identity and
// key), not a condition run or a template rendered.
func BenchmarkEvaluatePackQPsInError(b *testing.B) {
	benchEvaluate(b, fleetSnapshot(10_000, 100, true))
}
