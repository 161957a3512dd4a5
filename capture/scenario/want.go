package scenario

import "github.com/rdmatop/rdmatop/capture/roce"

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
	Duplicates                                               uint64 // requests captured twice (copies)
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
	Duplicates                                               uint64
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
