package alias

// Sources of the bnxt_en and ice ethtool names.
const (
	citeBNXTPort = "torvalds/linux drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c (bnxt_port_stats_arr: port MAC statistics)"
	citeBNXTExt  = "torvalds/linux drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c (bnxt_port_stats_ext_arr, bnxt_tx_port_stats_ext_arr)"
	citeBNXTPFC  = "torvalds/linux drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c (BNXT_RX_STATS_EXT_PFC_ENTRIES, BNXT_TX_STATS_EXT_PFC_ENTRIES: pfc_pri<n>_{rx,tx}_{duration_us,transitions}, durations in microseconds)"
	citeBNXTPri  = "torvalds/linux drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c (bnxt_rx_bytes_pri_arr, bnxt_rx_pkts_pri_arr, bnxt_tx_bytes_pri_arr, bnxt_tx_pkts_pri_arr: the CoS counter of each priority, via pri2cos)"
	citeICEPFC   = "torvalds/linux drivers/net/ethernet/intel/ice/ice_ethtool.c (ice_get_strings: {tx,rx}_priority_%u_{xon,xoff}.nic; port.{tx,rx}-priority-%u-{xon,xoff} before the 2019 rename)"
	citeICEPort  = "torvalds/linux drivers/net/ethernet/intel/ice/ice_ethtool.c (ice_gstrings_pf_stats: ICE_PF_STAT port counters, \".nic\" suffix)"
)

// ethtoolEntries are the bnxt_en and ice ethtool -S names that matter to
// RoCE: PFC per priority, 802.3x pause, port discards, PHY errors. PFC
// "pause" counts XOFF frames (a pause request), "resume" XON frames.
//
// bnxt_en's per-ring counters ("[3]: rx_discards") and its per-CoS queue
// counters (rx_discard_packets_cos<n>: a CoS queue is not a priority) are
// deliberately left unmapped, as are ice's per-queue counters.
var ethtoolEntries = []Entry{
	// bnxt_en (Broadcom NetXtreme-C/E).
	e(TableBNXTEthtool, "rx_pfc_pause_frames", citeBNXTPort, "rx_pfc_ena_frames_pri<p>"),
	e(TableBNXTEthtool, "tx_pfc_pause_frames", citeBNXTPort, "tx_pfc_ena_frames_pri<p>"),
	e(TableBNXTEthtool, "rx_pfc_pause_duration", citeBNXTPFC, "pfc_pri<p>_rx_duration_us"),
	e(TableBNXTEthtool, "tx_pfc_pause_duration", citeBNXTPFC, "pfc_pri<p>_tx_duration_us"),
	e(TableBNXTEthtool, "rx_pfc_pause_transitions", citeBNXTPFC, "pfc_pri<p>_rx_transitions"),
	e(TableBNXTEthtool, "tx_pfc_pause_transitions", citeBNXTPFC, "pfc_pri<p>_tx_transitions"),
	e(TableBNXTEthtool, "rx_pfc_frames", citeBNXTPort, "rx_pfc_frames"),
	e(TableBNXTEthtool, "tx_pfc_frames", citeBNXTPort, "tx_pfc_frames"),
	e(TableBNXTEthtool, "rx_global_pause_frames", citeBNXTPort, "rx_pause_frames"),
	e(TableBNXTEthtool, "tx_global_pause_frames", citeBNXTPort, "tx_pause_frames"),
	e(TableBNXTEthtool, "pause_storm_events", citeBNXTExt, "continuous_pause_events"),
	e(TableBNXTEthtool, "roce_pause_storm_events", citeBNXTExt, "continuous_roce_pause_events"),
	e(TableBNXTEthtool, "rx_prio_bytes", citeBNXTPri, "rx_bytes_pri<p>"),
	e(TableBNXTEthtool, "rx_prio_packets", citeBNXTPri, "rx_packets_pri<p>"),
	e(TableBNXTEthtool, "tx_prio_bytes", citeBNXTPri, "tx_bytes_pri<p>"),
	e(TableBNXTEthtool, "tx_prio_packets", citeBNXTPri, "tx_packets_pri<p>"),
	e(TableBNXTEthtool, "phy_rx_packets", citeBNXTPort, "rx_total_frames"),
	e(TableBNXTEthtool, "phy_tx_packets", citeBNXTPort, "tx_total_frames"),
	e(TableBNXTEthtool, "phy_rx_bytes", citeBNXTPort, "rx_bytes"), // port MAC bytes, not the netdev's
	e(TableBNXTEthtool, "phy_tx_bytes", citeBNXTPort, "tx_bytes"),
	e(TableBNXTEthtool, "phy_rx_discards", citeBNXTPort, "rx_stat_discard"),
	e(TableBNXTEthtool, "phy_tx_discards", citeBNXTPort, "tx_stat_discard"),
	e(TableBNXTEthtool, "rx_buffer_threshold_events", citeBNXTExt, "rx_buffer_passed_threshold"),
	e(TableBNXTEthtool, "phy_rx_crc_errors", citeBNXTPort, "rx_fcs_err_frames"),
	e(TableBNXTEthtool, "phy_pcs_symbol_errors", citeBNXTExt, "rx_pcs_symbol_err"),
	e(TableBNXTEthtool, "phy_fec_corrected_bits", citeBNXTExt, "rx_corrected_bits"),
	e(TableBNXTEthtool, "phy_link_down_events", citeBNXTExt, "link_down_events"),

	// ice (Intel E800 series).
	e(TableICEEthtool, "rx_pfc_pause_frames", citeICEPFC, "rx_priority_<p>_xoff.nic", "port.rx-priority-<p>-xoff"),
	e(TableICEEthtool, "tx_pfc_pause_frames", citeICEPFC, "tx_priority_<p>_xoff.nic", "port.tx-priority-<p>-xoff"),
	e(TableICEEthtool, "rx_pfc_resume_frames", citeICEPFC, "rx_priority_<p>_xon.nic", "port.rx-priority-<p>-xon"),
	e(TableICEEthtool, "tx_pfc_resume_frames", citeICEPFC, "tx_priority_<p>_xon.nic", "port.tx-priority-<p>-xon"),
	e(TableICEEthtool, "rx_global_pause_frames", citeICEPort, "link_xoff_rx.nic"),
	e(TableICEEthtool, "tx_global_pause_frames", citeICEPort, "link_xoff_tx.nic"),
	e(TableICEEthtool, "rx_global_resume_frames", citeICEPort, "link_xon_rx.nic"),
	e(TableICEEthtool, "tx_global_resume_frames", citeICEPort, "link_xon_tx.nic"),
	e(TableICEEthtool, "phy_rx_bytes", citeICEPort, "rx_bytes.nic"),
	e(TableICEEthtool, "phy_tx_bytes", citeICEPort, "tx_bytes.nic"),
	e(TableICEEthtool, "phy_rx_discards", citeICEPort, "rx_dropped.nic"),
	e(TableICEEthtool, "phy_tx_discards", citeICEPort, "tx_dropped_link_down.nic"),
	e(TableICEEthtool, "phy_rx_crc_errors", citeICEPort, "rx_crc_errors.nic"),
}
