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

// A long capture with far more flows than the table holds stays within the
// table's bound: flows are evicted (and counted), memory does not grow.
func TestFlowTableBoundsMemory(t *testing.T) {
	frame := firstRoCEFrame(t, "../testdata/rxe/pcap/clean.pcap")
	// Offsets in an untagged IPv4 RoCEv2 frame: BTH at 14+20+8 = 42.
	const bth = 42
	a := NewAnalyzer(Config{NoICRC: true, TrackerConfig: TrackerConfig{MaxFlows: 1000, MaxAnomalies: 100}})
	ci := gopacket.CaptureInfo{Timestamp: time.Unix(1, 0), CaptureLength: len(frame), Length: len(frame)}
	feed := func(n int, base uint32) {
		for i := range n {
			qp := base + uint32(i)
			frame[bth+5], frame[bth+6], frame[bth+7] = byte(qp>>16), byte(qp>>8), byte(qp)
			binary.BigEndian.PutUint32(frame[bth+8:], uint32(i)&0xffffff) // PSN
			ci.Timestamp = ci.Timestamp.Add(time.Microsecond)
			a.Packet(frame, ci, layers.LinkTypeEthernet)
		}
	}
	feed(200_000, 0) // warm up: fill and churn the table
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	feed(1_000_000, 1<<20)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if n := a.Tracker().Flows(); n > 1000 {
		t.Errorf("%d flows in a table capped at 1000", n)
	}
	s := a.Summary()
	if s.FlowsEvicted < 1_199_000 || s.AnomaliesDropped == 0 {
		t.Errorf("evicted %d flows, dropped %d anomalies", s.FlowsEvicted, s.AnomaliesDropped)
	}
	if s.Totals.Flows != 1_200_000 || s.RoCEPackets != 1_200_000 {
		t.Errorf("totals lost evicted flows: %d flows, %d packets", s.Totals.Flows, s.RoCEPackets)
	}
	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if growth > 4<<20 {
		t.Errorf("heap grew by %d bytes over 1M packets / 1M flows with a 1000-flow table", growth)
	}
}

func firstRoCEFrame(t *testing.T, path string) []byte {
	t.Helper()
	src, err := pcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	data, _, _, err := src.ReadPacket()
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), data...)
}
