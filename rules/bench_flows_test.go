package rules

import (
	"fmt"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/roce"
)

// fleetCapture is the summary of a capture of nFlows RoCEv2 RC flows,
// paired (requests one way, ACKs the other), nearly all calm: every
// 1000th flow has PSN gaps and go-back-N resends (and its peer NAKs),
// every 997th RNR NAKs, every 991st ECN CE marks without CNPs, every
// 983rd out-of-order packets, every 977th an ICRC error.
func fleetCapture(nFlows int) *capture.Summary {
	w := &capture.Summary{Format: "pcap", DurationSec: 1, PMTU: 4096}
	w.Flows = make([]capture.FlowSummary, nFlows)
	for i := range w.Flows {
		fl := &w.Flows[i]
		fl.ID = i + 1
		if i%2 == 0 {
			fl.PeerID = i + 2
		} else {
			fl.PeerID = i
		}
		if i == nFlows-1 && i%2 == 0 {
			fl.PeerID = 0
		}
		fl.Src, fl.Dst = fmt.Sprintf("10.0.%d.%d", i/250%250, i%250), fmt.Sprintf("10.1.%d.%d", i/250%250, i%250)
		fl.DestQP = roce.QPN(0x100 + i)
		fl.Encap, fl.Transport = "rocev2", "RC"
		fl.Packets, fl.Bytes, fl.PayloadBytes, fl.MaxPayload = 1000, 4_200_000, 4_096_000, 4096
		fl.Requests, fl.Messages = 1000, 250
		fl.ECN.ECT0 = 1000
		fl.DSCP = 26
		if i%1000 == 0 {
			fl.PSNGaps, fl.MissingPSNs, fl.GoBackN, fl.RetransmittedPackets = 2, 5, 2, 40
		}
		if i%1000 == 1 {
			fl.NAKs.PSNSequenceError = 2
		}
		if i%997 == 0 {
			fl.NAKs.RNR = 3
		}
		if i%991 == 0 {
			fl.ECNCE, fl.ECN.CE, fl.ECN.ECT0 = 50, 50, 950
		}
		if i%983 == 0 {
			fl.OutOfOrder = 4
		}
		if i%977 == 0 {
			fl.ICRCErrors = 1
		}
		fl.Troubled = fl.PSNGaps+fl.NAKs.Total()+fl.ECNCE+fl.OutOfOrder+fl.ICRCErrors > 0
		w.Packets += fl.Packets
		w.RoCEPackets += fl.Packets
		w.Totals.Flows++
		w.Totals.PSNGaps += fl.PSNGaps
		w.Totals.GoBackN += fl.GoBackN
		w.Totals.RetransmittedPackets += fl.RetransmittedPackets
		w.Totals.NAKs.PSNSequenceError += fl.NAKs.PSNSequenceError
		w.Totals.NAKs.RNR += fl.NAKs.RNR
		w.Totals.ECNCE += fl.ECNCE
		w.Totals.ECN.CE += fl.ECN.CE
		w.Totals.ECN.ECT0 += fl.ECN.ECT0
		w.Totals.OutOfOrder += fl.OutOfOrder
		w.Totals.ICRCErrors += fl.ICRCErrors
	}
	return w
}

// BenchmarkEvaluatePackFlows evaluates the whole built-in pack on a frame
// of a capture alone with 100,000 flows (fleetCapture), one second later
// each time.
//
// Measured with go test -run '^$' -bench 'EvaluatePackFlows' -benchmem
// -count=3 ./rules/ (on a shared 2-core VM):
//
//	before      1.22-1.37 s/op  159,200,000 B/op  5,022,300 allocs/op
//	2026-12-02  65-70 ms/op       1,788,000 B/op     17,940 allocs/op
//	            (conditions' leading tests decided by a copy of expr in Go)
//	2026-12-04  119 ms/op         3,668,000 B/op    222,000 allocs/op
//	            (the same code, beside the next line)
//	2026-12-04  32-38 ms/op       2,290,000 B/op     28,300 allocs/op
//	            (one evaluator: the flow rules' on lists, read once per
//	            flow into a mask, pass over the calm flows; the few
//	            others run expr)
//	2026-12-07  160-174 ms/op    76,440,000 B/op    427,900 allocs/op
//	            (qos-direction-mismatch, on: [requests], ran expr on every
//	            connection; its peer != nil copies the flow, 500 bytes)
//	2026-12-07  59-65 ms/op       2,640,000 B/op     27,900 allocs/op
//	            (its on list compares the directions' marks: dscp!=peer.dscp)
//	2026-12-07  49-50 ms/op       2,580,000 B/op     27,540 allocs/op
//	            (a variant's on bits looked up once, not once per flow)
//	(all three of 2026-12-07 beside a test suite and two busy loops)
func BenchmarkEvaluatePackFlows(b *testing.B) {
	p, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	e := NewEngine(p)
	e.IgnoreFor = true
	w := fleetCapture(100_000)
	t := time.Unix(1_800_000_000, 0)
	b.ReportAllocs()
	for b.Loop() {
		t = t.Add(time.Second)
		e.Evaluate(Frame{Time: t, Wire: w})
	}
}
