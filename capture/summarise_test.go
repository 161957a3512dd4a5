package capture

import (
	"encoding/binary"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Summaries built on several goroutines (an interval's and the whole
// capture's, from enough flows to split) equal those built on one.
func TestSummaryParallelSameAsSerial(t *testing.T) {
	frame := firstRoCEFrame(t, "../testdata/rxe/pcap/clean.pcap")
	const bth = 42 // untagged IPv4 RoCEv2
	n := 3 * parallelFlows
	analyse := func(procs int) (*Summary, *Summary) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		a := NewAnalyzer(Config{NoICRC: true})
		a.Begin(0)
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(1, 0), CaptureLength: len(frame), Length: len(frame)}
		for pass := range 3 {
			for i := range n {
				qp := uint32(i)
				frame[bth+5], frame[bth+6], frame[bth+7] = byte(qp>>16), byte(qp>>8), byte(qp)
				// Every 5th QP skips a PSN on its third packet: gaps, so
				// the flows rank differently.
				psn := uint32(pass)
				if pass == 2 && i%5 == 0 {
					psn++
				}
				binary.BigEndian.PutUint32(frame[bth+8:], psn)
				ci.Timestamp = ci.Timestamp.Add(time.Microsecond)
				a.Packet(frame, ci, layers.LinkTypeEthernet)
			}
		}
		iv := a.Cut(ci.Timestamp.UnixNano())
		return iv, a.Summary()
	}
	iv1, whole1 := analyse(1)
	iv4, whole4 := analyse(4)
	if len(whole1.Flows) != n || len(iv1.Flows) != n {
		t.Fatalf("%d flows in the summary, %d in the interval; want %d", len(whole1.Flows), len(iv1.Flows), n)
	}
	if whole1.Totals.PSNGaps == 0 {
		t.Fatal("no gaps: the flows all rank alike")
	}
	if !reflect.DeepEqual(whole1, whole4) {
		t.Error("the whole-capture summary differs when built on 4 goroutines")
	}
	if !reflect.DeepEqual(iv1, iv4) {
		t.Error("the interval's summary differs when built on 4 goroutines")
	}
}
