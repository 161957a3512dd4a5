package ui

import (
	"fmt"
	"testing"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
)

func bigFrame(tb testing.TB) monitor.Frame {
	f := fixtureFrame(tb)
	s := *f.Snapshot
	base := s.Ports[0]
	s.Ports = nil
	for i := 0; i < 16; i++ {
		p := base
		p.Device = fmt.Sprintf("mlx5_%d", i)
		p.Netdev = fmt.Sprintf("eth%d", i)
		s.Ports = append(s.Ports, p)
	}
	s.QPs = make([]probes.QP, 10000)
	states := []string{"RTS", "RTS", "RTS", "ERR", "INIT", "RTR", "SQD"}
	for i := range s.QPs {
		s.QPs[i] = probes.QP{Device: fmt.Sprintf("mlx5_%d", i%16), Port: 1, LQPN: uint32(i + 100), RQPN: u32p(uint32(20000 + i)),
			Type: "RC", State: states[i%len(states)], PID: intp(1000 + i%50), Comm: fmt.Sprintf("worker-%d", i%50),
			SQPSN: u32p(uint32(i * 7)), RQPSN: u32p(uint32(i * 11))}
	}
	f.Snapshot = &s
	return f
}

func benchView(b *testing.B, view string, noColor bool) {
	m := send(sized(New(Options{NoColor: noColor}), 160, 48), FrameMsg{bigFrame(b)})
	m = press(m, view)
	if view == "2" {
		m = press(m, "s", "s", "s", "S") // sorted by LQPN descending
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}

func BenchmarkViewQPs10k(b *testing.B)             { benchView(b, "2", false) }
func BenchmarkViewQPs10kNoColor(b *testing.B)      { benchView(b, "2", true) }
func BenchmarkViewOverview16Ports(b *testing.B)    { benchView(b, "1", false) }
func BenchmarkViewOverview16PortsNoC(b *testing.B) { benchView(b, "1", true) }

// A frame arriving (Update: rebuild and re-sort 10,000 QP rows) is the
// other per-tick cost.
func BenchmarkFrameUpdate10kQPs(b *testing.B) {
	f := bigFrame(b)
	m := press(send(sized(New(Options{}), 160, 48), FrameMsg{f}), "2", "s", "s", "s")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m = send(m, FrameMsg{f})
	}
}
