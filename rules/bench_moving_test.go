package rules

import (
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// BenchmarkEvaluatePackMoving is BenchmarkEvaluatePack with every port
// value moving every tick, as on a busy live host: each counter's value,
// delta and rate and each priority's pause rates change, so nothing a
// port's conditions or evidence read repeats from one tick to the next.
// About 110 port findings fire every tick, with new evidence each time.
//
// Target (issue 19): at most 3 ms per tick at 16 ports and 10,000 QPs,
// with one rule evaluator (expr, through its public API).
//
// Measured with go test -run '^$' -bench 'BenchmarkEvaluatePackMoving$'
// -benchmem -count=3 ./rules/ (the range of the runs, shared 2-core VM):
//
//	2026-12-02  1.21-1.96 ms/op  361,400 B/op   4,356 allocs/op (port
//	            and priority conditions and evidence interpreted by a
//	            copy of expr and text/template in Go)
//	2026-12-04  1.17 ms/op       386,600 B/op   4,415 allocs/op (the same
//	            code, beside the next line)
//	2026-12-04  2.09-2.15 ms/op  700,000 B/op  12,570 allocs/op (one
//	            evaluator; counters looked up by an index built once per
//	            port; QPs that did not change keep their answers)
func BenchmarkEvaluatePackMoving(b *testing.B) {
	benchSnapshot(b, fleetSnapshot(10_000, 0, false), func(*probes.Counter) bool { return true }, true)
}

// BenchmarkEvaluatePackBusyHealthy is a healthy host under load: the
// traffic counters (rx/tx packets and bytes) move every tick, the error
// counters keep their reading (no delta, no rate) and the priorities their
// pause rates, so few port findings fire.
//
// Measured as BenchmarkEvaluatePackMoving:
//
//	2026-12-02  1.05-1.18 ms/op  172,875 B/op  3,132 allocs/op (a copy
//	            of expr in Go)
//	2026-12-04  1.14-1.17 ms/op  390,000 B/op  7,110 allocs/op (one
//	            evaluator)
func BenchmarkEvaluatePackBusyHealthy(b *testing.B) {
	snap := fleetSnapshot(10_000, 0, false)
	for i := range snap.Ports {
		for j := range snap.Ports[i].Counters {
			c := &snap.Ports[i].Counters[j]
			if !trafficCounter(c.Name) {
				*c.Delta, *c.Rate = 0, 0
			}
		}
	}
	benchSnapshot(b, snap, func(c *probes.Counter) bool { return trafficCounter(c.Name) }, false)
}

func trafficCounter(name string) bool {
	switch name {
	case "rx_packets", "tx_packets", "rx_bytes", "tx_bytes":
		return true
	}
	return false
}

// benchSnapshot evaluates the pack on snap one second later each tick,
// the counters moves says move by a different amount each tick (and the
// priorities' pause rates, when pfc).
func benchSnapshot(b *testing.B, snap *probes.Snapshot, moves func(c *probes.Counter) bool, pfc bool) {
	p, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	e := NewEngine(p)
	e.IgnoreFor = true
	b.ReportAllocs()
	tick := 0
	for b.Loop() {
		tick++
		snap.Time = snap.Time.Add(time.Second)
		for i := range snap.Ports {
			port := &snap.Ports[i]
			for j := range port.Counters {
				c := &port.Counters[j]
				if !moves(c) {
					continue
				}
				d := uint64(10 + (tick+j)%13)
				c.Value += d
				*c.Delta = d
				*c.Rate = float64(d)
			}
			for j := range port.PFC {
				if !pfc {
					break
				}
				*port.PFC[j].RxPausePerSec = float64((tick + j) % 5)
				*port.PFC[j].TxPausePerSec = float64((tick + j) % 3)
			}
		}
		e.Evaluate(Frame{Time: snap.Time, Snapshot: snap})
	}
}
