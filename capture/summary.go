package capture

// Summary is the analysis of a capture: the JSON document of
// `rdmatop replay FILE --json`. Field names are a stable contract: add,
// never rename.
type Summary struct {
	File             string `json:"file,omitempty"`
	Format           string `json:"format,omitempty"`
	Compressed       bool   `json:"compressed,omitempty"`
	LinkType         string `json:"link_type,omitempty"`
	Snaplen          uint32 `json:"snaplen,omitempty"`
	Packets          uint64 `json:"packets"`
	RoCEPackets      uint64 `json:"roce_packets"`
	RoCEv1Packets    uint64 `json:"rocev1_packets"`
	RoCEv2Packets    uint64 `json:"rocev2_packets"`
	NonRoCEPackets   uint64 `json:"non_roce_packets"`
	MalformedPackets uint64 `json:"malformed_packets"`
	TruncatedPackets uint64 `json:"truncated_packets"`
	// HeadersCutPackets were cut by the snap length inside their transport
	// headers: counted in TruncatedPackets, not analysed.
	HeadersCutPackets uint64        `json:"headers_cut_packets"`
	Bytes             uint64        `json:"bytes"`
	FirstTS           string        `json:"first_ts,omitempty"`
	LastTS            string        `json:"last_ts,omitempty"`
	DurationSec       float64       `json:"duration_s"`
	PMTU              int           `json:"pmtu"`
	PMTUSource        string        `json:"pmtu_source"` // "flag", "inferred" or "unknown"
	Opcodes           []OpcodeCount `json:"opcodes"`
	Totals            Totals        `json:"totals"`
	Flows             []FlowSummary `json:"flows"`
	FlowsEvicted      uint64        `json:"flows_evicted"`
	FlowTableCap      int           `json:"flow_table_cap"`
	Anomalies         []Anomaly     `json:"anomalies"`
	AnomaliesDropped  uint64        `json:"anomalies_dropped"`
	// Error is set when reading stopped early on a damaged file; everything
	// above describes the records before the damage.
	Error string `json:"error,omitempty"`
	// KernelDrops is set for live captures: frames the kernel dropped.
	KernelDrops *uint64 `json:"kernel_drops,omitempty"`
}

// OpcodeCount is one line of an opcode histogram.
type OpcodeCount struct {
	Opcode  uint8  `json:"opcode"`
	Name    string `json:"name"`
	Packets uint64 `json:"packets"`
}

// NAKCounts counts NAKs by kind.
type NAKCounts struct {
	PSNSequenceError       uint64 `json:"psn_sequence_error"`
	RNR                    uint64 `json:"rnr"`
	InvalidRequest         uint64 `json:"invalid_request"`
	RemoteAccessError      uint64 `json:"remote_access_error"`
	RemoteOperationalError uint64 `json:"remote_operational_error"`
	InvalidRDRequest       uint64 `json:"invalid_rd_request"`
	Reserved               uint64 `json:"reserved"`
}

// Total returns the number of NAKs of any kind, RNR included.
func (n NAKCounts) Total() uint64 {
	return n.PSNSequenceError + n.RNR + n.InvalidRequest + n.RemoteAccessError +
		n.RemoteOperationalError + n.InvalidRDRequest + n.Reserved
}

func (n *NAKCounts) add(o NAKCounts) {
	n.PSNSequenceError += o.PSNSequenceError
	n.RNR += o.RNR
	n.InvalidRequest += o.InvalidRequest
	n.RemoteAccessError += o.RemoteAccessError
	n.RemoteOperationalError += o.RemoteOperationalError
	n.InvalidRDRequest += o.InvalidRDRequest
	n.Reserved += o.Reserved
}

// ECNCounts counts packets by IP ECN codepoint.
type ECNCounts struct {
	NotECT uint64 `json:"not_ect"`
	ECT1   uint64 `json:"ect1"`
	ECT0   uint64 `json:"ect0"`
	CE     uint64 `json:"ce"`
}

// RTT holds request-to-ACK round-trip percentiles in microseconds.
type RTT struct {
	Samples uint64  `json:"samples"`
	Min     float64 `json:"min"`
	P50     float64 `json:"p50"`
	P99     float64 `json:"p99"`
	P999    float64 `json:"p99_9"`
	Max     float64 `json:"max"`
}

// Totals adds up the flows.
type Totals struct {
	Flows                uint64    `json:"flows"`
	PSNGaps              uint64    `json:"psn_gaps"`
	MissingPSNs          uint64    `json:"missing_psns"`
	RetransmittedPackets uint64    `json:"retransmitted_packets"`
	GoBackN              uint64    `json:"go_back_n"`
	OutOfOrder           uint64    `json:"out_of_order"`
	ACKs                 uint64    `json:"acks"`
	ZeroCreditACKs       uint64    `json:"zero_credit_acks"`
	NAKs                 NAKCounts `json:"naks"`
	CNPs                 uint64    `json:"cnps"`
	ECN                  ECNCounts `json:"ecn"`
	ECNCE                uint64    `json:"ecn_ce"`
	BECN                 uint64    `json:"becn"`
	FECN                 uint64    `json:"fecn"`
	ICRCOK               uint64    `json:"icrc_ok"`
	ICRCErrors           uint64    `json:"icrc_errors"`
	ICRCUnverifiable     uint64    `json:"icrc_unverifiable"`
}

// FlowSummary is one flow: packets from Src to Dst for destination QP DestQP.
type FlowSummary struct {
	ID                   int           `json:"id"`
	Src                  string        `json:"src"`
	Dst                  string        `json:"dst"`
	DestQP               uint32        `json:"dest_qp"`
	Encap                string        `json:"encap"`
	Transport            string        `json:"transport"`         // RC, UC, UD, XRC, RD, CNP or mixed
	PeerID               int           `json:"peer_id,omitempty"` // the flow carrying the other direction of the connection
	Packets              uint64        `json:"packets"`
	Bytes                uint64        `json:"bytes"`
	PayloadBytes         uint64        `json:"payload_bytes"`
	Requests             uint64        `json:"requests"`
	Responses            uint64        `json:"responses"`
	Messages             uint64        `json:"messages"`
	FirstTS              string        `json:"first_ts"`
	LastTS               string        `json:"last_ts"`
	FirstPacket          uint64        `json:"first_packet"`
	LastPacket           uint64        `json:"last_packet"`
	Gbps                 float64       `json:"gbps"`
	FirstPSN             uint32        `json:"first_psn"`
	LastPSN              uint32        `json:"last_psn"`
	PSNGaps              uint64        `json:"psn_gaps"`
	MissingPSNs          uint64        `json:"missing_psns"`
	RetransmittedPackets uint64        `json:"retransmitted_packets"`
	GoBackN              uint64        `json:"go_back_n"`
	OutOfOrder           uint64        `json:"out_of_order"`
	ACKs                 uint64        `json:"acks"`
	LastACKCredits       *int          `json:"last_ack_credits,omitempty"`
	ZeroCreditACKs       uint64        `json:"zero_credit_acks"`
	NAKs                 NAKCounts     `json:"naks"`
	LastNAKPSN           *uint32       `json:"last_nak_psn,omitempty"`
	CNPs                 uint64        `json:"cnps"`
	CNPsCarried          uint64        `json:"cnps_carried"`
	ECNCE                uint64        `json:"ecn_ce"`
	ECN                  ECNCounts     `json:"ecn"`
	DSCP                 uint8         `json:"dscp"`
	VLAN                 *uint16       `json:"vlan,omitempty"`
	PCP                  *uint8        `json:"pcp,omitempty"`
	ICRCErrors           uint64        `json:"icrc_errors"`
	ICRCUnverifiable     uint64        `json:"icrc_unverifiable"`
	RTTus                RTT           `json:"rtt_us"`
	Opcodes              []OpcodeCount `json:"opcodes"`
	Troubled             bool          `json:"troubled"`
}

// Anomaly is one notable event, with the packet that showed it.
type Anomaly struct {
	Kind   string `json:"kind"` // psn_gap, go_back_n, out_of_order, nak, rnr_nak, icrc_error, malformed, ecn_ce, cnp
	Packet uint64 `json:"packet"`
	TS     string `json:"ts"`
	FlowID int    `json:"flow_id,omitempty"`
	PSN    uint32 `json:"psn"`
	Detail string `json:"detail"`
}
