package rules

import (
	"fmt"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// BenchmarkEvaluatePack evaluates the whole built-in pack on a frame with
// 16 ports (each with a real mlx5 port's counter set and 8 PFC priorities)
// and 10,000 QPs.
func BenchmarkEvaluatePack(b *testing.B) {
	p, err := Default()
	if err != nil {
		b.Fatal(err)
	}
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
	for i := range 10000 {
		pid := 1000 + i%50
		snap.QPs = append(snap.QPs, probes.QP{Device: fmt.Sprintf("mlx5_%d", i%16), Port: 1, LQPN: uint32(0x100 + i), Type: "RC", State: "RTS", PID: &pid, Comm: "trainer", MemlockUnlimited: true})
	}
	snap.Status = []probes.Status{{Source: "sysfs", State: probes.StateOK}, {Source: "rdma netlink", State: probes.StateOK}}
	e := NewEngine(p)
	e.IgnoreFor = true
	b.ReportAllocs()
	for b.Loop() {
		snap.Time = snap.Time.Add(time.Second)
		e.Evaluate(Frame{Time: snap.Time, Snapshot: snap})
	}
}
