package capture

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/capture/scenario"
)

// BenchmarkDecodeTrackWorkers is the live fanout path without the
// kernel: the frames of 64 host pairs split by FanoutShard across 1 or 2
// workers, each decoding and tracking its share on its own analyzer (as
// each ring's goroutine does). ns/op is per packet of the whole capture,
// so 2 workers on 2 free cores should halve it; Mpps is the aggregate.
func BenchmarkDecodeTrackWorkers(b *testing.B) {
	frames, err := scenario.FabricData(64)
	if err != nil {
		b.Fatal(err)
	}
	for _, icrc := range []bool{false, true} {
		for _, n := range []int{1, 2} {
			name := fmt.Sprintf("noicrc/workers=%d", n)
			if icrc {
				name = fmt.Sprintf("icrc/workers=%d", n)
			}
			b.Run(name, func(b *testing.B) {
				shares := make([][][]byte, n)
				for _, f := range frames {
					i := live.FanoutShard(f, n)
					shares[i] = append(shares[i], f)
				}
				as := make([]*Analyzer, n)
				ci := gopacket.CaptureInfo{Timestamp: time.Unix(1, 0)}
				for i := range as {
					as[i] = NewAnalyzer(Config{NoICRC: !icrc, TrackerConfig: TrackerConfig{Shard: i, Shards: n}})
					for _, f := range shares[i] { // warm up
						ci.CaptureLength, ci.Length = len(f), len(f)
						as[i].Packet(f, ci, layers.LinkTypeEthernet)
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				var wg sync.WaitGroup
				for i := range as {
					// Each worker does its share of b.N, in proportion.
					count := b.N * len(shares[i]) / len(frames)
					wg.Go(func() {
						ci := gopacket.CaptureInfo{Timestamp: time.Unix(1, 0)}
						share := shares[i]
						for j := range count {
							f := share[j%len(share)]
							ci.CaptureLength, ci.Length = len(f), len(f)
							as[i].Packet(f, ci, layers.LinkTypeEthernet)
						}
					})
				}
				wg.Wait()
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpps")
			})
		}
	}
}
