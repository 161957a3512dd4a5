package monitor

import (
	"sync"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
)

// wireState is the run's capture analysis. Live, a pump goroutine feeds it
// while ticks cut it: mu guards the analyzer and the recorder, so a tick
// sees every packet analysed before it and the recording holds packets and
// ticks in the order they were analysed.
type wireState struct {
	mu  sync.Mutex
	a   *capture.Analyzer
	rec Recorder
	// recErr is the recorder's first failure; the run stops on it.
	recErr error

	name   string // the live interface
	live   bool
	stats  WireStats
	status probes.Status
	drops  uint64 // kernel drops at the last cut
}

func newWireState(cfg capture.Config) *wireState {
	a := capture.NewAnalyzer(cfg)
	a.Begin(0) // cut into intervals from the first packet; live sets the start
	return &wireState{a: a}
}

// packet analyses one frame and records it; mu is held.
func (w *wireState) packet(data []byte, ci gopacket.CaptureInfo, link layers.LinkType) {
	w.a.Packet(data, ci, link)
	if w.rec != nil && w.recErr == nil {
		w.recErr = w.rec.WritePacket(ci, data)
	}
}

// cut ends the interval at end (Unix ns) and returns the running analysis,
// the interval's and up to packets recent packets; mu is held.
func (w *wireState) cut(end int64, packets int) (cum, iv *capture.Summary, recent []capture.PacketLine) {
	iv = w.a.Cut(end)
	cum = w.a.Running()
	w.describe(cum)
	w.describe(iv)
	if w.stats != nil {
		if st, err := w.stats.Stats(); err == nil {
			total := st.Drops
			d := total - min(w.drops, total)
			w.drops = total
			cum.KernelDrops, iv.KernelDrops = &total, &d
		}
	}
	if packets > 0 {
		recent = w.a.Tracker().Recent(0, packets)
	}
	return cum, iv, recent
}

// describe labels a live analysis with its interface.
func (w *wireState) describe(s *capture.Summary) {
	if !w.live {
		return
	}
	s.File, s.Format, s.LinkType = w.name, "live", "ethernet"
}
