package capture

import (
	"testing"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// idWire sends WRITE requests with the sender's IPv4 IDs through an
// analyzer cut into intervals.
type idWire struct {
	a   *Analyzer
	pkt uint64
	ts  int64
}

func newIDWire() *idWire {
	a := NewAnalyzer(Config{NoICRC: true})
	a.Begin(1)
	return &idWire{a: a, ts: 1}
}

func (w *idWire) send(psn uint32, id uint16) { w.sendQP(0x12, psn, id) }

func (w *idWire) sendQP(qp, psn uint32, id uint16) {
	var d Decoded
	d.Src, d.Dst, d.IPv4, d.Encap, d.WireLen, d.IPID = wireA, wireB, true, EncapRoCEv2, 100, id
	p := &d.RoCE
	p.BTH.Opcode, p.BTH.DestQP, p.BTH.PSN = roce.Opcode(roce.OpWriteOnly), qp, psn
	p.Headers |= roce.HasRETH
	p.PayloadLen = 1024
	w.pkt++
	w.ts += 10_000 // 10 µs apart
	w.a.tracker.Track(&d, w.ts, w.pkt)
}

// cut ends an interval after ns more and returns its request flow's gaps,
// missing PSNs and out-of-order packets.
func (w *idWire) cut(ns int64) (gaps, missing, ooo uint64) {
	w.ts += ns
	s := w.a.Cut(w.ts)
	for _, f := range s.Flows {
		gaps, missing, ooo = gaps+f.PSNGaps, missing+f.MissingPSNs, ooo+f.OutOfOrder
	}
	if s.Totals.PSNGaps != gaps {
		panic("totals disagree with the flows")
	}
	return gaps, missing, ooo
}

// A gap still open at a cut is not yet loss: an interval reports it once
// the packet that fills it says what it was. The late original (an IPv4
// ID before the packet that skipped it) makes it reordering, in no
// interval a gap; a resend (a newer ID) makes it a gap of the interval
// that saw the resend; a gap nothing fills is reported once its original
// can no longer come (lateHorizon), also when the flow has gone quiet. The
// intervals add up to the whole capture's count.
func TestGapOpenAtACutWaitsForItsFill(t *testing.T) {
	t.Run("late original", func(t *testing.T) {
		w := newIDWire()
		w.send(1, 101)
		w.send(3, 103) // 2 skipped
		if g, m, _ := w.cut(1000); g != 0 || m != 0 {
			t.Fatalf("interval 1: %d gaps, %d missing; want 0 0 (undecided)", g, m)
		}
		w.send(2, 102) // the original, late
		w.send(4, 104)
		if g, m, o := w.cut(1000); g != 0 || m != 0 || o != 1 {
			t.Fatalf("interval 2: %d gaps, %d missing, %d out of order; want 0 0 1", g, m, o)
		}
		if s := w.a.Summary(); s.Totals.PSNGaps != 0 || s.Totals.OutOfOrder != 1 {
			t.Fatalf("whole capture: %d gaps, %d out of order; want 0 1", s.Totals.PSNGaps, s.Totals.OutOfOrder)
		}
	})
	t.Run("resend", func(t *testing.T) {
		w := newIDWire()
		w.send(1, 101)
		w.send(3, 103)
		if g, _, _ := w.cut(1000); g != 0 {
			t.Fatalf("interval 1: %d gaps; want 0 (undecided)", g)
		}
		w.send(2, 104) // sent after 3: a resend
		w.send(3, 105)
		if g, m, _ := w.cut(1000); g != 1 || m != 1 {
			t.Fatalf("interval 2: %d gaps, %d missing; want 1 1", g, m)
		}
		if g, _, _ := w.cut(1000); g != 0 {
			t.Fatalf("interval 3: %d gaps; want 0 (counted once)", g)
		}
	})
	t.Run("never filled, flow quiet", func(t *testing.T) {
		w := newIDWire()
		w.send(1, 101)
		w.send(3, 103)
		if g, _, _ := w.cut(1000); g != 0 {
			t.Fatalf("interval 1: %d gaps; want 0 (undecided)", g)
		}
		// No packet of the flow in the next interval, which ends after
		// lateHorizon: the original can no longer come.
		if g, m, _ := w.cut(lateHorizon + 1); g != 1 || m != 1 {
			t.Fatalf("interval 2: %d gaps, %d missing; want 1 1", g, m)
		}
		if s := w.a.Summary(); s.Totals.PSNGaps != 1 {
			t.Fatalf("whole capture: %d gaps; want 1", s.Totals.PSNGaps)
		}
	})
	t.Run("evicted undecided", func(t *testing.T) {
		// A flow table of one: the next QP evicts the flow whose gap is
		// still open. It can no longer be decided; the interval reports
		// it, as the whole capture's evicted totals do.
		w := newIDWire()
		w.a = NewAnalyzer(Config{NoICRC: true, TrackerConfig: TrackerConfig{MaxFlows: 1}})
		w.a.Begin(1)
		w.send(1, 101)
		w.send(3, 103)
		if g, _, _ := w.cut(1000); g != 0 {
			t.Fatalf("interval 1: %d gaps; want 0 (undecided)", g)
		}
		w.sendQP(0x13, 1, 104)
		w.ts += 1000
		if s := w.a.Cut(w.ts); s.Totals.PSNGaps != 1 || s.FlowsEvicted != 1 {
			t.Fatalf("interval 2: %d gaps, %d evicted; want 1 1", s.Totals.PSNGaps, s.FlowsEvicted)
		}
	})
	t.Run("decided before the cut", func(t *testing.T) {
		w := newIDWire()
		w.send(1, 101)
		w.send(3, 103)
		w.send(2, 104) // resent within the interval
		if g, _, _ := w.cut(1000); g != 1 {
			t.Fatalf("interval 1: %d gaps; want 1", g)
		}
	})
}
