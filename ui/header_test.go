package ui

import (
	"testing"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/monitor"
)

// The header's wire line splits kernel drops by ring when the capture
// reads several (--workers), and stays as it was with one.
func TestWireLineRingDrops(t *testing.T) {
	drops := uint64(7)
	for _, c := range []struct {
		rings []uint64
		want  string
	}{
		{nil, "wire 10 RoCE pkts drops 7"},
		{[]uint64{7}, "wire 10 RoCE pkts drops 7"},
		{[]uint64{0, 7, 0}, "wire 10 RoCE pkts drops 7 (rings 0+7+0)"},
	} {
		f := &monitor.Frame{Wire: &capture.Summary{RoCEPackets: 10, KernelDrops: &drops, RingDrops: c.rings}}
		if got := wireLine(f); got != c.want {
			t.Errorf("rings %v: %q, want %q", c.rings, got, c.want)
		}
	}
}
