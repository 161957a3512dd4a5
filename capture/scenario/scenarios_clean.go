package scenario

import (
	"github.com/rdmatop/rdmatop/capture/roce"
)

// cleanScenarios: clean streams: nothing wrong.
func cleanScenarios() []Scenario {
	return []Scenario{
		cleanWriteScenario(),
		cleanSendScenario(),
		cleanReadScenario(),
	}
}

func cleanWriteScenario() Scenario {
	return Scenario{
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
	}
}

func cleanSendScenario() Scenario {
	return Scenario{
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
	}
}

func cleanReadScenario() Scenario {
	return Scenario{
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
	}
}

// encapScenarios: PSN wrap, reordering and encapsulations.
func encapScenarios() []Scenario {
	return []Scenario{
		psnWrapScenario(),
		reorderScenario(),
		ipv6Scenario(),
		vlanScenario(),
		rocev1Scenario(),
	}
}

func psnWrapScenario() Scenario {
	return Scenario{
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
	}
}

func reorderScenario() Scenario {
	return Scenario{
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
	}
}

func ipv6Scenario() Scenario {
	return Scenario{
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
	}
}

func vlanScenario() Scenario {
	return Scenario{
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
	}
}

func rocev1Scenario() Scenario {
	return Scenario{
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
	}
}
