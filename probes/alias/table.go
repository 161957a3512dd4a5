package alias

import (
	"slices"
	"sync"
)

// Table names. A table is one namespace of native counter names.
const (
	TableIBTA        = "ibta"            // ports/N/counters/ (IBTA PMA), any driver
	TableMLX5        = "mlx5"            // mlx5_ib hw_counters
	TableMLX5Ethtool = "mlx5_ethtool"    // mlx5_core ethtool -S
	TableBNXTEthtool = "bnxt_en_ethtool" // bnxt_en ethtool -S
	TableICEEthtool  = "ice_ethtool"     // ice ethtool -S
	TableRXE         = "rxe"             // rdma_rxe hw_counters
	TableBNXTRE      = "bnxt_re"         // bnxt_re hw_counters
	TableIRDMA       = "irdma"           // irdma hw_counters
	TableERDMA       = "erdma"           // erdma hw_counters
	TableEFA         = "efa"             // efa hw_counters
)

// Entry maps every spelling of one native counter in a table to a
// canonical name.
type Entry struct {
	Table     string   `json:"table"`
	Natives   []string `json:"natives"`         // spellings across kernel versions and modes; <p> is a priority 0..7
	Canonical string   `json:"canonical"`       // a name in the canonical list (without the _prio suffix)
	Scale     uint64   `json:"scale,omitempty"` // canonical value = native × Scale; 0 means 1
	Cite      string   `json:"cite"`            // where the native name comes from
}

// Sources cited by the entries.
const (
	citeIBTA     = "torvalds/linux drivers/infiniband/core/sysfs.c (pma_attrs, pma_attrs_ext, pma_attrs_noietf)"
	citeMLX5Q    = "torvalds/linux drivers/infiniband/hw/mlx5/counters.c (basic_q_cnts, out_of_seq_q_cnts, retrans_q_cnts and their vport_ twins)"
	citeMLX5Err  = "torvalds/linux drivers/infiniband/hw/mlx5/counters.c (extended_err_cnts, vport_extended_err_cnts)"
	citeMLX5Cong = "torvalds/linux drivers/infiniband/hw/mlx5/counters.c (cong_cnts)"
	citeMLX5Accl = "torvalds/linux drivers/infiniband/hw/mlx5/counters.c (roce_accl_cnts, vport_roce_accl_cnts)"
	citeMLX5PPC  = "torvalds/linux drivers/infiniband/hw/mlx5/counters.c (ext_ppcnt_cnts)"
	citeMLX5Prio = "torvalds/linux drivers/net/ethernet/mellanox/mlx5/core/en_stats.c (pport_per_prio_traffic_stats_desc, pport_per_prio_pfc_stats_desc)"
	citeMLX5TC   = "torvalds/linux drivers/net/ethernet/mellanox/mlx5/core/en_stats.c (pport_per_tc_prio_stats_desc, pport_per_tc_congest_prio_stats_desc)"
	citeMLX5Phy  = "torvalds/linux drivers/net/ethernet/mellanox/mlx5/core/en_stats.c (pport 802.3, phy statistical, eth_ext groups); Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst"
	citeMLX5Pci  = "torvalds/linux drivers/net/ethernet/mellanox/mlx5/core/en_stats.c (pcie_perf_stats_desc); mlx5 counters.rst"
	citeMLX5Q2   = "torvalds/linux drivers/net/ethernet/mellanox/mlx5/core/en_stats.c (q_stats_desc: rx_out_of_buffer)"
	citeMLX5Old  = "torvalds/linux drivers/net/ethernet/mellanox/mlx5/core/en.h, later en_stats.h, of older kernels such as Ubuntu 16.04 4.4 (pport_802_3_stats_desc, pport_2863_stats_desc before the _phy rename); seen in testdata/real ethtool_S_mlx5_cx4_old_driver_names_ethq.txt"
	citeRXE      = "torvalds/linux drivers/infiniband/sw/rxe/rxe_hw_counters.c (rxe_counter_descs); seen in testdata/sysfs/rxe (kernel 6.1)"
	citeBNXT     = "torvalds/linux drivers/infiniband/hw/bnxt_re/hw_counters.c (bnxt_re_stat_descs)"
	citeBNXTCC   = "torvalds/linux drivers/infiniband/hw/bnxt_re/hw_counters.c (bnxt_re_stat_descs: BNXT_RE_TX_CNP, BNXT_RE_RX_CNP, BNXT_RE_RX_ECN; newer kernels)"
	citeIRDMA    = "torvalds/linux drivers/infiniband/hw/irdma/verbs.c (irdma_hw_stat_names; iw-prefixed names before the GEN3 statistics rework, unprefixed after)"
	citeIRDMA3   = "torvalds/linux drivers/infiniband/hw/irdma/verbs.c (irdma_hw_stat_names, gen3 entries)"
	citeERDMA    = "torvalds/linux drivers/infiniband/hw/erdma/erdma_verbs.c (erdma_descs)"
	citeEFA      = "torvalds/linux drivers/infiniband/hw/efa/efa_verbs.c (EFA_DEFINE_PORT_STATS)"
)

func e(table, canonical, cite string, natives ...string) Entry {
	return Entry{Table: table, Natives: natives, Canonical: canonical, Cite: cite}
}

func scaled(table, canonical, cite string, scale uint64, natives ...string) Entry {
	return Entry{Table: table, Natives: natives, Canonical: canonical, Scale: scale, Cite: cite}
}

// entries returns the whole table: the hw_counters, PMA and mlx5 ethtool
// tables, then the other vendors' ethtool tables (table_ethtool.go).
// Joined on first use, like index.
var entries = sync.OnceValue(func() []Entry { return slices.Concat(coreEntries, ethtoolEntries) })

var coreEntries = []Entry{
	// IBTA PortCounters / PortCountersExtended (any driver with a PMA).
	e(TableIBTA, "symbol_error", citeIBTA, "symbol_error"),
	e(TableIBTA, "link_error_recovery", citeIBTA, "link_error_recovery"),
	e(TableIBTA, "link_downed", citeIBTA, "link_downed"),
	e(TableIBTA, "rx_errors", citeIBTA, "port_rcv_errors"),
	e(TableIBTA, "rx_remote_physical_errors", citeIBTA, "port_rcv_remote_physical_errors"),
	e(TableIBTA, "rx_switch_relay_errors", citeIBTA, "port_rcv_switch_relay_errors"),
	e(TableIBTA, "tx_discards", citeIBTA, "port_xmit_discards"),
	e(TableIBTA, "tx_constraint_errors", citeIBTA, "port_xmit_constraint_errors"),
	e(TableIBTA, "rx_constraint_errors", citeIBTA, "port_rcv_constraint_errors"),
	e(TableIBTA, "local_link_integrity_errors", citeIBTA, "local_link_integrity_errors"),
	e(TableIBTA, "excessive_buffer_overrun_errors", citeIBTA, "excessive_buffer_overrun_errors"),
	e(TableIBTA, "vl15_dropped", citeIBTA, "VL15_dropped"),
	scaled(TableIBTA, "tx_bytes", citeIBTA, 4, "port_xmit_data"), // 4-byte words
	scaled(TableIBTA, "rx_bytes", citeIBTA, 4, "port_rcv_data"),  // 4-byte words
	e(TableIBTA, "tx_packets", citeIBTA, "port_xmit_packets"),
	e(TableIBTA, "rx_packets", citeIBTA, "port_rcv_packets"),
	e(TableIBTA, "tx_wait", citeIBTA, "port_xmit_wait"),
	e(TableIBTA, "rx_unicast_packets", citeIBTA, "unicast_rcv_packets"),
	e(TableIBTA, "tx_unicast_packets", citeIBTA, "unicast_xmit_packets"),
	e(TableIBTA, "rx_multicast_packets", citeIBTA, "multicast_rcv_packets"),
	e(TableIBTA, "tx_multicast_packets", citeIBTA, "multicast_xmit_packets"),

	// mlx5 hw_counters.
	e(TableMLX5, "rx_write_requests", citeMLX5Q, "rx_write_requests", "vport_rx_write_requests"),
	e(TableMLX5, "rx_read_requests", citeMLX5Q, "rx_read_requests", "vport_rx_read_requests"),
	e(TableMLX5, "rx_atomic_requests", citeMLX5Q, "rx_atomic_requests", "vport_rx_atomic_requests"),
	e(TableMLX5, "out_of_buffer", citeMLX5Q, "out_of_buffer", "vport_out_of_buffer"),
	e(TableMLX5, "out_of_sequence", citeMLX5Q, "out_of_sequence", "vport_out_of_sequence"),
	e(TableMLX5, "duplicate_request", citeMLX5Q, "duplicate_request", "vport_duplicate_request"),
	e(TableMLX5, "rnr_nak_retry_err", citeMLX5Q, "rnr_nak_retry_err", "vport_rnr_nak_retry_err"),
	e(TableMLX5, "packet_seq_err", citeMLX5Q, "packet_seq_err", "vport_packet_seq_err"),
	e(TableMLX5, "implied_nak_seq_err", citeMLX5Q, "implied_nak_seq_err", "vport_implied_nak_seq_err"),
	e(TableMLX5, "local_ack_timeout_err", citeMLX5Q, "local_ack_timeout_err", "vport_local_ack_timeout_err"),
	e(TableMLX5, "resp_local_length_error", citeMLX5Err, "resp_local_length_error", "vport_resp_local_length_error"),
	e(TableMLX5, "resp_cqe_error", citeMLX5Err, "resp_cqe_error", "vport_resp_cqe_error"),
	e(TableMLX5, "req_cqe_error", citeMLX5Err, "req_cqe_error", "vport_req_cqe_error"),
	e(TableMLX5, "req_remote_invalid_request", citeMLX5Err, "req_remote_invalid_request", "vport_req_remote_invalid_request"),
	e(TableMLX5, "req_remote_access_errors", citeMLX5Err, "req_remote_access_errors", "vport_req_remote_access_errors"),
	e(TableMLX5, "resp_remote_access_errors", citeMLX5Err, "resp_remote_access_errors", "vport_resp_remote_access_errors"),
	e(TableMLX5, "resp_cqe_flush_error", citeMLX5Err, "resp_cqe_flush_error", "vport_resp_cqe_flush_error"),
	e(TableMLX5, "req_cqe_flush_error", citeMLX5Err, "req_cqe_flush_error", "vport_req_cqe_flush_error"),
	e(TableMLX5, "retry_exceeded_err", citeMLX5Err, "req_transport_retries_exceeded", "vport_req_transport_retries_exceeded"),
	e(TableMLX5, "rnr_retry_exceeded_err", citeMLX5Err, "req_rnr_retries_exceeded", "vport_req_rnr_retries_exceeded"),
	e(TableMLX5, "adaptive_retransmissions", citeMLX5Accl, "roce_adp_retrans", "vport_roce_adp_retrans"),
	e(TableMLX5, "adaptive_retransmission_timeouts", citeMLX5Accl, "roce_adp_retrans_to", "vport_roce_adp_retrans_to"),
	e(TableMLX5, "slow_restarts", citeMLX5Accl, "roce_slow_restart", "vport_roce_slow_restart"),
	e(TableMLX5, "cnp_ignored", citeMLX5Cong, "rp_cnp_ignored"),
	e(TableMLX5, "cnp_handled", citeMLX5Cong, "rp_cnp_handled"),
	e(TableMLX5, "ecn_marked_roce_packets", citeMLX5Cong, "np_ecn_marked_roce_packets"),
	e(TableMLX5, "cnp_sent", citeMLX5Cong, "np_cnp_sent"),
	e(TableMLX5, "icrc_errors", citeMLX5PPC, "rx_icrc_encapsulated"),

	// mlx5 ethtool -S: PFC, discards, PHY errors.
	e(TableMLX5Ethtool, "rx_prio_bytes", citeMLX5Prio, "rx_prio<p>_bytes"),
	e(TableMLX5Ethtool, "rx_prio_packets", citeMLX5Prio, "rx_prio<p>_packets"),
	e(TableMLX5Ethtool, "rx_prio_discards", citeMLX5Prio, "rx_prio<p>_discards"),
	e(TableMLX5Ethtool, "tx_prio_bytes", citeMLX5Prio, "tx_prio<p>_bytes"),
	e(TableMLX5Ethtool, "tx_prio_packets", citeMLX5Prio, "tx_prio<p>_packets"),
	e(TableMLX5Ethtool, "rx_pfc_pause_frames", citeMLX5Prio, "rx_prio<p>_pause"),
	e(TableMLX5Ethtool, "rx_pfc_pause_duration", citeMLX5Prio, "rx_prio<p>_pause_duration"),
	e(TableMLX5Ethtool, "tx_pfc_pause_frames", citeMLX5Prio, "tx_prio<p>_pause"),
	e(TableMLX5Ethtool, "tx_pfc_pause_duration", citeMLX5Prio, "tx_prio<p>_pause_duration"),
	e(TableMLX5Ethtool, "rx_pfc_pause_transitions", citeMLX5Prio, "rx_prio<p>_pause_transition"),
	e(TableMLX5Ethtool, "rx_global_pause_frames", citeMLX5Prio, "rx_global_pause"),
	e(TableMLX5Ethtool, "rx_global_pause_duration", citeMLX5Prio, "rx_global_pause_duration"),
	e(TableMLX5Ethtool, "tx_global_pause_frames", citeMLX5Prio, "tx_global_pause"),
	e(TableMLX5Ethtool, "tx_global_pause_duration", citeMLX5Prio, "tx_global_pause_duration"),
	e(TableMLX5Ethtool, "rx_global_pause_transitions", citeMLX5Prio, "rx_global_pause_transition"),
	e(TableMLX5Ethtool, "pause_storm_warning_events", citeMLX5Prio, "tx_pause_storm_warning_events"),
	e(TableMLX5Ethtool, "pause_storm_error_events", citeMLX5Prio, "tx_pause_storm_error_events"),
	e(TableMLX5Ethtool, "rx_prio_buffer_discards", citeMLX5TC, "rx_prio<p>_buf_discard"),
	e(TableMLX5Ethtool, "rx_prio_congestion_discards", citeMLX5TC, "rx_prio<p>_cong_discard"),
	e(TableMLX5Ethtool, "rx_prio_ecn_marked", citeMLX5TC, "rx_prio<p>_marked"),
	// Older kernels spell the same PPCNT counters without _phy
	// (frames_rx, in_discards, pause_ctrl_rx): one entry per counter.
	e(TableMLX5Ethtool, "phy_rx_packets", citeMLX5Phy+"; "+citeMLX5Old, "rx_packets_phy", "frames_rx"),
	e(TableMLX5Ethtool, "phy_tx_packets", citeMLX5Phy+"; "+citeMLX5Old, "tx_packets_phy", "frames_tx"),
	e(TableMLX5Ethtool, "phy_rx_bytes", citeMLX5Phy+"; "+citeMLX5Old, "rx_bytes_phy", "octets_received"),
	e(TableMLX5Ethtool, "phy_tx_bytes", citeMLX5Phy+"; "+citeMLX5Old, "tx_bytes_phy", "octets_tx"),
	e(TableMLX5Ethtool, "phy_rx_discards", citeMLX5Phy+"; "+citeMLX5Old, "rx_discards_phy", "in_discards"),
	e(TableMLX5Ethtool, "phy_tx_discards", citeMLX5Phy+"; "+citeMLX5Old, "tx_discards_phy", "out_discards"),
	e(TableMLX5Ethtool, "rx_buffer_threshold_events", citeMLX5Phy, "rx_buffer_passed_thres_phy"),
	e(TableMLX5Ethtool, "phy_rx_crc_errors", citeMLX5Phy+"; "+citeMLX5Old, "rx_crc_errors_phy", "check_seq_err"),
	e(TableMLX5Ethtool, "phy_symbol_errors", citeMLX5Phy+"; "+citeMLX5Old, "rx_symbol_err_phy", "symbol_err"),
	e(TableMLX5Ethtool, "phy_pcs_symbol_errors", citeMLX5Phy, "rx_pcs_symbol_err_phy"),
	e(TableMLX5Ethtool, "phy_fec_corrected_bits", citeMLX5Phy, "rx_corrected_bits_phy"),
	e(TableMLX5Ethtool, "phy_link_down_events", citeMLX5Phy, "link_down_events_phy"),
	e(TableMLX5Ethtool, "phy_rx_pause_frames", citeMLX5Phy+"; "+citeMLX5Old, "rx_pause_ctrl_phy", "pause_ctrl_rx"),
	e(TableMLX5Ethtool, "phy_tx_pause_frames", citeMLX5Phy+"; "+citeMLX5Old, "tx_pause_ctrl_phy", "pause_ctrl_tx"),
	e(TableMLX5Ethtool, "pci_outbound_buffer_overflow", citeMLX5Pci, "outbound_pci_buffer_overflow"),
	e(TableMLX5Ethtool, "pci_outbound_stalled_reads_pct", citeMLX5Pci, "outbound_pci_stalled_rd"),
	e(TableMLX5Ethtool, "pci_outbound_stalled_writes_pct", citeMLX5Pci, "outbound_pci_stalled_wr"),
	e(TableMLX5Ethtool, "netdev_rx_out_of_buffer", citeMLX5Q2, "rx_out_of_buffer"),

	// rxe (Soft-RoCE).
	e(TableRXE, "tx_packets", citeRXE, "sent_pkts"),
	e(TableRXE, "rx_packets", citeRXE, "rcvd_pkts"),
	e(TableRXE, "duplicate_request", citeRXE, "duplicate_request"),
	e(TableRXE, "out_of_sequence", citeRXE, "out_of_seq_request"),
	e(TableRXE, "rnr_nak_retry_err", citeRXE, "rcvd_rnr_err"),
	e(TableRXE, "rnr_nak_sent", citeRXE, "send_rnr_err"),
	e(TableRXE, "packet_seq_err", citeRXE, "rcvd_seq_err"),
	e(TableRXE, "retry_exceeded_err", citeRXE, "retry_exceeded_err"),
	e(TableRXE, "rnr_retry_exceeded_err", citeRXE, "retry_rnr_exceeded_err"),
	e(TableRXE, "retransmit_rounds", citeRXE, "completer_retry_err"),
	e(TableRXE, "link_downed", citeRXE, "link_downed"),

	// bnxt_re (Broadcom).
	e(TableBNXTRE, "rx_packets", citeBNXT, "rx_pkts"),
	e(TableBNXTRE, "rx_bytes", citeBNXT, "rx_bytes"),
	e(TableBNXTRE, "tx_packets", citeBNXT, "tx_pkts"),
	e(TableBNXTRE, "tx_bytes", citeBNXT, "tx_bytes"),
	e(TableBNXTRE, "rx_errors", citeBNXT, "rx_roce_errors"),
	e(TableBNXTRE, "rx_discards", citeBNXT, "rx_roce_discards"),
	e(TableBNXTRE, "local_ack_timeout_err", citeBNXT, "to_retransmits"),
	e(TableBNXTRE, "packet_seq_err", citeBNXT, "seq_err_naks_rcvd"),
	e(TableBNXTRE, "retry_exceeded_err", citeBNXT, "max_retry_exceeded"),
	e(TableBNXTRE, "rnr_nak_retry_err", citeBNXT, "rnr_naks_rcvd"),
	e(TableBNXTRE, "req_remote_invalid_request", citeBNXT, "remote_invalid_req_err"),
	e(TableBNXTRE, "req_remote_access_errors", citeBNXT, "remote_access_err"),
	e(TableBNXTRE, "duplicate_request", citeBNXT, "dup_req"),
	e(TableBNXTRE, "resp_local_length_error", citeBNXT, "res_length_mismatch"),
	e(TableBNXTRE, "out_of_sequence", citeBNXT, "oos_drop_count"),
	e(TableBNXTRE, "tx_atomic_requests", citeBNXT, "tx_atomic_req"),
	e(TableBNXTRE, "tx_read_requests", citeBNXT, "tx_read_req"),
	e(TableBNXTRE, "tx_write_requests", citeBNXT, "tx_write_req"),
	e(TableBNXTRE, "tx_send_requests", citeBNXT, "tx_send_req"),
	e(TableBNXTRE, "rx_atomic_requests", citeBNXT, "rx_atomic_req"),
	e(TableBNXTRE, "rx_read_requests", citeBNXT, "rx_read_req"),
	e(TableBNXTRE, "rx_write_requests", citeBNXT, "rx_write_req"),
	e(TableBNXTRE, "rx_send_requests", citeBNXT, "rx_send_req"),
	e(TableBNXTRE, "out_of_buffer", citeBNXT, "rx_out_of_buffer"),
	e(TableBNXTRE, "cnp_sent", citeBNXTCC, "tx_cnp_pkts"),
	e(TableBNXTRE, "cnp_received", citeBNXTCC, "rx_cnp_pkts"),
	e(TableBNXTRE, "ecn_marked_roce_packets", citeBNXTCC, "rx_ecn_marked_pkts"),

	// irdma (Intel E810 / X722).
	e(TableIRDMA, "rx_read_requests", citeIRDMA, "iwInRdmaReads", "InRdmaReads"),
	e(TableIRDMA, "rx_send_requests", citeIRDMA, "iwInRdmaSends", "InRdmaSends"),
	e(TableIRDMA, "rx_write_requests", citeIRDMA, "iwInRdmaWrites", "InRdmaWrites"),
	e(TableIRDMA, "tx_read_requests", citeIRDMA, "iwOutRdmaReads", "OutRdmaReads"),
	e(TableIRDMA, "tx_send_requests", citeIRDMA, "iwOutRdmaSends", "OutRdmaSends"),
	e(TableIRDMA, "tx_write_requests", citeIRDMA, "iwOutRdmaWrites", "OutRdmaWrites"),
	e(TableIRDMA, "cnp_handled", citeIRDMA, "cnpHandled"),
	e(TableIRDMA, "cnp_ignored", citeIRDMA, "cnpIgnored"),
	e(TableIRDMA, "cnp_sent", citeIRDMA, "cnpSent"),
	e(TableIRDMA, "ecn_marked_roce_packets", citeIRDMA, "RxECNMrkd"),
	e(TableIRDMA, "rnr_nak_sent", citeIRDMA3, "RNR sent"),
	e(TableIRDMA, "rnr_nak_retry_err", citeIRDMA3, "RNR received"),
	e(TableIRDMA, "packet_seq_err", citeIRDMA3, "Nak Sequence Error"),
	e(TableIRDMA, "implied_nak_seq_err", citeIRDMA3, "Nak Sequence Error Implied"),
	e(TableIRDMA, "local_ack_timeout_err", citeIRDMA3, "RTO"),
	e(TableIRDMA, "out_of_sequence", citeIRDMA3, "Rcvd Out of order packets"),
	e(TableIRDMA, "icrc_errors", citeIRDMA3, "CRC errors"),

	// erdma (Alibaba Elastic RDMA).
	e(TableERDMA, "tx_packets", citeERDMA, "tx_packets_cnt"),
	e(TableERDMA, "tx_bytes", citeERDMA, "tx_bytes_cnt"),
	e(TableERDMA, "rx_packets", citeERDMA, "rx_packets_cnt"),
	e(TableERDMA, "rx_bytes", citeERDMA, "rx_bytes_cnt"),

	// efa (AWS Elastic Fabric Adapter).
	e(TableEFA, "tx_bytes", citeEFA, "tx_bytes"),
	e(TableEFA, "tx_packets", citeEFA, "tx_pkts"),
	e(TableEFA, "rx_bytes", citeEFA, "rx_bytes"),
	e(TableEFA, "rx_packets", citeEFA, "rx_pkts"),
	e(TableEFA, "rx_discards", citeEFA, "rx_drops"),
	e(TableEFA, "retransmitted_bytes", citeEFA, "retrans_bytes"),
	e(TableEFA, "retransmitted_packets", citeEFA, "retrans_pkts"),
	e(TableEFA, "local_ack_timeout_err", citeEFA, "retrans_timeout_events"),
}
