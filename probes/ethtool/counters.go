package ethtool

// Counters is the typed view of one interface's ethtool statistics. Every
// field is a pointer: nil when the driver did not list the counter, which
// is not the same as zero. Durations are in microseconds, as mlx5 counts
// them (suffix _us in JSON). Names follow mlx5 (en_stats.c, counters.rst);
// other drivers' counters are only in Raw until a vendor alias maps them.
type Counters struct {
	// Prio is per-priority traffic and PFC, indexed by priority 0..7.
	Prio       [8]Prio    `json:"prio"`
	Pause      Pause      `json:"pause"`
	PauseStorm PauseStorm `json:"pause_storm"`
	Discards   Discards   `json:"discards"`
	PHY        PHY        `json:"phy"`
	PCIe       PCIe       `json:"pcie"`
	Module     Module     `json:"module"`
	VportRDMA  VportRDMA  `json:"vport_rdma"`
	// RxECNMark counts netdev (non-RDMA) packets received with ECN CE;
	// RoCE CE marks are in the RDMA hw counters, not here.
	RxECNMark *uint64 `json:"rx_ecn_mark,omitempty"`

	// Raw is every counter the driver listed, names trimmed of spaces.
	Raw map[string]uint64 `json:"raw"`
}

// Prio is one priority's traffic, PFC and buffer counters. mlx5 lists the
// pause counters of a priority only while PFC is enabled on it.
type Prio struct {
	Priority int `json:"priority"`

	RxBytes   *uint64 `json:"rx_bytes,omitempty"`   // rx_prioN_bytes
	RxPackets *uint64 `json:"rx_packets,omitempty"` // rx_prioN_packets
	TxBytes   *uint64 `json:"tx_bytes,omitempty"`   // tx_prioN_bytes
	TxPackets *uint64 `json:"tx_packets,omitempty"` // tx_prioN_packets
	// RxDiscards: dropped for lack of receive buffer on this priority.
	RxDiscards *uint64 `json:"rx_discards,omitempty"`

	// RxPause: PFC pause frames received (the peer throttles us).
	RxPause           *uint64 `json:"rx_pause,omitempty"`
	RxPauseDurationUs *uint64 `json:"rx_pause_duration_us,omitempty"`
	RxPauseTransition *uint64 `json:"rx_pause_transition,omitempty"` // XOFF→XON
	// TxPause: PFC pause frames sent (our receive buffer fills).
	TxPause           *uint64 `json:"tx_pause,omitempty"`
	TxPauseDurationUs *uint64 `json:"tx_pause_duration_us,omitempty"`
	TxPauseTransition *uint64 `json:"tx_pause_transition,omitempty"`

	// Per-TC buffer counters of newer kernels and OFED (rx_prioN_buf_discard,
	// rx_prioN_cong_discard, rx_prioN_marked).
	RxBufDiscard  *uint64 `json:"rx_buf_discard,omitempty"`
	RxCongDiscard *uint64 `json:"rx_cong_discard,omitempty"`
	RxMarked      *uint64 `json:"rx_marked,omitempty"`
}

// HasPause reports whether the driver lists any pause counter for this
// priority; with mlx5 that means PFC is enabled on it. The enabled set
// itself comes from DCB netlink.
func (p *Prio) HasPause() bool {
	return p.RxPause != nil || p.TxPause != nil ||
		p.RxPauseDurationUs != nil || p.TxPauseDurationUs != nil ||
		p.RxPauseTransition != nil || p.TxPauseTransition != nil
}

// Pause is port-wide pause: all pause frames (global and PFC) seen by the
// MAC, and the 802.3x global pause set that mlx5 lists only while global
// pause is enabled.
type Pause struct {
	RxCtrlPhy       *uint64 `json:"rx_pause_ctrl_phy,omitempty"`  // all pause frames received
	TxCtrlPhy       *uint64 `json:"tx_pause_ctrl_phy,omitempty"`  // all pause frames sent
	RxMACControlPhy *uint64 `json:"rx_mac_control_phy,omitempty"` // MAC control frames, pause included
	TxMACControlPhy *uint64 `json:"tx_mac_control_phy,omitempty"`

	RxGlobal           *uint64 `json:"rx_global_pause,omitempty"`
	RxGlobalDurationUs *uint64 `json:"rx_global_pause_duration_us,omitempty"`
	RxGlobalTransition *uint64 `json:"rx_global_pause_transition,omitempty"`
	TxGlobal           *uint64 `json:"tx_global_pause,omitempty"`
	TxGlobalDurationUs *uint64 `json:"tx_global_pause_duration_us,omitempty"`
	TxGlobalTransition *uint64 `json:"tx_global_pause_transition,omitempty"`
}

// PauseStorm is mlx5's PFC storm prevention: Warning counts stalls past the
// minor watermark, Error stalls past the critical one, after which the
// device stops sending pause frames (drops become possible).
type PauseStorm struct {
	WarningEvents *uint64 `json:"warning_events,omitempty"` // tx_pause_storm_warning_events
	ErrorEvents   *uint64 `json:"error_events,omitempty"`   // tx_pause_storm_error_events
}

// Discards is drops and buffer pressure outside the per-priority view.
type Discards struct {
	RxDiscardsPhy *uint64 `json:"rx_discards_phy,omitempty"` // no port buffer
	TxDiscardsPhy *uint64 `json:"tx_discards_phy,omitempty"`
	// RxBufferPassedThresPhy counts times the port RX buffer passed 85 %.
	RxBufferPassedThresPhy *uint64 `json:"rx_buffer_passed_thres_phy,omitempty"`
	// RxOutOfBuffer: netdev RQ had no software buffer (Ethernet, not RDMA).
	RxOutOfBuffer        *uint64 `json:"rx_out_of_buffer,omitempty"`
	RxIfDownPackets      *uint64 `json:"rx_if_down_packets,omitempty"`
	RxSteerMissedPackets *uint64 `json:"rx_steer_missed_packets,omitempty"`
	DevOutOfBuffer       *uint64 `json:"dev_out_of_buffer,omitempty"`
	DevInternalQueueOOB  *uint64 `json:"dev_internal_queue_oob,omitempty"`
}

// PHY is the physical port's totals and error counters.
type PHY struct {
	RxPacketsPhy *uint64 `json:"rx_packets_phy,omitempty"`
	TxPacketsPhy *uint64 `json:"tx_packets_phy,omitempty"`
	RxBytesPhy   *uint64 `json:"rx_bytes_phy,omitempty"`
	TxBytesPhy   *uint64 `json:"tx_bytes_phy,omitempty"`
	RxBitsPhy    *uint64 `json:"rx_bits_phy,omitempty"`

	RxCRCErrorsPhy     *uint64           `json:"rx_crc_errors_phy,omitempty"`
	RxSymbolErrPhy     *uint64           `json:"rx_symbol_err_phy,omitempty"`
	RxPCSSymbolErrPhy  *uint64           `json:"rx_pcs_symbol_err_phy,omitempty"` // not corrected by FEC
	RxCorrectedBitsPhy *uint64           `json:"rx_corrected_bits_phy,omitempty"` // corrected by FEC
	LinkDownEventsPhy  *uint64           `json:"link_down_events_phy,omitempty"`
	RxInRangeLenErrors *uint64           `json:"rx_in_range_len_errors_phy,omitempty"`
	RxOutOfRangeLen    *uint64           `json:"rx_out_of_range_len_phy,omitempty"`
	RxOversizePktsPhy  *uint64           `json:"rx_oversize_pkts_phy,omitempty"`
	RxUndersizePktsPhy *uint64           `json:"rx_undersize_pkts_phy,omitempty"`
	RxFragmentsPhy     *uint64           `json:"rx_fragments_phy,omitempty"`
	RxJabbersPhy       *uint64           `json:"rx_jabbers_phy,omitempty"`
	RxUnsupportedOpPhy *uint64           `json:"rx_unsupported_op_phy,omitempty"`
	TxErrorsPhy        *uint64           `json:"tx_errors_phy,omitempty"`
	RxErrLane          map[int]uint64    `json:"rx_err_lane,omitempty"` // rx_err_lane_<l>_phy by lane
	FEC                map[string]uint64 `json:"fec,omitempty"`         // rx_fec_* / tx_fec_* by name
}

// PCIe is the host-side bus: signal integrity and outbound stalls.
// OutboundStalledRd/Wr are gauges (percent of the last second), not counters.
type PCIe struct {
	RxSignalIntegrity       *uint64 `json:"rx_pci_signal_integrity,omitempty"`
	TxSignalIntegrity       *uint64 `json:"tx_pci_signal_integrity,omitempty"`
	OutboundBufferOverflow  *uint64 `json:"outbound_pci_buffer_overflow,omitempty"`
	OutboundStalledRdPct    *uint64 `json:"outbound_pci_stalled_rd_pct,omitempty"`
	OutboundStalledWrPct    *uint64 `json:"outbound_pci_stalled_wr_pct,omitempty"`
	OutboundStalledRdEvents *uint64 `json:"outbound_pci_stalled_rd_events,omitempty"`
	OutboundStalledWrEvents *uint64 `json:"outbound_pci_stalled_wr_events,omitempty"`
}

// Module is transceiver events.
type Module struct {
	Unplug     *uint64 `json:"module_unplug,omitempty"`
	BusStuck   *uint64 `json:"module_bus_stuck,omitempty"`
	HighTemp   *uint64 `json:"module_high_temp,omitempty"`
	BadShorted *uint64 `json:"module_bad_shorted,omitempty"`
}

// VportRDMA is RDMA traffic of this function, in real octets (unlike the
// 4-byte words of the IB PMA counters).
type VportRDMA struct {
	RxUnicastPackets   *uint64 `json:"rx_unicast_packets,omitempty"`
	RxUnicastBytes     *uint64 `json:"rx_unicast_bytes,omitempty"`
	TxUnicastPackets   *uint64 `json:"tx_unicast_packets,omitempty"`
	TxUnicastBytes     *uint64 `json:"tx_unicast_bytes,omitempty"`
	RxMulticastPackets *uint64 `json:"rx_multicast_packets,omitempty"`
	RxMulticastBytes   *uint64 `json:"rx_multicast_bytes,omitempty"`
	TxMulticastPackets *uint64 `json:"tx_multicast_packets,omitempty"`
	TxMulticastBytes   *uint64 `json:"tx_multicast_bytes,omitempty"`
}

// PFCPriorities lists the priorities whose pause counters the driver lists.
func (c *Counters) PFCPriorities() []int {
	var ps []int
	for i := range c.Prio {
		if c.Prio[i].HasPause() {
			ps = append(ps, i)
		}
	}
	return ps
}

// Get returns a counter by name (trimmed) and whether the driver listed it.
func (c *Counters) Get(name string) (uint64, bool) {
	v, ok := c.Raw[name]
	return v, ok
}
