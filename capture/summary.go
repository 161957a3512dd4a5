package capture

import "github.com/rdmatop/rdmatop/capture/roce"

// Summary is the analysis of a capture: the JSON document of
// `rdmatop replay FILE --json`. Field names are a stable contract: add,
// never rename. (One type changed, once: a flow's dest_qp is the string
// findings' objects carry, "0x00003f", where it was a number; readers
// take both.)
type Summary struct {
	File string `json:"file,omitempty" expr:"file"`
	// Interface is the network interface the packets were captured on: a
	// live capture's, or the one a recording captured (its -i); "" for a
	// capture file, which does not say.
	Interface     string `json:"interface,omitempty" expr:"interface"`
	Format        string `json:"format,omitempty" expr:"format"`
	Compressed    bool   `json:"compressed,omitempty" expr:"compressed"`
	LinkType      string `json:"link_type,omitempty" expr:"link_type"`
	Snaplen       uint32 `json:"snaplen,omitempty" expr:"snaplen"`
	Packets       uint64 `json:"packets" expr:"packets"`
	RoCEPackets   uint64 `json:"roce_packets" expr:"roce_packets"`
	RoCEv1Packets uint64 `json:"rocev1_packets" expr:"rocev1_packets"`
	RoCEv2Packets uint64 `json:"rocev2_packets" expr:"rocev2_packets"`
	// RoCEPacketsSoFar is how many RoCE packets the capture has analysed
	// since it began, up to the end of what the summary covers: in an
	// interval's summary, RoCEPackets is the interval's share of it. It
	// says whether a capture sees a port's traffic at all when one
	// interval happens to hold none of it (the reader behind the ticks).
	RoCEPacketsSoFar uint64 `json:"roce_packets_so_far" expr:"roce_packets_so_far"`
	NonRoCEPackets   uint64 `json:"non_roce_packets" expr:"non_roce_packets"`
	MalformedPackets uint64 `json:"malformed_packets" expr:"malformed_packets"`
	TruncatedPackets uint64 `json:"truncated_packets" expr:"truncated_packets"`
	// HeadersCutPackets were cut by the snap length inside their transport
	// headers: counted in TruncatedPackets, not analysed.
	HeadersCutPackets uint64        `json:"headers_cut_packets" expr:"headers_cut_packets"`
	Bytes             uint64        `json:"bytes" expr:"bytes"`
	FirstTS           string        `json:"first_ts,omitempty" expr:"first_ts"`
	LastTS            string        `json:"last_ts,omitempty" expr:"last_ts"`
	DurationSec       float64       `json:"duration_s" expr:"duration_s"`
	PMTU              int           `json:"pmtu" expr:"pmtu"`
	PMTUSource        string        `json:"pmtu_source" expr:"pmtu_source"` // "flag", "inferred" or "unknown"
	Opcodes           []OpcodeCount `json:"opcodes" expr:"opcodes"`
	Totals            Totals        `json:"totals" expr:"totals"`
	Flows             []FlowSummary `json:"flows" expr:"flows"`
	// Paths sums the flows up per source and destination host (ECMP
	// entropy, Paths); the whole capture's summary only.
	Paths            []PathSummary `json:"paths,omitempty" expr:"paths"`
	FlowsEvicted     uint64        `json:"flows_evicted" expr:"flows_evicted"`
	FlowTableCap     int           `json:"flow_table_cap" expr:"flow_table_cap"`
	Anomalies        []Anomaly     `json:"anomalies" expr:"anomalies"`
	AnomaliesDropped uint64        `json:"anomalies_dropped" expr:"anomalies_dropped"`
	// Error is set when reading stopped early on a damaged file; everything
	// above describes the records before the damage.
	Error string `json:"error,omitempty" expr:"error"`
	// KernelDrops is set for live captures: frames the kernel dropped.
	KernelDrops *uint64 `json:"kernel_drops,omitempty" expr:"kernel_drops"`
	// RingDrops splits KernelDrops by ring when the capture reads several
	// rings of a fanout group (--workers): one slow reader shows as one
	// ring dropping.
	RingDrops []uint64 `json:"ring_drops,omitempty" expr:"ring_drops"`
	// Unrecorded is set for a recording that says how its capture fared:
	// frames the capture saw that the file lacks (its writer fell behind).
	Unrecorded *uint64 `json:"unrecorded,omitempty" expr:"unrecorded"`
	// BlindS is how long, in seconds, the capture could not see in the
	// time the analysis covers: its interface was down, and the kernel
	// hands a packet socket nothing until it is back. LinkDown says why
	// when it is still down at the end ("administratively down").
	BlindS   float64 `json:"blind_s,omitempty" expr:"blind_s"`
	LinkDown string  `json:"link_down,omitempty" expr:"link_down"`
	// ICRC says which packets' ICRC was verified: "all", "sampled" (the
	// live reader fell behind and --icrc=auto verified one packet in
	// several; ICRCUnchecked counts the others) or "off".
	ICRC          string `json:"icrc,omitempty" expr:"icrc"`
	ICRCUnchecked uint64 `json:"icrc_unchecked,omitempty" expr:"icrc_unchecked"`
}

// OpcodeCount is one line of an opcode histogram.
type OpcodeCount struct {
	Opcode  uint8  `json:"opcode" expr:"opcode"`
	Name    string `json:"name" expr:"name"`
	Packets uint64 `json:"packets" expr:"packets"`
}

// NAKCounts counts NAKs by kind.
type NAKCounts struct {
	PSNSequenceError       uint64 `json:"psn_sequence_error" expr:"psn_sequence_error"`
	RNR                    uint64 `json:"rnr" expr:"rnr"`
	InvalidRequest         uint64 `json:"invalid_request" expr:"invalid_request"`
	RemoteAccessError      uint64 `json:"remote_access_error" expr:"remote_access_error"`
	RemoteOperationalError uint64 `json:"remote_operational_error" expr:"remote_operational_error"`
	InvalidRDRequest       uint64 `json:"invalid_rd_request" expr:"invalid_rd_request"`
	Reserved               uint64 `json:"reserved" expr:"reserved"`
}

// ECNCounts counts packets by IP ECN codepoint.
type ECNCounts struct {
	NotECT uint64 `json:"not_ect" expr:"not_ect"`
	ECT1   uint64 `json:"ect1" expr:"ect1"`
	ECT0   uint64 `json:"ect0" expr:"ect0"`
	CE     uint64 `json:"ce" expr:"ce"`
}

// RTT holds request-to-ACK round-trip percentiles in microseconds.
type RTT struct {
	Samples uint64  `json:"samples" expr:"samples"`
	Min     float64 `json:"min" expr:"min"`
	P50     float64 `json:"p50" expr:"p50"`
	P99     float64 `json:"p99" expr:"p99"`
	P999    float64 `json:"p99_9" expr:"p99_9"`
	Max     float64 `json:"max" expr:"max"`
}

// Totals adds up the flows.
type Totals struct {
	Flows                uint64 `json:"flows" expr:"flows"`
	PSNGaps              uint64 `json:"psn_gaps" expr:"psn_gaps"`
	MissingPSNs          uint64 `json:"missing_psns" expr:"missing_psns"`
	RetransmittedPackets uint64 `json:"retransmitted_packets" expr:"retransmitted_packets"`
	GoBackN              uint64 `json:"go_back_n" expr:"go_back_n"`
	OutOfOrder           uint64 `json:"out_of_order" expr:"out_of_order"`
	Duplicates           uint64 `json:"duplicates" expr:"duplicates"` // requests captured twice in a row (copies, not resends)
	// READ requests asking again for an earlier READ's responses, and those
	// sent before any of those responses was captured (see FlowSummary).
	ReadReissues           uint64    `json:"read_reissues" expr:"read_reissues"`
	ReadReissuesUnanswered uint64    `json:"read_reissues_unanswered" expr:"read_reissues_unanswered"`
	TimerEpisodes          uint64    `json:"timer_episodes" expr:"timer_episodes"`
	ACKs                   uint64    `json:"acks" expr:"acks"`
	ZeroCreditACKs         uint64    `json:"zero_credit_acks" expr:"zero_credit_acks"`
	RepeatedACKs           uint64    `json:"repeated_acks" expr:"repeated_acks"`
	NAKs                   NAKCounts `json:"naks" expr:"naks"`
	CNPs                   uint64    `json:"cnps" expr:"cnps"`
	ECN                    ECNCounts `json:"ecn" expr:"ecn"`
	ECNCE                  uint64    `json:"ecn_ce" expr:"ecn_ce"`
	BECN                   uint64    `json:"becn" expr:"becn"`
	FECN                   uint64    `json:"fecn" expr:"fecn"`
	ICRCOK                 uint64    `json:"icrc_ok" expr:"icrc_ok"`
	ICRCErrors             uint64    `json:"icrc_errors" expr:"icrc_errors"`
	ICRCUnverifiable       uint64    `json:"icrc_unverifiable" expr:"icrc_unverifiable"`
}

// WithoutIPIDs reports whether the flow's packets are known to carry no
// IPv4 identification (false when they do, or when the summary does not
// say).
func (f FlowSummary) WithoutIPIDs() bool { return f.IPIDs != nil && !*f.IPIDs }

// FlowSummary is one flow: packets from Src to Dst for destination QP DestQP.
type FlowSummary struct {
	ID           int      `json:"id" expr:"id"`
	Src          string   `json:"src" expr:"src"`
	Dst          string   `json:"dst" expr:"dst"`
	DestQP       roce.QPN `json:"dest_qp" expr:"dest_qp"`
	Encap        string   `json:"encap" expr:"encap"`
	Transport    string   `json:"transport" expr:"transport"`       // RC, UC, UD, XRC, RD, CNP or mixed
	PeerID       int      `json:"peer_id,omitempty" expr:"peer_id"` // the flow carrying the other direction of the connection
	Packets      uint64   `json:"packets" expr:"packets"`
	Bytes        uint64   `json:"bytes" expr:"bytes"`
	PayloadBytes uint64   `json:"payload_bytes" expr:"payload_bytes"`
	// MaxPayload is the largest payload of one packet of the flow (since
	// the capture began, also in an interval's summary): the sender's path
	// MTU is at least this.
	MaxPayload           int     `json:"max_payload" expr:"max_payload"`
	Requests             uint64  `json:"requests" expr:"requests"`
	Responses            uint64  `json:"responses" expr:"responses"`
	Messages             uint64  `json:"messages" expr:"messages"`
	FirstTS              string  `json:"first_ts" expr:"first_ts"`
	LastTS               string  `json:"last_ts" expr:"last_ts"`
	FirstPacket          uint64  `json:"first_packet" expr:"first_packet"`
	LastPacket           uint64  `json:"last_packet" expr:"last_packet"`
	Gbps                 float64 `json:"gbps" expr:"gbps"`
	FirstPSN             uint32  `json:"first_psn" expr:"first_psn"`
	LastPSN              uint32  `json:"last_psn" expr:"last_psn"`
	PSNGaps              uint64  `json:"psn_gaps" expr:"psn_gaps"`
	MissingPSNs          uint64  `json:"missing_psns" expr:"missing_psns"`
	RetransmittedPackets uint64  `json:"retransmitted_packets" expr:"retransmitted_packets"`
	GoBackN              uint64  `json:"go_back_n" expr:"go_back_n"`
	OutOfOrder           uint64  `json:"out_of_order" expr:"out_of_order"`
	Duplicates           uint64  `json:"duplicates" expr:"duplicates"` // requests captured twice in a row (a copying mirror or link), not resends
	// ReadReissues: READ requests asking again for responses an earlier
	// READ of the flow already asked for (a requester re-issues from the
	// first response it lacks after a timeout or a NAK).
	// ReadReissuesUnanswered: those sent before the capture saw any of the
	// responses they ask for - the requester's timer fired while the
	// responder had not answered yet. Where the capture had already seen
	// the response, it was lost after the capture point (or late).
	// ReadReissuesLate: unanswered re-issues whose first response PSN
	// then came twice - the answer to the READ they repeat, late, and
	// the answer to the re-issue: the timer fired before a late answer,
	// not after a loss.
	ReadReissues           uint64 `json:"read_reissues" expr:"read_reissues"`
	ReadReissuesUnanswered uint64 `json:"read_reissues_unanswered" expr:"read_reissues_unanswered"`
	ReadReissuesLate       uint64 `json:"read_reissues_late" expr:"read_reissues_late"`
	// TimerEpisodes: go-back-N episodes with no NAK or RNR NAK since the
	// requester's packet before them: its ACK timer fired. TimerWaitUs:
	// the shortest the requester waited, idle, before such a resend (its
	// ACK timeout, or a little less); 0 when there was none. Answers
	// that take longer than that (RTTus) came late, not lost.
	TimerEpisodes  uint64  `json:"timer_episodes" expr:"timer_episodes"`
	TimerWaitUs    float64 `json:"timer_wait_us" expr:"timer_wait_us"`
	ACKs           uint64  `json:"acks" expr:"acks"`
	LastACKCredits *int    `json:"last_ack_credits,omitempty" expr:"last_ack_credits"`
	ZeroCreditACKs uint64  `json:"zero_credit_acks" expr:"zero_credit_acks"`
	// RepeatedACKs: ACKs that acknowledge nothing new (a PSN at or before
	// one the flow already acknowledged). A responder sends one when a
	// request it already executed comes again (IBTA: a duplicate request
	// is acknowledged again, not executed), so each one says a request
	// reached the responder twice: a resend of a packet that had not been
	// lost, or a copy the path made.
	RepeatedACKs uint64 `json:"repeated_acks" expr:"repeated_acks"`
	// On a request flow, the verdict of its peer's ACKs on its resend
	// episodes. UndoneNAKEpisodes, UndoneTimerEpisodes: episodes after
	// which the responder acknowledged again a PSN the requester went
	// back to - the resend found the original already there, so the
	// original was late, not lost (NAK: it was overtaken, reordering;
	// timer: its answer came after the timeout). ResendsAfterACK: episodes
	// going back to a PSN the capture had already seen acknowledged - the
	// ACK went missing, or came late, after the capture point.
	UndoneNAKEpisodes   uint64    `json:"undone_nak_episodes" expr:"undone_nak_episodes"`
	UndoneTimerEpisodes uint64    `json:"undone_timer_episodes" expr:"undone_timer_episodes"`
	ResendsAfterACK     uint64    `json:"resends_after_ack" expr:"resends_after_ack"`
	NAKs                NAKCounts `json:"naks" expr:"naks"`
	LastNAKPSN          *uint32   `json:"last_nak_psn,omitempty" expr:"last_nak_psn"`
	// JumboSent: the flow's requests include one whose payload a
	// standard 1500-byte frame cannot carry (over 1024 bytes; READ
	// responses do not count). JumboACKed: an ACK covered such a request:
	// large requests get through. Sent, never acknowledged, with RTT
	// samples (small ones were answered) and resends is the MTU signature.
	JumboSent   bool      `json:"jumbo_sent" expr:"jumbo_sent"`
	JumboACKed  bool      `json:"jumbo_acked" expr:"jumbo_acked"`
	CNPs        uint64    `json:"cnps" expr:"cnps"`
	CNPsCarried uint64    `json:"cnps_carried" expr:"cnps_carried"`
	ECNCE       uint64    `json:"ecn_ce" expr:"ecn_ce"`
	ECN         ECNCounts `json:"ecn" expr:"ecn"`
	// DSCP is that of the flow's latest packet other than a CNP (of its
	// CNPs when it carries nothing else): the class its requests or
	// responses ride. VLAN and PCP are of the same packet.
	DSCP uint8 `json:"dscp" expr:"dscp"`
	// UDPSrcPort is the UDP source port of the flow's latest packet
	// (RoCEv2; absent, 0, for RoCE v1: RFC 768 has 0 for "no port"), its
	// ECMP entropy: between two hosts it is the only field of the 5-tuple
	// that differs from QP to QP. UDPSrcPortChanges counts the packets
	// that came with another port than the one before. (Beside DSCP: in
	// what was its padding, the summary of 65,536 flows is no larger.)
	// IPIDs: whether the flow's packets carry IPv4 identifications (IPv6
	// has none; some NICs send 0): the sender's order, which tells a late
	// original from a resend where PSNs alone cannot. Absent (a summary
	// written before it existed) is unknown, not false.
	IPIDs             *bool   `json:"ip_ids,omitempty" expr:"ip_ids"`
	UDPSrcPort        uint16  `json:"udp_sport,omitempty" expr:"udp_sport"`
	UDPSrcPortChanges uint32  `json:"udp_sport_changes,omitempty" expr:"udp_sport_changes"`
	VLAN              *uint16 `json:"vlan,omitempty" expr:"vlan"`
	PCP               *uint8  `json:"pcp,omitempty" expr:"pcp"`
	// CNPDSCP and CNPPCP are the class of the latest CNP with the flow's
	// key (CNPsCarried > 0; PCP only when tagged): the notification point
	// picks it apart from the data's class (DSCP, PCP), which CNPs do not
	// change.
	CNPDSCP *uint8 `json:"cnp_dscp,omitempty" expr:"cnp_dscp"`
	// CNPECN is the ECN codepoint of the latest CNP (0 Not-ECT, 2 ECT(0)):
	// a NIC sends its CNPs with one, so ECN less CNPsCarried at it is
	// the codepoints of the flow's own packets.
	CNPECN           *uint8        `json:"cnp_ecn,omitempty" expr:"cnp_ecn"`
	CNPPCP           *uint8        `json:"cnp_pcp,omitempty" expr:"cnp_pcp"`
	ICRCErrors       uint64        `json:"icrc_errors" expr:"icrc_errors"`
	ICRCUnverifiable uint64        `json:"icrc_unverifiable" expr:"icrc_unverifiable"`
	RTTus            RTT           `json:"rtt_us" expr:"rtt_us"`
	Opcodes          []OpcodeCount `json:"opcodes" expr:"opcodes"`
	Troubled         bool          `json:"troubled" expr:"troubled"`
}

// Anomaly is one notable event, with the packet that showed it.
type Anomaly struct {
	Kind   string `json:"kind" expr:"kind"` // psn_gap, go_back_n, out_of_order, nak, rnr_nak, icrc_error, malformed, ecn_ce, cnp
	Packet uint64 `json:"packet" expr:"packet"`
	TS     string `json:"ts" expr:"ts"`
	FlowID int    `json:"flow_id,omitempty" expr:"flow_id"`
	PSN    uint32 `json:"psn" expr:"psn"`
	Detail string `json:"detail" expr:"detail"`
}
