package capture

import (
	"encoding/binary"
	"runtime"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// idleFlows feeds n RC QPs one request and its ACK each (the real frames 1
// and 2 of clean.pcap, with the QP number and PSN rewritten): 2n flows
// that then go idle.
// cleanPair is the first two frames of a real Soft-RoCE capture: a
// request and its ACK, to stamp with other QPNs and PSNs.
func cleanPair(tb testing.TB) [2][]byte {
	tb.Helper()
	src, err := pcapfile.Open("../testdata/rxe/pcap/clean.pcap")
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	var frames [2][]byte
	for i := range frames {
		data, _, _, err := src.ReadPacket()
		if err != nil {
			tb.Fatal(err)
		}
		frames[i] = append([]byte(nil), data...)
	}
	return frames
}

func idleFlows(tb testing.TB, a *Analyzer, n int) {
	tb.Helper()
	frames := cleanPair(tb)
	const bth = 14 + 20 + 8
	ci := gopacket.CaptureInfo{Timestamp: time.Unix(1_800_000_000, 0)}
	for q := range n {
		for _, f := range frames {
			f[bth+5], f[bth+6], f[bth+7] = byte(q>>16), byte(q>>8), byte(q)
			binary.BigEndian.PutUint32(f[bth+8:], uint32(q*7)&0xffffff|uint32(f[bth+8]&0x80)<<24)
			ci.Timestamp = ci.Timestamp.Add(time.Microsecond)
			ci.CaptureLength, ci.Length = len(f), len(f)
			a.Packet(f, ci, layers.LinkTypeEthernet)
		}
	}
}

// A flow that sent a request, got its ACK and went idle costs at most
// 1 KB (issue 12's target): the hole, pending-request and READ state and
// the RTT histogram are held only while used, and sparse.
func TestIdleFlowBytes(t *testing.T) {
	const n = 20_000
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	a := NewAnalyzer(Config{NoICRC: true})
	idleFlows(t, a, n)
	runtime.GC()
	runtime.ReadMemStats(&after)
	flows := a.Tracker().Flows()
	if flows != 2*n {
		t.Fatalf("%d flows, want %d", flows, 2*n)
	}
	s := a.Summary()
	if s.Totals.ACKs != n || s.Totals.PSNGaps != 0 {
		t.Fatalf("totals %+v", s.Totals)
	}
	// Every ACK found its request among 20,000 QPs of one host pair (the
	// unpaired index): one RTT sample per request flow.
	sampled := 0
	for _, f := range s.Flows {
		if f.RTTus.Samples == 1 {
			sampled++
		}
	}
	if sampled != n {
		t.Errorf("%d request flows with an RTT sample, want %d", sampled, n)
	}
	per := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(flows)
	t.Logf("%.0f bytes per idle flow (%d flows)", per, flows)
	if per > 1024 {
		t.Errorf("%.0f bytes per idle flow, want at most 1024", per)
	}
	runtime.KeepAlive(a)
}

// BenchmarkSummary100kFlows: the whole-capture summary of 100,000 flows
// (50,000 QPs, a request and its ACK each), as replay --json and --report
// build it. Flows are sorted by pointer and summarised once each.
func BenchmarkSummary100kFlows(b *testing.B) {
	a := NewAnalyzer(Config{NoICRC: true, TrackerConfig: TrackerConfig{MaxFlows: 100_000}})
	idleFlows(b, a, 50_000)
	if n := a.Tracker().Flows(); n != 100_000 {
		b.Fatalf("%d flows", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		if s := a.Summary(); len(s.Flows) != 100_000 {
			b.Fatalf("%d flows in the summary", len(s.Flows))
		}
	}
}
