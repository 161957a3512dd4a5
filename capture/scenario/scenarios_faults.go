package scenario

import (
	"time"

	"github.com/rdmatop/rdmatop/capture/roce"
)

// lossScenarios: loss, retransmission, RNR, congestion.
func lossScenarios() []Scenario {
	return []Scenario{
		lossScenario(),
		goBackNScenario(),
		goBackNUnseenNakScenario(),
		rnrNakScenario(),
		cnpStormEcnScenario(),
	}
}

func lossScenario() Scenario {
	return Scenario{
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
	}
}

func goBackNScenario() Scenario {
	return Scenario{
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
	}
}

func goBackNUnseenNakScenario() Scenario {
	return Scenario{
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
	}
}

func rnrNakScenario() Scenario {
	return Scenario{
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
	}
}

func cnpStormEcnScenario() Scenario {
	return Scenario{
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
	}
}

// faultScenarios: snap length, ICRC, NAK codes, duplicates.
func faultScenarios() []Scenario {
	return []Scenario{
		truncatedScenario(),
		icrcBadScenario(),
		nakErrorsScenario(),
		duplicateScenario(),
	}
}

func truncatedScenario() Scenario {
	return Scenario{
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
	}
}

func icrcBadScenario() Scenario {
	return Scenario{
		Name: "icrc-bad",
		Description: "Three frames corrupted in flight (ICRC mismatch), each with the consequence it has on real hardware: " +
			"WRITE packet 1005 (B drops it, NAKs 1005 when 1006 arrives, A goes back to 1005); B's ACK 1011 (A drops it; " +
			"ACK 1015 covers it); the READ request 1016 (B drops it; A resends it after a 4 ms timeout, then B answers). " +
			"The bad requests are still analysed like the others (the receiver drops them, but each is a PSN that reached the capture); " +
			"the bad ACK is an ICRC error and no answer: the requester drops it unread, so it gives no RTT sample.",
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
			Totals: Totals{Retransmitted: 4, GoBackN: 2, ACKs: 4, NAKs: NAKs{PSNSequenceError: 1},
				ICRCOK: 30, ICRCErrors: 3},
			Flows: []Flow{
				{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 25, FirstPSN: 1000, LastPSN: 1021,
					Retransmitted: 4, GoBackN: 2, DSCP: 26, ICRCErrors: 2, RTTSamples: 3, RTTMaxUS: 1},
				{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 8, FirstPSN: 1017, LastPSN: 1017, ACKs: 4,
					NAKs: NAKs{PSNSequenceError: 1}, LastNAKPSN: 1005, DSCP: 26, ICRCErrors: 1},
			},
		},
	}
}

func nakErrorsScenario() Scenario {
	return Scenario{
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
	}
}

func duplicateScenario() Scenario {
	return Scenario{
		Name: "duplicate",
		Description: "A mirror that copies some frames twice: WRITE packet 1005, READ response 1009 and the WRITE_ONLY 1012. " +
			"A request seen again right after itself (same PSN and opcode, 1 µs later, no NAK between) is a copy: a " +
			"duplicate, not a resend, so no go-back-N, and 1012 keeps its RTT sample; the repeated READ response " +
			"counts as a retransmission on B's flow.",
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
			Totals:  Totals{Retransmitted: 1, Duplicates: 2, ACKs: 3, ICRCOK: 20},
			Flows: []Flow{
				{Src: a4, Dst: b4, DestQP: qpB, Peer: 2, Packets: 12, FirstPSN: 1000, LastPSN: 1012,
					Duplicates: 2, DSCP: 26, RTTSamples: 4, RTTMaxUS: 2},
				{Src: b4, Dst: a4, DestQP: qpA, Peer: 1, Packets: 8, FirstPSN: 1011, LastPSN: 1011, ACKs: 3, Retransmitted: 1, DSCP: 26},
			},
		},
	}
}
