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
// Measured with go test -run '^$' -bench 'BenchmarkEvaluatePackMoving$'
// -benchmem -count=5 ./rules/ (the range of the 5 runs; 2026-12-02, load
// average 3.4 on the shared 2-core VM, the engines run one after the
// other):
//
//	before  2.26-2.69 ms/op  583,470 B/op  10,146 allocs/op
//	        (2.2-4.4 ms/op, 9,194 allocs/op, with answers and evidence
//	        kept while their inputs stay the same: here they never do)
//	now     1.21-1.96 ms/op  361,400 B/op   4,356 allocs/op (median
//	        1.37: port and priority conditions evaluated in Go, their
//	        failures included, portcond.go; port evidence rendered in Go,
//	        evfast.go)
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
//	before  1.36-2.25 ms/op  294,220 B/op  5,404 allocs/op
//	        (1.09-1.75 ms/op, 3,600 allocs/op, with answers and evidence
//	        kept while their inputs stay the same: not worth their code
//	        once conditions and evidence cost little, so gone)
//	now     1.05-1.18 ms/op  172,875 B/op  3,132 allocs/op
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
