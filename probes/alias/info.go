package alias

// Kind says whether a value accumulates (counter) or is a level (gauge).
type Kind string

// Kinds.
const (
	Counter Kind = "counter"
	Gauge   Kind = "gauge"
)

// Units used by canonical names.
const (
	UnitPackets  = "packets"
	UnitBytes    = "bytes"
	UnitEvents   = "events"
	UnitRequests = "requests"
	UnitFrames   = "frames"
	UnitMicros   = "microseconds"
	UnitTicks    = "ticks"
	UnitBits     = "bits"
	UnitPercent  = "percent"
)

// Info describes one canonical name.
type Info struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Unit        string `json:"unit"`
	Kind        Kind   `json:"kind"`
	// RisingIsBad: an increase is a symptom worth flagging (errors, drops,
	// congestion signals), not just load.
	RisingIsBad bool `json:"rising_is_bad"`
	// PerPriority: the name carries a _prio<p> suffix (p = 0..7) when used.
	PerPriority bool `json:"per_priority,omitempty"`
}

// canonical is every canonical name rdmatop uses. Order is presentation
// order: traffic, congestion, PFC, drops, link and PHY, transport.
var canonical = []Info{
	// Traffic.
	{"rx_packets", "packets received by the RDMA port (RDMA traffic only on RoCE devices)", UnitPackets, Counter, false, false},
	{"tx_packets", "packets sent by the RDMA port (RDMA traffic only on RoCE devices)", UnitPackets, Counter, false, false},
	{"rx_bytes", "bytes received by the RDMA port (RDMA traffic only on RoCE devices)", UnitBytes, Counter, false, false},
	{"tx_bytes", "bytes sent by the RDMA port (RDMA traffic only on RoCE devices)", UnitBytes, Counter, false, false},
	{"rx_unicast_packets", "unicast packets received by the RDMA port", UnitPackets, Counter, false, false},
	{"tx_unicast_packets", "unicast packets sent by the RDMA port", UnitPackets, Counter, false, false},
	{"rx_multicast_packets", "multicast packets received by the RDMA port", UnitPackets, Counter, false, false},
	{"tx_multicast_packets", "multicast packets sent by the RDMA port", UnitPackets, Counter, false, false},
	{"rx_write_requests", "RDMA WRITE requests received (responder side)", UnitRequests, Counter, false, false},
	{"rx_read_requests", "RDMA READ requests received (responder side)", UnitRequests, Counter, false, false},
	{"rx_atomic_requests", "atomic requests received (responder side)", UnitRequests, Counter, false, false},
	{"rx_send_requests", "SEND requests received", UnitRequests, Counter, false, false},
	{"tx_write_requests", "RDMA WRITE requests sent (requester side)", UnitRequests, Counter, false, false},
	{"tx_read_requests", "RDMA READ requests sent (requester side)", UnitRequests, Counter, false, false},
	{"tx_atomic_requests", "atomic requests sent (requester side)", UnitRequests, Counter, false, false},
	{"tx_send_requests", "SEND requests sent", UnitRequests, Counter, false, false},
	{"phy_rx_packets", "packets received on the wire, all traffic (physical port)", UnitPackets, Counter, false, false},
	{"phy_tx_packets", "packets sent on the wire, all traffic (physical port)", UnitPackets, Counter, false, false},
	{"phy_rx_bytes", "bytes received on the wire, all traffic, FCS included (physical port)", UnitBytes, Counter, false, false},
	{"phy_tx_bytes", "bytes sent on the wire, all traffic (physical port)", UnitBytes, Counter, false, false},
	{"rx_prio_packets", "packets received on a priority", UnitPackets, Counter, false, true},
	{"tx_prio_packets", "packets sent on a priority", UnitPackets, Counter, false, true},
	{"rx_prio_bytes", "bytes received on a priority", UnitBytes, Counter, false, true},
	{"tx_prio_bytes", "bytes sent on a priority", UnitBytes, Counter, false, true},

	// Congestion (ECN / DCQCN).
	{"ecn_marked_roce_packets", "RoCE packets received with ECN CE: switches on the path are congested", UnitPackets, Counter, true, false},
	{"cnp_sent", "CNPs sent by the notification point: this host asks senders to slow down", UnitPackets, Counter, true, false},
	{"cnp_received", "CNPs received, handled or not", UnitPackets, Counter, true, false},
	{"cnp_handled", "CNPs the reaction point acted on: this host slowed down for congestion downstream", UnitPackets, Counter, true, false},
	{"cnp_ignored", "CNPs the reaction point ignored: DCQCN reaction point off for that priority", UnitPackets, Counter, true, false},
	{"rx_prio_ecn_marked", "packets received with ECN CE on a priority (traffic class)", UnitPackets, Counter, true, true},

	// PFC and pause.
	{"rx_pfc_pause_frames", "PFC pause frames received on a priority: the peer is congested and throttles us", UnitFrames, Counter, true, true},
	{"tx_pfc_pause_frames", "PFC pause frames sent on a priority: our receive buffer for it is filling", UnitFrames, Counter, true, true},
	{"rx_pfc_pause_duration", "time the peer kept a priority paused", UnitMicros, Counter, true, true},
	{"tx_pfc_pause_duration", "time we asked the peer to keep a priority paused", UnitMicros, Counter, true, true},
	{"rx_pfc_pause_transitions", "XOFF to XON transitions received on a priority", UnitEvents, Counter, true, true},
	{"tx_pfc_pause_transitions", "XOFF to XON transitions sent on a priority", UnitEvents, Counter, true, true},
	{"rx_pfc_resume_frames", "PFC XON frames received on a priority: the peer lifted a pause (follows a pause frame)", UnitFrames, Counter, false, true},
	{"tx_pfc_resume_frames", "PFC XON frames sent on a priority: we lifted a pause (follows a pause frame)", UnitFrames, Counter, false, true},
	{"rx_pfc_frames", "PFC frames received, any priority", UnitFrames, Counter, true, false},
	{"tx_pfc_frames", "PFC frames sent, any priority", UnitFrames, Counter, true, false},
	{"rx_global_pause_frames", "802.3x (global) pause frames received", UnitFrames, Counter, true, false},
	{"tx_global_pause_frames", "802.3x (global) pause frames sent", UnitFrames, Counter, true, false},
	{"rx_global_pause_duration", "time the peer kept the port paused (802.3x)", UnitMicros, Counter, true, false},
	{"tx_global_pause_duration", "time we kept the peer paused (802.3x)", UnitMicros, Counter, true, false},
	{"rx_global_pause_transitions", "802.3x XOFF to XON transitions received", UnitEvents, Counter, true, false},
	{"rx_global_resume_frames", "802.3x XON frames received: the peer lifted a pause", UnitFrames, Counter, false, false},
	{"tx_global_resume_frames", "802.3x XON frames sent: we lifted a pause", UnitFrames, Counter, false, false},
	{"phy_rx_pause_frames", "all pause frames received (global and PFC)", UnitFrames, Counter, true, false},
	{"phy_tx_pause_frames", "all pause frames sent (global and PFC)", UnitFrames, Counter, true, false},
	{"pause_storm_warning_events", "the device stalled past the pause-storm warning watermark", UnitEvents, Counter, true, false},
	{"pause_storm_error_events", "pause-storm prevention fired: pause sending disabled, drops possible", UnitEvents, Counter, true, false},
	{"pause_storm_events", "the NIC detected continuous pause (a pause storm) on the port", UnitEvents, Counter, true, false},
	{"roce_pause_storm_events", "the NIC detected continuous pause (a pause storm) on the RoCE priority", UnitEvents, Counter, true, false},

	// Drops and buffers.
	{"out_of_buffer", "RDMA packets dropped because the receive queue had no posted WQE", UnitPackets, Counter, true, false},
	{"netdev_rx_out_of_buffer", "Ethernet (non-RDMA) packets dropped: the netdev receive queue had no buffer", UnitPackets, Counter, true, false},
	{"rx_discards", "RDMA packets the device discarded on receive", UnitPackets, Counter, true, false},
	{"tx_discards", "packets discarded on transmit (port down or congestion)", UnitPackets, Counter, true, false},
	{"phy_rx_discards", "packets the port dropped for lack of receive buffer (lossless priority: PFC not working)", UnitPackets, Counter, true, false},
	{"phy_tx_discards", "packets the port discarded on transmit", UnitPackets, Counter, true, false},
	{"rx_prio_discards", "packets dropped on a priority for lack of receive buffer", UnitPackets, Counter, true, true},
	{"rx_prio_buffer_discards", "packets dropped on a traffic class with no buffer", UnitPackets, Counter, true, true},
	{"rx_prio_congestion_discards", "packets dropped by WRED on a traffic class", UnitPackets, Counter, true, true},
	{"rx_buffer_threshold_events", "times the port receive buffer passed its fill threshold (early congestion)", UnitEvents, Counter, true, false},
	{"pci_outbound_buffer_overflow", "packets dropped because PCIe could not absorb them: the host is too slow", UnitPackets, Counter, true, false},
	{"pci_outbound_stalled_reads_pct", "share of the last second the PCIe read path stalled", UnitPercent, Gauge, true, false},
	{"pci_outbound_stalled_writes_pct", "share of the last second the PCIe write path stalled", UnitPercent, Gauge, true, false},

	// Link and PHY.
	{"link_downed", "the link failed to recover and went down", UnitEvents, Counter, true, false},
	{"link_error_recovery", "the link retrained successfully after errors", UnitEvents, Counter, true, false},
	{"symbol_error", "minor PHY errors on the lanes", UnitEvents, Counter, true, false},
	{"rx_errors", "received packets with errors (CRC, length, ...)", UnitPackets, Counter, true, false},
	{"rx_remote_physical_errors", "received packets marked bad by an upstream hop", UnitPackets, Counter, true, false},
	{"rx_switch_relay_errors", "packets a switch port could not forward", UnitPackets, Counter, true, false},
	{"tx_constraint_errors", "packets not sent because of a partition or filter constraint", UnitPackets, Counter, true, false},
	{"rx_constraint_errors", "packets dropped because of a partition or filter constraint", UnitPackets, Counter, true, false},
	{"local_link_integrity_errors", "local physical errors beyond the threshold", UnitEvents, Counter, true, false},
	{"excessive_buffer_overrun_errors", "consecutive receive buffer overruns", UnitEvents, Counter, true, false},
	{"vl15_dropped", "subnet management packets (VL15) dropped", UnitPackets, Counter, true, false},
	{"tx_wait", "time data was queued with no credit to send it (InfiniBand back-pressure)", UnitTicks, Counter, true, false},
	{"phy_link_down_events", "physical link went down", UnitEvents, Counter, true, false},
	{"phy_rx_crc_errors", "frames received with a bad FCS: cable, optic or port", UnitFrames, Counter, true, false},
	{"phy_symbol_errors", "PHY coding errors", UnitEvents, Counter, true, false},
	{"phy_pcs_symbol_errors", "symbol errors FEC did not correct: real loss", UnitEvents, Counter, true, false},
	{"phy_fec_corrected_bits", "bits FEC corrected: a high rate means a marginal link", UnitBits, Counter, true, false},
	{"icrc_errors", "RoCE packets received with a bad ICRC: corruption or a rewriting middlebox", UnitPackets, Counter, true, false},

	// Transport (reliable connection).
	{"out_of_sequence", "responder received a packet with an out-of-order PSN: loss on the path", UnitPackets, Counter, true, false},
	{"duplicate_request", "responder received a request it had already executed: the requester retransmitted", UnitPackets, Counter, true, false},
	{"packet_seq_err", "requester received a NAK sequence error: loss toward the responder", UnitEvents, Counter, true, false},
	{"implied_nak_seq_err", "requester inferred a lost READ/ATOMIC response from a later ACK", UnitEvents, Counter, true, false},
	{"local_ack_timeout_err", "requester's ACK timer expired and it retransmitted", UnitEvents, Counter, true, false},
	{"rnr_nak_retry_err", "requester received an RNR NAK: the peer had no receive posted", UnitEvents, Counter, true, false},
	{"rnr_nak_sent", "responder sent an RNR NAK: no receive posted here", UnitEvents, Counter, true, false},
	{"retry_exceeded_err", "requester gave up after its transport retry count: the QP went to error", UnitEvents, Counter, true, false},
	{"rnr_retry_exceeded_err", "requester gave up after its RNR retry count: the QP went to error", UnitEvents, Counter, true, false},
	{"retransmit_rounds", "times the requester went back and retransmitted, for any reason", UnitEvents, Counter, true, false},
	{"retransmitted_packets", "packets retransmitted", UnitPackets, Counter, true, false},
	{"retransmitted_bytes", "bytes retransmitted", UnitBytes, Counter, true, false},
	{"adaptive_retransmissions", "adaptive retransmissions (mlx5 RoCE acceleration)", UnitEvents, Counter, true, false},
	{"adaptive_retransmission_timeouts", "adaptive retransmission timeouts (mlx5 RoCE acceleration)", UnitEvents, Counter, true, false},
	{"slow_restarts", "times slow restart was used after loss", UnitEvents, Counter, true, false},
	{"req_cqe_error", "requester completions with error", UnitEvents, Counter, true, false},
	{"resp_cqe_error", "responder completions with error", UnitEvents, Counter, true, false},
	{"req_cqe_flush_error", "requester work requests flushed with error (QP in error; normal at teardown)", UnitEvents, Counter, true, false},
	{"resp_cqe_flush_error", "responder work requests flushed with error (QP in error; normal at teardown)", UnitEvents, Counter, true, false},
	{"req_remote_access_errors", "requester received a remote access error NAK: bad rkey or MR rights", UnitEvents, Counter, true, false},
	{"resp_remote_access_errors", "responder detected a remote access error", UnitEvents, Counter, true, false},
	{"req_remote_invalid_request", "requester received a remote invalid request NAK", UnitEvents, Counter, true, false},
	{"resp_local_length_error", "responder local length error: receive buffer too small", UnitEvents, Counter, true, false},
}
