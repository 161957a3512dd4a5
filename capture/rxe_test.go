package capture

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/capture/roce"
)

// Ground truth from real Soft-RoCE runs: testdata/rxe/MANIFEST.upstream.md
// and testdata/rxe/faults/MANIFEST.upstream.md state what netem dropped and
// marked and what the kernel's counters and the verbs completions said.

func analyze(t *testing.T, path string, cfg Config) *Summary {
	t.Helper()
	s, err := AnalyzeFile(path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func flowBy(t *testing.T, s *Summary, src, dst string, qp uint32) *FlowSummary {
	t.Helper()
	for i := range s.Flows {
		if f := &s.Flows[i]; f.Src == src && f.Dst == dst && uint32(f.DestQP) == qp {
			return f
		}
	}
	t.Fatalf("no flow %s -> %s qp 0x%x", src, dst, qp)
	return nil
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

const rxeA, rxeB = "192.168.77.1", "192.168.77.2"

func TestRxeCleanCapture(t *testing.T) {
	s := analyze(t, "../testdata/rxe/pcap/clean.pcap", Config{})
	eq(t, "packets", s.RoCEPackets, uint64(1750))
	tt := s.Totals
	eq(t, "psn gaps", tt.PSNGaps, uint64(0))
	eq(t, "retransmitted", tt.RetransmittedPackets, uint64(0))
	eq(t, "out of order", tt.OutOfOrder, uint64(0))
	eq(t, "NAKs", tt.NAKs.Total(), uint64(0))
	eq(t, "ICRC ok", tt.ICRCOK, uint64(1750))
	eq(t, "ICRC errors", tt.ICRCErrors, uint64(0))
	eq(t, "CE", tt.ECNCE, uint64(0))
	eq(t, "pmtu", s.PMTU, 1024)
	// MANIFEST: ACKNOWLEDGE 120 from .1, 270 from .2, ATOMIC_ACKNOWLEDGE 50.
	var acksA, acksB uint64
	for _, f := range s.Flows {
		if f.Src == rxeA {
			acksA += f.ACKs
		} else {
			acksB += f.ACKs
		}
	}
	eq(t, "ACKs from .1", acksA, uint64(120))
	eq(t, "ACKs from .2 (incl. 50 atomic)", acksB, uint64(270+50))
	// READ requests advance the PSN by ceil(4096/1024) = 4: still no gap.
	rd := flowBy(t, s, rxeA, rxeB, 0x14)
	eq(t, "read flow requests", rd.Requests, uint64(100))
	eq(t, "read flow gaps", rd.PSNGaps, uint64(0))
	eq(t, "read flow paired", rd.PeerID != 0, true)
	if rd.RTTus.Samples != 100 {
		t.Errorf("READ RTT samples = %d, want 100 (one per READ request)", rd.RTTus.Samples)
	}
}

// lossy1: netem dropped 31 of the 3267 RoCE packets rxe0 sent; the mirror
// taken before netem has them all. The missing PSNs and gaps in lossy1.pcap
// must be exactly the dropped packets.
func TestRxeLossReconcilesWithNetem(t *testing.T) {
	post := analyze(t, "../testdata/rxe/pcap/lossy1.pcap", Config{})
	pre := analyze(t, "../testdata/rxe/pcap/lossy1-prenetem.pcap", Config{})

	eq(t, "pre-netem packets", pre.RoCEPackets, uint64(3267))
	eq(t, "pre-netem gaps", pre.Totals.PSNGaps, uint64(0))
	eq(t, "pre-netem missing", pre.Totals.MissingPSNs, uint64(0))
	eq(t, "pre-netem ICRC errors (snaplen 128)", pre.Totals.ICRCErrors, uint64(0))

	// Which packets did netem drop? The pre-netem capture minus what
	// reached the wire, packet by packet (PSN, opcode, occurrence).
	dropped := droppedPackets(t, "../testdata/rxe/pcap/lossy1-prenetem.pcap", "../testdata/rxe/pcap/lossy1.pcap", rxeA)
	eq(t, "dropped packets", len(dropped), 31)
	missing := 0
	droppedPSN := map[string]bool{}
	for _, d := range dropped {
		missing += d.consumed
		droppedPSN[fmt.Sprintf("%d/%d", d.qp, d.psn)] = true
	}
	eq(t, "PSNs of the dropped packets", missing, 37)

	eq(t, "gaps", post.Totals.PSNGaps, uint64(len(dropped)))
	eq(t, "missing PSNs", post.Totals.MissingPSNs, uint64(missing))
	eq(t, "NAK PSN sequence error", post.Totals.NAKs.PSNSequenceError, uint64(31))
	eq(t, "other NAKs", post.Totals.NAKs.Total(), uint64(31))
	// Every gap starts at a dropped PSN, and every NAK asks for one.
	flows := map[int]uint32{}
	for _, f := range post.Flows {
		flows[f.ID] = uint32(f.DestQP)
	}
	for _, a := range post.Anomalies {
		var psn uint32
		var qp uint32
		switch a.Kind {
		case "psn_gap":
			fmt.Sscanf(a.Detail, "expected PSN %d", &psn)
			qp = flows[a.FlowID]
		case "nak":
			psn = a.PSN
			qp = 0 // the NAK travels to the requester's QP: same number here
			qp = flows[a.FlowID]
		default:
			continue
		}
		if !droppedPSN[fmt.Sprintf("%d/%d", qp, psn)] {
			t.Errorf("%s at packet %d names PSN %d of QP 0x%x, which netem did not drop", a.Kind, a.Packet, psn, qp)
		}
	}
	// netem dropped only first transmissions: both captures show the same
	// retransmissions (in lossy1 31 of them fill the holes).
	eq(t, "retransmissions before vs after netem", post.Totals.RetransmittedPackets, pre.Totals.RetransmittedPackets)
	eq(t, "go-back-N episodes", post.Totals.GoBackN, uint64(33))
	eq(t, "packets from .1 on the wire", sumPackets(post, rxeA), uint64(3267-31))
	eq(t, "packets from .2 on the wire", sumPackets(post, rxeB), uint64(1736))
}

func sumPackets(s *Summary, src string) (n uint64) {
	for _, f := range s.Flows {
		if f.Src == src {
			n += f.Packets
		}
	}
	return n
}

type wirePacket struct {
	qp, psn  uint32
	op       roce.Opcode
	consumed int
}

// droppedPackets returns the packets from src in before that are not in after.
func droppedPackets(t *testing.T, before, after, src string) []wirePacket {
	count := func(path string) (map[string]int, map[string]wirePacket) {
		n := map[string]int{}
		pk := map[string]wirePacket{}
		forEachRoCE(t, path, func(d *Decoded) {
			if addrString(d.Src, true) != src {
				return
			}
			p := &d.RoCE
			w := wirePacket{qp: p.BTH.DestQP, psn: p.BTH.PSN, op: p.BTH.Opcode, consumed: 1}
			if p.BTH.Opcode.Operation() == roce.OpReadRequest {
				w.consumed = int(p.RETH.DMALength+1023) / 1024
			}
			k := fmt.Sprintf("%d/%d/%d", w.qp, w.psn, w.op)
			n[k]++
			pk[k] = w
		})
		return n, pk
	}
	nb, pk := count(before)
	na, _ := count(after)
	var out []wirePacket
	for k, c := range nb {
		for range c - na[k] {
			out = append(out, pk[k])
		}
	}
	return out
}

func forEachRoCE(t *testing.T, path string, fn func(*Decoded)) {
	t.Helper()
	src, err := pcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dec, err := NewDecoder(src.LinkType())
	if err != nil {
		t.Fatal(err)
	}
	var d Decoded
	for {
		data, ci, _, err := src.ReadPacket()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := dec.Decode(data, ci.Length, &d); ok && err == nil {
			fn(&d)
		}
	}
}

func TestRxeECN(t *testing.T) {
	s := analyze(t, "../testdata/rxe/pcap/ecn.pcap", Config{})
	data := flowBy(t, s, rxeA, rxeB, 0x14)
	eq(t, "CE marks", data.ECNCE, uint64(32))
	eq(t, "ECT(0) from .1", data.ECN.ECT0, uint64(370))
	back := flowBy(t, s, rxeB, rxeA, 0x14)
	eq(t, "ECT(0) from .2", back.ECN.ECT0, uint64(102))
	eq(t, "CNPs (rxe in 6.1 sends none)", s.Totals.CNPs, uint64(0))
	eq(t, "NAKs", back.NAKs.PSNSequenceError, uint64(1))
	// Frames 399 and 400 resend PSNs 7288394 and 7288395 after the NAK.
	eq(t, "retransmitted", data.RetransmittedPackets, uint64(2))
	eq(t, "gaps", data.PSNGaps, uint64(0))
}

func TestRxeFaults(t *testing.T) {
	type want struct {
		dir                    string
		seqErr, rnr, access    uint64
		invReq, remOp, acks    uint64
		retrans, goBackN, gaps uint64
		nakPSNs                []uint32
		packets                uint64
	}
	for _, w := range []want{
		// 33 rounds of 3 SENDs: 96 resent; 32 RNR NAKs and 32 sequence NAKs for PSN 2254257.
		{dir: "rnr-recover", seqErr: 32, rnr: 32, acks: 3, retrans: 96, goBackN: 32, packets: 166},
		{dir: "rnr-exceeded", seqErr: 3, rnr: 3, retrans: 4, goBackN: 2, packets: 12},
		{dir: "access", access: 4, acks: 2, packets: 16, nakPSNs: []uint32{2254258, 14217579, 12814012, 4279349}},
		// PSNs 2254259..2254261 sent 4 times: 9 retransmissions in 3 rounds, no NAK.
		{dir: "retry", acks: 2, retrans: 9, goBackN: 3, packets: 16},
		{dir: "retry-linkdown", acks: 2, packets: 4},
		{dir: "invreq", invReq: 1, packets: 2, nakPSNs: []uint32{2254257}},
		{dir: "remop", remOp: 1, packets: 2, nakPSNs: []uint32{2254257}},
	} {
		t.Run(w.dir, func(t *testing.T) {
			s := analyze(t, filepath.Join("../testdata/rxe/faults", w.dir, "capture.pcap"), Config{})
			tt := s.Totals
			eq(t, "packets", s.RoCEPackets, w.packets)
			eq(t, "NAK PSN sequence error", tt.NAKs.PSNSequenceError, w.seqErr)
			eq(t, "RNR NAK", tt.NAKs.RNR, w.rnr)
			eq(t, "NAK remote access error", tt.NAKs.RemoteAccessError, w.access)
			eq(t, "NAK invalid request", tt.NAKs.InvalidRequest, w.invReq)
			eq(t, "NAK remote operational error", tt.NAKs.RemoteOperationalError, w.remOp)
			eq(t, "ACKs", tt.ACKs, w.acks)
			eq(t, "retransmitted", tt.RetransmittedPackets, w.retrans)
			eq(t, "go-back-N", tt.GoBackN, w.goBackN)
			eq(t, "gaps", tt.PSNGaps, w.gaps)
			eq(t, "ICRC ok", tt.ICRCOK, w.packets)
			var got []uint32
			for _, a := range s.Anomalies {
				if a.Kind == "nak" && w.nakPSNs != nil {
					got = append(got, a.PSN)
				}
				if a.Kind == "rnr_nak" && a.PSN != 2254257 {
					t.Errorf("RNR NAK for PSN %d, want 2254257", a.PSN)
				}
			}
			if w.nakPSNs != nil && fmt.Sprint(got) != fmt.Sprint(w.nakPSNs) {
				t.Errorf("NAK PSNs %v, want %v", got, w.nakPSNs)
			}
		})
	}
}

// The RNR NAKs of rnr-recover carry timer 24 = 40.96 ms.
func TestRxeRNRTimer(t *testing.T) {
	n := 0
	forEachRoCE(t, "../testdata/rxe/faults/rnr-recover/capture.pcap", func(d *Decoded) {
		if d.RoCE.Has(roce.HasAETH) && d.RoCE.AETH.Type() == roce.AckTypeRNRNAK {
			n++
			if d.RoCE.AETH.RNRTimer().Microseconds() != 40960 {
				t.Errorf("RNR timer %v, want 40.96ms", d.RoCE.AETH.RNRTimer())
			}
		}
	})
	eq(t, "RNR NAKs", n, 32)
}

// The peer-killed capture is incomplete (tcpdump dropped packets), so only
// its shape is asserted: after the server died, rxe0 kept resending the
// same window of PSNs, about 13520114..13520166.
func TestRxePeerKilled(t *testing.T) {
	s := analyze(t, "../testdata/rxe/pcap/qp-peer-killed.pcap", Config{})
	f := flowBy(t, s, rxeA, rxeB, 0x1e)
	if f.GoBackN < 5 || f.RetransmittedPackets < 1000 {
		t.Errorf("go-back-N %d, retransmitted %d: want a retransmission loop", f.GoBackN, f.RetransmittedPackets)
	}
	// After the kill every retransmission round restarts from the same PSN
	// (13520056 in this capture, near the MANIFEST's approximate window).
	late := map[uint32]int{}
	for _, a := range s.Anomalies {
		if a.Kind == "go_back_n" && a.TS > "2026-11-29T20:19:58" {
			late[a.PSN]++
		}
	}
	if len(late) != 1 {
		t.Fatalf("late go-back-N start PSNs %v: want every round from one PSN", late)
	}
	for psn := range late {
		if psn < 13520000 || psn > 13520200 {
			t.Errorf("stuck at PSN %d, outside the window the MANIFEST reports", psn)
		}
	}
}

// A packet cut by the snap length decodes and is analysed, but its ICRC is
// not verifiable; a corrupted byte makes the ICRC bad.
func TestICRCCorruptedAndTruncated(t *testing.T) {
	pre := analyze(t, "../testdata/rxe/pcap/lossy1-prenetem.pcap", Config{})
	eq(t, "truncated", pre.TruncatedPackets, uint64(3063))
	eq(t, "unverifiable", pre.Totals.ICRCUnverifiable, uint64(3063))
	eq(t, "ok", pre.Totals.ICRCOK, uint64(3267-3063))
	eq(t, "errors", pre.Totals.ICRCErrors, uint64(0))

	// Corrupt one payload byte in every 10th packet of clean.pcap.
	in, err := os.Open("../testdata/rxe/pcap/clean.pcap")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := pcapgo.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if err := w.WriteFileHeader(65536, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	corrupted := 0
	for i := 0; ; i++ {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			data[len(data)-5] ^= 0x01 // the last byte the ICRC covers
			corrupted++
		}
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: ci.Timestamp, CaptureLength: len(data), Length: ci.Length}, data); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "corrupt.pcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := analyze(t, path, Config{})
	eq(t, "ICRC errors", s.Totals.ICRCErrors, uint64(corrupted))
	eq(t, "ICRC ok", s.Totals.ICRCOK, uint64(1750-corrupted))
	n := 0
	for _, a := range s.Anomalies {
		if a.Kind == "icrc_error" {
			n++
			if (a.Packet-1)%10 != 0 {
				t.Errorf("ICRC error reported for packet %d, which was not corrupted", a.Packet)
			}
		}
	}
	eq(t, "ICRC anomalies", n, corrupted)
}
