package capture

import (
	"fmt"
	"testing"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// BenchmarkEvictOnePair: every flow between one pair of hosts (one server
// and one storage target with many QPs) and the flow table full, so each
// packet of a new QP evicts the oldest. The time per packet must not grow
// with the number of flows the pair has (issue 19: the pair's index was a
// slice searched and shifted on every eviction, quadratic over a capture).
func BenchmarkEvictOnePair(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 14, 1 << 17} {
		b.Run(fmt.Sprintf("flows=%d", n), func(b *testing.B) {
			t := NewTracker(TrackerConfig{MaxFlows: n})
			var d Decoded
			d.Src, d.Dst, d.IPv4, d.Encap, d.WireLen = wireA, wireB, true, EncapRoCEv2, 100
			d.RoCE.BTH.Opcode = roce.Opcode(roce.OpSendOnly)
			d.RoCE.PayloadLen = 64
			qp, ts, pkt := uint32(0x100), int64(0), uint64(0)
			next := func() {
				qp++
				ts += 1000
				pkt++
				d.RoCE.BTH.DestQP = qp & 0xffffff
				t.Track(&d, ts, pkt)
			}
			for range n { // fill the table: the next packet evicts
				next()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				next()
			}
		})
	}
}
