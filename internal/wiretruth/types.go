package wiretruth

// Truth is what the network did between two capture points.
type Truth struct {
	Captures []CaptureInfo `json:"captures"`
	Flows    []FlowTruth   `json:"flows"`
	// Events lists every packet the network did not simply deliver, in
	// upstream order: lost, corrupted, duplicated, reordered, CE-marked.
	Events []Event `json:"events"`
	// DroppedBefore: what impairments at a sender's own egress dropped
	// before its capture point (SourceDrops); LoadRun fills it from the
	// run's meta.txt.
	DroppedBefore []SourceDrop `json:"dropped_before_capture,omitempty"`
}

// CaptureInfo names one capture point.
type CaptureInfo struct {
	Name    string `json:"name"`
	Packets int    `json:"roce_packets"`
	// Unmatched: packets here that match nothing on the other side, not
	// even as a corrupted copy (0 in a sound run).
	Unmatched int `json:"unmatched"`
}

// FlowTruth is one flow (a sender, a destination and its QP): what the
// network did to its packets, and what an analyser at each capture point
// can see of it.
type FlowTruth struct {
	Src        string `json:"src"`
	Dst        string `json:"dst"`
	DstQP      uint32 `json:"dest_qp"`
	Kind       string `json:"kind"` // requests, responses, cnp or mixed
	Upstream   string `json:"upstream"`
	Downstream string `json:"downstream"`
	Sent       uint64 `json:"sent"`      // packets upstream
	Delivered  uint64 `json:"delivered"` // of those, arrived intact (first copy)
	Lost       uint64 `json:"lost"`
	Corrupted  uint64 `json:"corrupted"`
	Duplicated uint64 `json:"duplicated"` // extra copies made on the path
	// Reordered: packets that arrived after one their sender sent later;
	// MaxOvertaken: the most later-sent packets that passed one of them.
	Reordered    uint64 `json:"reordered"`
	MaxOvertaken uint64 `json:"max_overtaken"`
	CEMarked     uint64 `json:"ce_marked"`
	// CEBefore: packets already CE-marked at the upstream point. A
	// sender sets ECT, never CE (RFC 3168): they were marked before the
	// first capture, at the sender's own egress.
	CEBefore uint64 `json:"ce_before,omitempty"`
	// What a sender's own egress did before the first capture, where the
	// upstream capture itself shows it (like CEBefore, both points see
	// it; the matching between them cannot):
	//   - CorruptedBefore: packets whose ICRC already fails upstream; the
	//     receiver drops them, so to the transport they are lost.
	//   - DuplicatedBefore: second copies of an IPv4 packet with the same
	//     identification (a sender builds a resend afresh, with a new
	//     one); with IPv6 or ID 0 a copy and a resend look alike, and
	//     count as resends.
	//   - ReorderedBefore: first sendings of a tracked PSN stream that
	//     crossed the upstream point after one with a later PSN (a sender
	//     numbers new packets in order; a resend has the same bytes).
	CorruptedBefore  uint64 `json:"corrupted_before,omitempty"`
	DuplicatedBefore uint64 `json:"duplicated_before,omitempty"`
	ReorderedBefore  uint64 `json:"reordered_before,omitempty"`
	// Resent: packets the sender sent again (same bytes), and the runs of
	// them: an episode starts where the sender goes back in its own order
	// of sending, credited to what the sender received first: a NAK (PSN
	// sequence error) or RNR NAK naming the PSN it goes back to, else its
	// timer.
	Resent   uint64       `json:"resent"`
	Episodes EpisodeCount `json:"resend_episodes"`
	// ACKsRepeated: acknowledgements sent again with the same content (a
	// responder answers a duplicate request with the same ACK).
	ACKsRepeated uint64 `json:"acks_repeated"`
	// RNRNAKs: RNR NAKs the flow carried (its sender had no receive ready
	// for the peer's SEND, or Soft-RoCE could not send a READ response
	// yet), as they left their sender.
	RNRNAKs uint64     `json:"rnr_naks,omitempty"`
	DelayNs DelayStats `json:"delay_ns"`
	// Seen: what can be seen at each capture point, by its name.
	Seen map[string]Observed `json:"seen"`
}

// EpisodeCount counts resend runs by what triggered them.
type EpisodeCount struct {
	NAK   uint64 `json:"nak"`
	RNR   uint64 `json:"rnr"`
	Timer uint64 `json:"timer"`
}

// DelayStats summarises the one-way delay between the capture points.
type DelayStats struct {
	Min    int64 `json:"min"`
	Median int64 `json:"median"`
	Max    int64 `json:"max"`
}

// Observed is what the network's doing looks like at one capture point:
// the counts an analyser there should report.
type Observed struct {
	Packets uint64 `json:"packets"`
	// Missing: packets lost before this point that leave a hole: a packet
	// their sender sent later is seen here before any copy of them.
	Missing uint64 `json:"missing"`
	// Duplicates: copies made on the path before this point.
	Duplicates uint64 `json:"duplicates"`
	// OutOfOrder: packets seen here after one their sender sent later.
	OutOfOrder uint64 `json:"out_of_order"`
	// Resent: resends by the sender that reach this point.
	Resent uint64 `json:"resent"`
	// Unclear: without IPv4 IDs (IPv6, or a sender sending ID 0), packets
	// sent more than once whose first copy here came after a packet first
	// sent after them. The original arriving late and the resend of a lost
	// original are the same bytes, so this point cannot tell a hole from
	// reordering for them; UnclearLost of them were in fact lost (and are
	// in Missing), the rest came late.
	Unclear     uint64 `json:"unclear,omitempty"`
	UnclearLost uint64 `json:"unclear_lost,omitempty"`
	// UnclearCopies and UnclearResends: without IPv4 IDs, path copies
	// (in Duplicates) and the sender's resends (in Resent) seen right
	// behind an earlier copy of themselves, before any ACK timer could
	// fire. A copy and an immediate resend are the same bytes at the same
	// place in the stream, so this point cannot tell which either was
	// (behindLast.again).
	UnclearCopies  uint64 `json:"unclear_copies,omitempty"`
	UnclearResends uint64 `json:"unclear_resends,omitempty"`
}

// Event is one packet the network did not simply deliver.
type Event struct {
	Flow   int    `json:"flow"` // index into Flows
	PSN    uint32 `json:"psn"`
	Opcode uint8  `json:"opcode"`
	// What: lost, corrupted, duplicated, reordered, ce; and hole for a
	// lost packet that leaves a hole downstream (see Observed.Missing).
	What      string `json:"what"`
	UpTS      int64  `json:"up_ts"`
	DownTS    int64  `json:"down_ts,omitempty"`
	Overtaken uint64 `json:"overtaken,omitempty"`
}
