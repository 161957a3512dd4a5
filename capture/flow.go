package capture

import "github.com/rdmatop/rdmatop/capture/roce"

// flowKey identifies a flow: packets from src to dst for one destination QP.
// IPv4 addresses are IPv4-mapped; RoCEv1 uses the GIDs.
type flowKey struct {
	src, dst [16]byte
	qp       uint32
}

// pairKey indexes request-carrying flows by address pair, for pairing the
// two directions of a connection.
type pairKey struct{ src, dst [16]byte }

// Flow is the running state of one flow. A flow can carry requests (its
// sender's send queue) and responses to the other side's requests at once.
type Flow struct {
	// Every pointer of a flow comes first. The collector scans an object
	// only up to its last pointer, and resetting a flow for reuse bars
	// writes only there: the counters after them cost it nothing (65,536
	// flows are 33 MB, their pointers 8 MB). TestFlowPointersFirst keeps
	// it so.
	newer, older *Flow // the flow table's recency list (Tracker.lru)
	peer         *Flow
	rtt          *rttHist
	trouble      *flowTrouble // nil until something goes wrong (trouble.go)
	opcodes      []OpcodeCount
	pair         *hostPair  // its host pair (hostpair.go)
	resp         respStream // its pointers first
	req          reqStream  // its pointers first

	// The key's 36 bytes and these three share 40: a flow's size is what
	// a capture of many QPs pays for (trouble.go).
	key  flowKey
	ipv4 bool
	// ipIDs: a packet of the flow carried a nonzero IPv4 identification,
	// the sender's order that tells a late original from a resend.
	ipIDs bool
	encap Encap
	// transports seen, one bit per roce.Transport
	transports uint8
	id         int

	firstTS, lastTS         int64
	firstPacket, lastPacket uint64
	packets, bytes, payload uint64
	requests, responses     uint64
	messages                uint64

	// maxPayload is the largest payload of a packet: a floor of the path
	// MTU the sender uses, even when no multi-packet message shows it.
	// pmtu: learned from FIRST/MIDDLE payloads, 0 when unknown.
	maxPayload, pmtu int32

	acks uint64
	// highestACK: the latest PSN the flow's ACKs (or a sequence NAK, which
	// acknowledges the PSN before it) acknowledged.
	highestACK uint32
	ackSeen    bool
	// end-to-end credits in ACKs (not sent when the QP uses an SRQ: code 31)
	lastCredits int
	hasCredits  bool
	// dscpData: dscp is of a packet other than a CNP. A notification
	// point sends CNPs with the flow's key, on the class the fabric gives
	// CNPs (DSCP 48 by NVIDIA's default): they do not say which class the
	// flow's own packets ride.
	dscpData     bool
	sportChanges uint32
	ecn          ECNCounts
	dscp         uint8
	vlan         bool
	vlanID       uint16
	pcp          uint8
	// sport is the UDP source port of the flow's latest RoCEv2 packet,
	// sportChanges how often it changed: a sender keeps one port per QP
	// (its ECMP entropy) unless it re-hashes the QP onto another path.
	sport     uint16
	icrcOK    uint64
	icrcUnver uint64

	// indexed is set once the flow is in its host pair's request list;
	// pairPos, unpairedPos and blockPos are its positions in the pair's
	// lists and in the tracker's unpairedAt (see flowList), block the PSN
	// block it is listed under there.
	indexed                        bool
	block                          uint8
	pairPos, unpairedPos, blockPos int32
	// touchGen is the tracker's interval generation in which the flow was
	// last touched (see Tracker.touch).
	touchGen uint32
	touchIdx uint32 // its entry in the tracker's touch log
}

// Bits of reqStream.jumbo: a request larger than a standard frame
// carries was sent; one was sent since the last request awaiting its
// answer (that answer, cumulative, will cover it); an ACK covered one.
const (
	jumboSent uint8 = 1 << iota
	jumboPending
	jumboACKed
)

// reqStream tracks the sender's request PSNs on a flow.
type reqStream struct {
	// What a flow holds only while it uses it (see compact.go): open PSN
	// holes, requests awaiting their answer, and the last READ requests
	// (for judging their responses, reads.go). nil when there is none, so
	// an idle flow costs a few hundred bytes. First: see Flow.
	holes   *holeSet
	pending *pendingRing
	reads   *readSet
	ud      *udStream // a UD flow's source QP and PSNs (datagram.go)

	init   bool
	lastOp roce.Opcode // the last request's opcode and time (lastTS), for copies
	// lastNew: the last request was new to the stream, not behind it.
	lastNew bool
	// jumbo: what the flow's requests larger than a standard frame
	// carries did (jumboSent, jumboPending, jumboACKed; FlowSummary).
	jumbo       uint8
	first, last uint32
	next        uint32 // highest PSN seen plus what it consumed
	readSlack   int    // READ with unknown path MTU: next may lie up to this far ahead
	readPSN     uint32
	readLen     uint32
	// prevTS: the request before the current one.
	prevTS, lastTS int64
	order          sendOrder // the sender's order, from IPv4 IDs (sendorder.go)
	// The resends and NAKs of the stream are in the flow's troubles
	// (resendState).
}

// respStream tracks READ response PSNs, which must be contiguous within a
// READ and increase from one READ to the next.
type respStream struct {
	// What a flow carrying READ responses keeps once it does: the
	// responder's order from its IPv4 IDs, the response PSNs seen lately,
	// and the ones skipped within a READ's run. First: see Flow.
	track *respTrack
	holes *holeSet

	init     bool
	highest  uint32
	inRead   bool
	readNext uint32
}

const pendingLen = 32

// respTrack is a READ response stream's order and recent PSNs.
type respTrack struct {
	order sendOrder
	seen  psnWindow
}

// fillUndo remembers the last fill counted as reordering by its timing
// alone (no IPv4 ID), in case the packets after it show it was the start
// of a go-back-N retransmission.
type fillUndo struct {
	active bool
	psn    uint32
	gap    uint32
	whole  bool // the fill took the whole gap back
	rest   int  // more PSNs a late READ request took back with it (from the same hole: the READ it overtook skipped them at once)
}

// outstanding is a request waiting for its ACK or first READ response.
type outstanding struct {
	psn   uint32
	jumbo bool // it, or a request since the one awaited before, was larger than a standard frame carries
	ts    int64
}

func (f *Flow) countOpcode(op roce.Opcode) {
	for i := range f.opcodes {
		if f.opcodes[i].Opcode == uint8(op) {
			f.opcodes[i].Packets++
			return
		}
	}
	f.opcodes = append(f.opcodes, OpcodeCount{Opcode: uint8(op), Name: op.String(), Packets: 1})
}

// score orders flows so that the troubled ones come first.
func (f *Flow) score() uint64 {
	s := f.ecn.CE
	if t := f.trouble; t != nil {
		s += t.gaps*4 + t.retrans + t.outOfOrder + t.naks.Total()*4 + t.icrcBad*4 + t.cnps
	}
	return s
}

// openEpisode is a resend episode awaiting the responder's verdict: from
// psn, driven by the timer or by a NAK.
type openEpisode struct {
	open, timer bool
	psn         uint32
	ts          int64 // when the resend was captured
}
