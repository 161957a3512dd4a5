package exporter

import (
	"io"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
)

// bigFrame is a large host: the fixture's mlx5_0 port copied to 16 ports
// (every counter, PFC, congestion) and 10,000 QPs in a few states.
func bigFrame(b *testing.B) monitor.Frame {
	f := fixtureFrames(b)[1]
	s := *f.Snapshot
	var port probes.Port
	for _, p := range s.Ports {
		if p.Device == "mlx5_0" {
			port = p
		}
	}
	s.Ports = nil
	for i := range 16 {
		p := port
		p.Device, p.Netdev = "mlx5_"+strconv.Itoa(i), "eth"+strconv.Itoa(i)
		s.Ports = append(s.Ports, p)
	}
	s.QPs = nil
	states := []string{"RTS", "RTS", "RTS", "INIT", "ERR"}
	for i := range 10000 {
		s.QPs = append(s.QPs, probes.QP{Device: "mlx5_" + strconv.Itoa(i%16), Port: 1, LQPN: uint32(0x100 + i),
			Type: "RC", State: states[i%len(states)], Comm: "nccl"})
	}
	f.Snapshot = &s
	return f
}

// BenchmarkScrape: a Frame of 16 ports and 10,000 QPs, as a scrape sees
// it: Update (once per Frame) then /metrics rendered. Target ≤ 20 ms per
// Frame for both together; allocations reported. Per-QP series on, at the
// default cap of 1,000.
func BenchmarkScrape(b *testing.B) {
	pack, _ := rules.Default()
	f := bigFrame(b)
	for _, perQP := range []bool{false, true} {
		name := "aggregated"
		if perQP {
			name = "per-qp"
		}
		b.Run(name, func(b *testing.B) {
			e := New(Options{Pack: pack, PerQP: perQP})
			h := Handler(e, ServerOptions{})
			e.Update(f)
			req := httptest.NewRequest("GET", "/metrics", nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f.Seq = i
				e.Update(f)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
				io.Discard.Write(w.Body.Bytes())
			}
		})
	}
}
