package scenario

import (
	"bytes"
	"net"
	"net/netip"
	"time"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// Scenario is a conversation and the analysis it must produce.
type Scenario struct {
	Name        string
	Description string
	Snaplen     uint32 // 0: DefaultSnaplen
	Build       func(cp *Capture)
	Want        Want
}

// File is the scenario's file name.
func (s *Scenario) File() string { return s.Name + ".pcap" }

// Pcap generates the scenario's capture file.
func (s *Scenario) Pcap() ([]byte, error) {
	var b bytes.Buffer
	cp := NewCapture(&b, s.Snaplen)
	s.Build(cp)
	if err := cp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Want is what rdmatop's analysis (capture.AnalyzeFile with the default
// configuration) must report: numbers reasoned out from what Build emits.
type Want struct {
	Packets   uint64 // frames in the file, all RoCE
	RoCEv1    uint64 // of which RoCEv1
	Truncated uint64 // cut by the snap length
	PMTU      int    // path MTU the analysis infers
	Opcodes   map[roce.Opcode]uint64
	Totals    Totals
	Flows     []Flow
}

// Totals are the capture-wide counters (summary "totals").
type Totals struct {
	PSNGaps, MissingPSNs, Retransmitted, GoBackN, OutOfOrder uint64
	ACKs                                                     uint64
	NAKs                                                     NAKs
	CNPs                                                     uint64 // CNP packets
	ECNCE, BECN                                              uint64
	ICRCOK, ICRCErrors, ICRCUnverifiable                     uint64
}

// NAKs counts NAKs by kind.
type NAKs struct {
	PSNSequenceError, RNR, InvalidRequest, RemoteAccessError, RemoteOperationalError uint64
}

// Total is the number of NAKs of any kind.
func (n NAKs) Total() uint64 {
	return n.PSNSequenceError + n.RNR + n.InvalidRequest + n.RemoteAccessError + n.RemoteOperationalError
}

// Flow is one flow of the summary: packets from Src to Dst for QP DestQP.
// Every field is checked; zero means zero.
type Flow struct {
	Src, Dst string // as the summary prints them
	DestQP   uint32
	Peer     int // 1-based index in Want.Flows of the paired flow, 0: none

	Packets                                                  uint64
	FirstPSN, LastPSN                                        uint32
	PSNGaps, MissingPSNs, Retransmitted, GoBackN, OutOfOrder uint64
	ACKs                                                     uint64
	NAKs                                                     NAKs
	LastNAKPSN                                               uint32 // meaningful when NAKs.Total() > 0
	CNPs, CNPsCarried, ECNCE                                 uint64
	DSCP                                                     uint8
	VLAN                                                     uint16 // 0: untagged
	PCP                                                      uint8
	ICRCErrors, ICRCUnverifiable                             uint64
	RTTSamples                                               uint64
	RTTMaxUS                                                 float64
}

// The hosts of the scenarios. A is the requester, B the responder.
var (
	macA = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x01}
	macB = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x02}
)

const (
	qpA  = 0x11
	qpB  = 0x22
	psnA = 1000 // A's first request PSN
	psnB = 5000 // B's, when B sends requests (Reverse)
)

// v4 is the default connection: RoCEv2 over IPv4, PMTU 1024, DSCP 26, ECT(0).
func v4() Conn {
	return Conn{
		A:    Endpoint{MAC: macA, IP: netip.MustParseAddr("10.0.0.1"), QPN: qpA, PSN: psnA},
		B:    Endpoint{MAC: macB, IP: netip.MustParseAddr("10.0.0.2"), QPN: qpB, PSN: psnB},
		PMTU: 1024, DSCP: 26, ECN: ECT0,
	}
}

func v6() Conn {
	c := v4()
	c.A.IP, c.B.IP = netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::2")
	return c
}

// v1 is RoCEv1: the GIDs are the link-local addresses of the MACs.
func v1() Conn {
	c := v4()
	c.Encap = RoCEv1
	c.A.IP, c.B.IP = netip.MustParseAddr("fe80::ff:fe00:1"), netip.MustParseAddr("fe80::ff:fe00:2")
	return c
}

// Flow keys of the default connection.
const (
	a4, b4 = "10.0.0.1", "10.0.0.2"
	a6, b6 = "2001:db8::1", "2001:db8::2"
	g1, g2 = "fe80::ff:fe00:1", "fe80::ff:fe00:2"
)

// Opcodes, short.
const (
	wFirst  = roce.Opcode(roce.OpWriteFirst)
	wMiddle = roce.Opcode(roce.OpWriteMiddle)
	wLast   = roce.Opcode(roce.OpWriteLast)
	wOnly   = roce.Opcode(roce.OpWriteOnly)
	sFirst  = roce.Opcode(roce.OpSendFirst)
	sLast   = roce.Opcode(roce.OpSendLast)
	sOnly   = roce.Opcode(roce.OpSendOnly)
	rReq    = roce.Opcode(roce.OpReadRequest)
	rFirst  = roce.Opcode(roce.OpReadResponseFirst)
	rMiddle = roce.Opcode(roce.OpReadResponseMiddle)
	rLast   = roce.Opcode(roce.OpReadResponseLast)
	rOnly   = roce.Opcode(roce.OpReadResponseOnly)
	ack     = roce.Opcode(roce.OpAcknowledge)
	cnp     = roce.OpcodeCNP
)

// Scenarios returns the scenario table. In the comments, "1004 1005" are
// PSNs, "[1005]" a PSN lost before the capture point, "1005'" a copy.
// Every RTT is 1 µs (B answers in the next frame) unless said otherwise.
func Scenarios() []Scenario {
	return []Scenario{
		{
			Name:        "clean-write",
			Description: "Eight 4 KiB RDMA WRITEs (FIRST, 2 MIDDLE, LAST at PMTU 1024) and one 102-byte WRITE_ONLY (pad 2), each ACKed. No loss.",
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				for range 8 {
					c.Ack(c.Write(4096)) // 1000-1031, ACK on each LAST
				}
				c.Ack(c.Write(102)) // 1032
			},
			Want: Want{
				Packets: 42, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 8, wMiddle: 16, wLast: 8, wOnly: 1, ack: 9},
				Totals:  Totals{ACKs: 9, ICRCOK: 42},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 33, FirstPSN: 1000, LastPSN: 1032, DSCP: 26, RTTSamples: 9, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 9, ACKs: 9, DSCP: 26},
				},
			},
		},
		{
			Name: "clean-send",
			Description: "Six 2 KiB SENDs (FIRST, LAST), each ACKed, then two 256-byte SEND_ONLYs answered by one coalesced ACK " +
				"(it retires both; only the second, whose PSN it carries, gives an RTT sample).",
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				for range 6 {
					c.Ack(c.Send(2048)) // 1000-1011
				}
				c.Send(256)        // 1012
				c.Ack(c.Send(256)) // 1013, ACK 1013
			},
			Want: Want{
				Packets: 21, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{sFirst: 6, sLast: 6, sOnly: 2, ack: 7},
				Totals:  Totals{ACKs: 7, ICRCOK: 21},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 14, FirstPSN: 1000, LastPSN: 1013, DSCP: 26, RTTSamples: 7, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 7, ACKs: 7, DSCP: 26},
				},
			},
		},
		{
			Name: "clean-read",
			Description: "Six RDMA READs: four of 4 KiB (4 responses each), one of 512 bytes (RESPONSE_ONLY), one of 3000 bytes " +
				"(FIRST, MIDDLE, LAST). Each request uses one PSN per response packet, so the request PSNs jump " +
				"1000, 1004, 1008, 1012, 1016, 1017 without a gap. The PMTU is inferred from the first responses.",
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				for range 4 {
					c.Read(4096) // 1000, 1004, 1008, 1012
				}
				c.Read(512)  // 1016
				c.Read(3000) // 1017-1019
			},
			Want: Want{
				Packets: 26, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{rReq: 6, rFirst: 5, rMiddle: 9, rLast: 5, rOnly: 1},
				Totals:  Totals{ICRCOK: 26},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 6, FirstPSN: 1000, LastPSN: 1017, DSCP: 26, RTTSamples: 6, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 20, FirstPSN: 1019, LastPSN: 1019, DSCP: 26},
				},
			},
		},
		{
			Name: "loss",
			Description: "One-way capture of A's WRITEs (a mirror of B's ingress), behind a lossy link, ending before any recovery: " +
				"seven 4 KiB WRITEs (1000-1027) lose 6 packets in 3 places: [1005]; [1011] [1012] across a message " +
				"boundary; [1020] [1021] [1022]. 3 gaps, 6 missing PSNs, nothing retransmitted.",
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				c.Write(4096) // 1000-1003
				c.Next(Keep, Drop)
				c.Write(4096)                        // 1004 [1005] 1006 1007: gap of 1
				c.Next(Keep, Keep, Keep, Drop, Drop) // the last Drop is 1012's
				c.Write(4096)                        // 1008 1009 1010 [1011]
				c.Write(4096)                        // [1012] 1013 1014 1015: gap of 2
				c.Write(4096)                        // 1016-1019
				c.Next(Drop, Drop, Drop)
				c.Write(4096) // [1020] [1021] [1022] 1023: gap of 3
				c.Write(4096) // 1024-1027
			},
			Want: Want{
				Packets: 22, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 5, wMiddle: 11, wLast: 6},
				Totals:  Totals{PSNGaps: 3, MissingPSNs: 6, ICRCOK: 22},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Packets: 22, FirstPSN: 1000, LastPSN: 1027, PSNGaps: 3, MissingPSNs: 6, DSCP: 26},
				},
			},
		},
		{
			Name: "go-back-n",
			Description: "Capture at B, after the lossy link. WRITE 1004-1007 loses [1005]: B NAKs (PSN sequence error, PSN 1005), " +
				"A goes back and resends 1005 1006 1007. WRITE 1008-1011 loses [1009] [1010]: NAK 1009, A resends 1009-1011. " +
				"2 gaps, 3 missing, 6 retransmitted packets in 2 go-back-N episodes; the resent LASTs give no RTT sample (Karn).",
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				c.Ack(c.Write(4096)) // 1000-1003
				c.Next(Keep, Drop)
				c.Write(4096) // 1004 [1005] 1006 1007
				c.NAK(roce.NAKPSNSequenceError, 1005)
				c.GoBack(1005) // 1005' 1006' 1007'
				c.Ack(1007)
				c.Next(Keep, Drop, Drop)
				c.Write(4096) // 1008 [1009] [1010] 1011
				c.NAK(roce.NAKPSNSequenceError, 1009)
				c.GoBack(1009) // 1009' 1010' 1011'
				c.Ack(1011)
				c.Ack(c.Write(4096)) // 1012-1015
			},
			Want: Want{
				Packets: 25, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 4, wMiddle: 9, wLast: 6, ack: 6},
				Totals: Totals{PSNGaps: 2, MissingPSNs: 3, Retransmitted: 6, GoBackN: 2, ACKs: 4,
					NAKs: NAKs{PSNSequenceError: 2}, ICRCOK: 25},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 19, FirstPSN: 1000, LastPSN: 1015,
						PSNGaps: 2, MissingPSNs: 3, Retransmitted: 6, GoBackN: 2, DSCP: 26, RTTSamples: 2, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 6, ACKs: 4, NAKs: NAKs{PSNSequenceError: 2}, LastNAKPSN: 1009, DSCP: 26},
				},
			},
		},
		{
			Name: "go-back-n-unseen-nak",
			Description: "One-way capture (A's packets only), so B's NAKs are not in it. [1005] is lost and A resends 1005-1007 " +
				"within microseconds: 1005' first looks like reordering, until 1006' repeats a PSN and turns it into a " +
				"go-back-N. Then [1010] is lost and A resends 1010-1011 after 5 ms (a timeout, beyond the 3 ms reorder window). " +
				"2 gaps, 2 missing, 5 retransmitted in 2 episodes, nothing out of order.",
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				c.Write(4096) // 1000-1003
				c.Next(Keep, Drop)
				c.Write(4096)  // 1004 [1005] 1006 1007
				c.GoBack(1005) // 1005' 1006' 1007'
				c.Next(Keep, Keep, Drop)
				c.Write(4096) // 1008 1009 [1010] 1011
				c.Wait(5 * time.Millisecond)
				c.GoBack(1010) // 1010' 1011'
				c.Write(4096)  // 1012-1015
			},
			Want: Want{
				Packets: 19, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 4, wMiddle: 9, wLast: 6},
				Totals:  Totals{PSNGaps: 2, MissingPSNs: 2, Retransmitted: 5, GoBackN: 2, ICRCOK: 19},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Packets: 19, FirstPSN: 1000, LastPSN: 1015,
						PSNGaps: 2, MissingPSNs: 2, Retransmitted: 5, GoBackN: 2, DSCP: 26},
				},
			},
		},
		{
			Name: "rnr-nak",
			Description: "B has no receive buffer posted: its answer to the 2 KiB SEND 1001-1002 is an RNR NAK for 1001 with timer " +
				"code 14 (1.28 ms), twice; each time A waits 1.28 ms and resends 1001 1002. The third try is ACKed. " +
				"2 RNR NAKs, 4 retransmitted packets in 2 episodes, no gap.",
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				c.Ack(c.Send(512)) // 1000
				c.Send(2048)       // 1001 1002
				for range 2 {
					c.RNRNAK(14, 1001)
					c.Wait(roce.RNRTimerDuration(14))
					c.GoBack(1001) // 1001' 1002'
				}
				c.Ack(1002)
				c.Ack(c.Send(512)) // 1003
			},
			Want: Want{
				Packets: 13, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{sOnly: 2, sFirst: 3, sLast: 3, ack: 5},
				Totals:  Totals{Retransmitted: 4, GoBackN: 2, ACKs: 3, NAKs: NAKs{RNR: 2}, ICRCOK: 13},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 8, FirstPSN: 1000, LastPSN: 1003,
						Retransmitted: 4, GoBackN: 2, DSCP: 26, RTTSamples: 2, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 5, ACKs: 3, NAKs: NAKs{RNR: 2}, LastNAKPSN: 1001, DSCP: 26},
				},
			},
		},
		{
			Name: "cnp-storm-ecn",
			Description: "Twenty 4 KiB WRITEs, each ACKed. A congested switch marks CE on every packet of the middle twelve (48 packets); " +
				"for each of those B sends two CNPs to A's QP before its ACK (24 CNPs, BECN set, DSCP 48, Not-ECT). " +
				"The CNPs travel on B→A/0x11 and are credited to A→B/0x22, the flow they throttle. RTT of a marked WRITE: 3 µs.",
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				for range 4 {
					c.Ack(c.Write(4096)) // 1000-1015
				}
				for range 12 {
					c.Next(CE, CE, CE, CE)
					last := c.Write(4096) // 1016-1063
					c.CNP()
					c.CNP()
					c.Ack(last)
				}
				for range 4 {
					c.Ack(c.Write(4096)) // 1064-1079
				}
			},
			Want: Want{
				Packets: 124, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 20, wMiddle: 40, wLast: 20, ack: 20, cnp: 24},
				Totals:  Totals{ACKs: 20, CNPs: 24, ECNCE: 48, BECN: 24, ICRCOK: 124},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 80, FirstPSN: 1000, LastPSN: 1079,
						CNPs: 24, ECNCE: 48, DSCP: 26, RTTSamples: 20, RTTMaxUS: 3},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 44, ACKs: 20, CNPsCarried: 24, DSCP: 26},
				},
			},
		},
		{
			Name: "psn-wrap",
			Description: "A's PSNs start at 16777210 (0xfffffa) and cross 0xffffff→0: WRITE 0xfffffa-0xfffffd, a 4 KiB READ at " +
				"0xfffffe whose responses are 0xfffffe 0xffffff 0 1, WRITEs 2-5 and 6-9. No gap, no retransmission.",
			Build: func(cp *Capture) {
				conn := v4()
				conn.A.PSN = 0xfffffa
				c := cp.Open(conn)
				c.Ack(c.Write(4096)) // 0xfffffa-0xfffffd
				c.Read(4096)         // 0xfffffe, responses 0xfffffe 0xffffff 0 1
				c.Ack(c.Write(4096)) // 2-5
				c.Ack(c.Write(4096)) // 6-9
			},
			Want: Want{
				Packets: 20, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 3, wMiddle: 6, wLast: 3, rReq: 1, rFirst: 1, rMiddle: 2, rLast: 1, ack: 3},
				Totals:  Totals{ACKs: 3, ICRCOK: 20},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 13, FirstPSN: 16777210, LastPSN: 9, DSCP: 26, RTTSamples: 4, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 7, FirstPSN: 1, LastPSN: 1, ACKs: 3, DSCP: 26},
				},
			},
		},
		{
			Name: "reorder",
			Description: "Two adjacent packets of a WRITE swapped on the way (ECMP): 1004 1006 1005 1007, 1 µs apart, no NAK. " +
				"1 packet out of order, no gap left, nothing retransmitted.",
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				c.Ack(c.Write(4096)) // 1000-1003
				c.Next(Keep, Delay)
				c.Ack(c.Write(4096)) // 1004 1006 1005 1007
				c.Ack(c.Write(4096)) // 1008-1011
			},
			Want: Want{
				Packets: 15, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 3, wMiddle: 6, wLast: 3, ack: 3},
				Totals:  Totals{OutOfOrder: 1, ACKs: 3, ICRCOK: 15},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 12, FirstPSN: 1000, LastPSN: 1011, OutOfOrder: 1, DSCP: 26, RTTSamples: 3, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 3, ACKs: 3, DSCP: 26},
				},
			},
		},
		{
			Name: "ipv6",
			Description: "RoCEv2 over IPv6, both sides requesting on one RC connection: A (2001:db8::1, QP 0x11) WRITEs 2 KiB " +
				"(1000-1001) and READs 2 KiB (1002, 2 responses); B (2001:db8::2, QP 0x22) SENDs 1500 bytes (5000-5001) " +
				"and WRITEs 100 bytes (5002). Each flow carries its sender's requests and its ACKs for the other side.",
			Build: func(cp *Capture) {
				a := cp.Open(v6())
				b := a.Reverse()
				a.Ack(a.Write(2048)) // 1000 1001, B ACKs
				b.Ack(b.Send(1500))  // 5000 5001, A ACKs
				a.Read(2048)         // 1002, responses 1002 1003
				b.Ack(b.Write(100))  // 5002, A ACKs
			},
			Want: Want{
				Packets: 11, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 1, wLast: 1, sFirst: 1, sLast: 1, rReq: 1, rFirst: 1, rLast: 1, wOnly: 1, ack: 3},
				Totals:  Totals{ACKs: 3, ICRCOK: 11},
				Flows: []Flow{
					{Src: a6, Dst: b6, DestQP: qpB, Peer: 2, Packets: 5, FirstPSN: 1000, LastPSN: 1002, ACKs: 2, DSCP: 26, RTTSamples: 2, RTTMaxUS: 1},
					{Src: b6, Dst: a6, DestQP: qpA, Peer: 1, Packets: 6, FirstPSN: 5000, LastPSN: 5002, ACKs: 1, DSCP: 26, RTTSamples: 2, RTTMaxUS: 1},
				},
			},
		},
		{
			Name:        "vlan",
			Description: "The clean mix (4 KiB WRITE, 1 KiB SEND_ONLY, 2 KiB READ, ACKs) on 802.1Q VLAN 100, priority (PCP) 3.",
			Build: func(cp *Capture) {
				conn := v4()
				conn.VLAN, conn.PCP = 100, 3
				c := cp.Open(conn)
				c.Ack(c.Write(4096)) // 1000-1003
				c.Ack(c.Send(1024))  // 1004
				c.Read(2048)         // 1005, responses 1005 1006
			},
			Want: Want{
				Packets: 10, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 1, wMiddle: 2, wLast: 1, sOnly: 1, rReq: 1, rFirst: 1, rLast: 1, ack: 2},
				Totals:  Totals{ACKs: 2, ICRCOK: 10},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 6, FirstPSN: 1000, LastPSN: 1005, DSCP: 26, VLAN: 100, PCP: 3, RTTSamples: 3, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 4, FirstPSN: 1006, LastPSN: 1006, ACKs: 2, DSCP: 26, VLAN: 100, PCP: 3},
				},
			},
		},
		{
			Name: "rocev1",
			Description: "The clean mix (4 KiB WRITE, 1 KiB SEND_ONLY, 2 KiB READ, ACKs) as RoCEv1: EtherType 0x8915, a GRH " +
				"between the GIDs fe80::ff:fe00:1 and fe80::ff:fe00:2 (traffic class: DSCP 26, ECT(0)).",
			Build: func(cp *Capture) {
				c := cp.Open(v1())
				c.Ack(c.Write(4096)) // 1000-1003
				c.Ack(c.Send(1024))  // 1004
				c.Read(2048)         // 1005, responses 1005 1006
			},
			Want: Want{
				Packets: 10, RoCEv1: 10, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 1, wMiddle: 2, wLast: 1, sOnly: 1, rReq: 1, rFirst: 1, rLast: 1, ack: 2},
				Totals:  Totals{ACKs: 2, ICRCOK: 10},
				Flows: []Flow{
					{Src: g1, Dst: g2, DestQP: qpB, Peer: 2, Packets: 6, FirstPSN: 1000, LastPSN: 1005, DSCP: 26, RTTSamples: 3, RTTMaxUS: 1},
					{Src: g2, Dst: g1, DestQP: qpA, Peer: 1, Packets: 4, FirstPSN: 1006, LastPSN: 1006, ACKs: 2, DSCP: 26},
				},
			},
		},
		{
			Name: "truncated",
			Description: "Captured with snap length 128: the 12 frames longer than that (WRITE packets, READ responses) are cut, " +
				"headers intact, ICRC not verifiable; the 6 short ones (ACKs, the NAK, the READ request, a 64-byte SEND) are whole. " +
				"The analysis still sees everything: [1005] lost, NAK 1005, go-back-N 1005-1007, a 2 KiB READ, a SEND.",
			Snaplen: 128,
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				c.Ack(c.Write(4096)) // 1000-1003
				c.Next(Keep, Drop)
				c.Write(4096) // 1004 [1005] 1006 1007
				c.NAK(roce.NAKPSNSequenceError, 1005)
				c.GoBack(1005) // 1005' 1006' 1007'
				c.Ack(1007)
				c.Read(2048)      // 1008, responses 1008 1009
				c.Ack(c.Send(64)) // 1010
			},
			Want: Want{
				Packets: 18, Truncated: 12, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 2, wMiddle: 5, wLast: 3, rReq: 1, rFirst: 1, rLast: 1, sOnly: 1, ack: 4},
				Totals: Totals{PSNGaps: 1, MissingPSNs: 1, Retransmitted: 3, GoBackN: 1, ACKs: 3,
					NAKs: NAKs{PSNSequenceError: 1}, ICRCOK: 6, ICRCUnverifiable: 12},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 12, FirstPSN: 1000, LastPSN: 1010,
						PSNGaps: 1, MissingPSNs: 1, Retransmitted: 3, GoBackN: 1, DSCP: 26, ICRCUnverifiable: 10, RTTSamples: 3, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 6, FirstPSN: 1009, LastPSN: 1009, ACKs: 3,
						NAKs: NAKs{PSNSequenceError: 1}, LastNAKPSN: 1005, DSCP: 26, ICRCUnverifiable: 2},
				},
			},
		},
		{
			Name: "icrc-bad",
			Description: "Three frames corrupted in flight (ICRC mismatch), each with the consequence it has on real hardware: " +
				"WRITE packet 1005 (B drops it, NAKs 1005 when 1006 arrives, A goes back to 1005); B's ACK 1011 (A drops it; " +
				"ACK 1015 covers it); the READ request 1016 (B drops it; A resends it after a 4 ms timeout, then B answers). " +
				"The bad frames are still analysed like the others (the bad ACK gives an RTT sample).",
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				c.Ack(c.Write(4096)) // 1000-1003
				c.Next(Keep, BadICRC)
				c.Write(4096) // 1004 1005(bad) 1006 1007
				c.NAK(roce.NAKPSNSequenceError, 1005)
				c.GoBack(1005) // 1005' 1006' 1007'
				c.Ack(1007)
				last := c.Write(4096) // 1008-1011
				c.Next(BadICRC)
				c.Ack(last)          // bad
				c.Ack(c.Write(4096)) // 1012-1015
				c.Next(BadICRC)
				read := c.ReadRequest(2048) // 1016 (bad)
				c.Wait(4 * time.Millisecond)
				c.GoBack(read)       // 1016'
				c.ReadResponse(read) // 1016 1017
				c.Ack(c.Write(4096)) // 1018-1021
			},
			Want: Want{
				Packets: 33, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 5, wMiddle: 12, wLast: 6, rReq: 2, rFirst: 1, rLast: 1, ack: 6},
				Totals: Totals{Retransmitted: 4, GoBackN: 2, ACKs: 5, NAKs: NAKs{PSNSequenceError: 1},
					ICRCOK: 30, ICRCErrors: 3},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 25, FirstPSN: 1000, LastPSN: 1021,
						Retransmitted: 4, GoBackN: 2, DSCP: 26, ICRCErrors: 2, RTTSamples: 4, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 8, FirstPSN: 1017, LastPSN: 1017, ACKs: 5,
						NAKs: NAKs{PSNSequenceError: 1}, LastNAKPSN: 1005, DSCP: 26, ICRCErrors: 1},
				},
			},
		},
		{
			Name: "nak-errors",
			Description: "Three connections between A and B, each ended by a fatal NAK: QP 0x22 gets a 2 KiB WRITE with a bad R_Key " +
				"(NAK remote access error, PSN 1001); QP 0x24 a 4 KiB READ beyond its READ resources (NAK invalid request, " +
				"PSN 200001); QP 0x26 a WRITE it fails to execute (NAK remote operational error, PSN 400000).",
			Build: func(cp *Capture) {
				c1 := cp.Open(v4())
				conn := v4()
				conn.A.QPN, conn.B.QPN, conn.A.PSN = 0x13, 0x24, 200000
				c2 := cp.Open(conn)
				conn.A.QPN, conn.B.QPN, conn.A.PSN = 0x15, 0x26, 400000
				c3 := cp.Open(conn)

				c1.Ack(c1.Write(1024)) // 1000
				c1.Write(2048)         // 1001 1002
				c1.NAK(roce.NAKRemoteAccessError, 1001)
				c2.Ack(c2.Send(256)) // 200000
				c2.ReadRequest(4096) // 200001
				c2.NAK(roce.NAKInvalidRequest, 200001)
				c3.Write(1024) // 400000
				c3.NAK(roce.NAKRemoteOperationalError, 400000)
			},
			Want: Want{
				Packets: 11, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wOnly: 2, wFirst: 1, wLast: 1, sOnly: 1, rReq: 1, ack: 5},
				Totals: Totals{ACKs: 2, NAKs: NAKs{InvalidRequest: 1, RemoteAccessError: 1, RemoteOperationalError: 1},
					ICRCOK: 11},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 3, FirstPSN: 1000, LastPSN: 1002, DSCP: 26, RTTSamples: 1, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 2, ACKs: 1, NAKs: NAKs{RemoteAccessError: 1}, LastNAKPSN: 1001, DSCP: 26},
					{Src: a4, Dst: b4, DestQP: 0x24, Peer: 4, Packets: 2, FirstPSN: 200000, LastPSN: 200001, DSCP: 26, RTTSamples: 1, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: 0x13, Peer: 3, Packets: 2, ACKs: 1, NAKs: NAKs{InvalidRequest: 1}, LastNAKPSN: 200001, DSCP: 26},
					{Src: a4, Dst: b4, DestQP: 0x26, Peer: 6, Packets: 1, FirstPSN: 400000, LastPSN: 400000, DSCP: 26},
					{Src: b4, Dst: a4, DestQP: 0x15, Peer: 5, Packets: 1, NAKs: NAKs{RemoteOperationalError: 1}, LastNAKPSN: 400000, DSCP: 26},
				},
			},
		},
		{
			Name: "duplicate",
			Description: "A mirror that copies some frames twice: WRITE packet 1005, READ response 1009 and the WRITE_ONLY 1012. " +
				"Each repeated request counts as a retransmission and a go-back-N episode (1012' also costs 1012 its RTT " +
				"sample); the repeated READ response counts as a retransmission on B's flow.",
			Build: func(cp *Capture) {
				c := cp.Open(v4())
				c.Ack(c.Write(4096)) // 1000-1003
				c.Next(Keep, Duplicate)
				c.Ack(c.Write(4096)) // 1004 1005 1005' 1006 1007
				c.Next(Keep, Keep, Duplicate)
				c.Read(4096) // 1008, responses 1008 1009 1009' 1010 1011
				c.Next(Duplicate)
				c.Ack(c.Write(1024)) // 1012 1012'
			},
			Want: Want{
				Packets: 20, PMTU: 1024,
				Opcodes: map[roce.Opcode]uint64{wFirst: 2, wMiddle: 5, wLast: 2, wOnly: 2, rReq: 1, rFirst: 1, rMiddle: 3, rLast: 1, ack: 3},
				Totals:  Totals{Retransmitted: 3, GoBackN: 2, ACKs: 3, ICRCOK: 20},
				Flows: []Flow{
					{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 12, FirstPSN: 1000, LastPSN: 1012,
						Retransmitted: 2, GoBackN: 2, DSCP: 26, RTTSamples: 3, RTTMaxUS: 1},
					{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 8, FirstPSN: 1011, LastPSN: 1011, ACKs: 3, Retransmitted: 1, DSCP: 26},
				},
			},
		},
	}
}
