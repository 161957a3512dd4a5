package ethtool

import (
	"strconv"
	"strings"
)

// Parse builds the typed view of a raw statistics map (from OS.Stats,
// ParseText or a recording). Names are trimmed of surrounding spaces first
// (an older mlx5 printed "tx_pause_storm_warning_events " with a trailing
// space); if both spellings are present the exact one wins. Counters the
// view does not name stay in Raw.
func Parse(stats map[string]uint64) Counters {
	c := Counters{Raw: make(map[string]uint64, len(stats))}
	for i := range c.Prio {
		c.Prio[i].Priority = i
	}
	for name, v := range stats {
		n := strings.TrimSpace(name)
		if n == "" {
			continue
		}
		if n != name {
			if _, exact := stats[n]; exact {
				continue
			}
		}
		c.Raw[n] = v
	}
	// One backing array for every present value: the pointers below point
	// into it. Its capacity is fixed up front so appends never move it.
	vals := make([]uint64, 0, len(c.Raw))
	for n, v := range c.Raw {
		if fp := c.field(n); fp != nil {
			vals = append(vals, v)
			*fp = &vals[len(vals)-1]
			continue
		}
		if lane, ok := errLane(n); ok {
			if c.PHY.RxErrLane == nil {
				c.PHY.RxErrLane = map[int]uint64{}
			}
			c.PHY.RxErrLane[lane] = v
			continue
		}
		if strings.HasPrefix(n, "rx_fec_") || strings.HasPrefix(n, "tx_fec_") {
			if c.PHY.FEC == nil {
				c.PHY.FEC = map[string]uint64{}
			}
			c.PHY.FEC[n] = v
		}
	}
	return c
}

// field returns where the counter called name goes in c, or nil.
func (c *Counters) field(name string) **uint64 {
	if p, rest, ok := prioName(name); ok {
		return c.Prio[p].field(name[:2], rest)
	}
	switch name {
	case "rx_pause_ctrl_phy":
		return &c.Pause.RxCtrlPhy
	case "tx_pause_ctrl_phy":
		return &c.Pause.TxCtrlPhy
	case "rx_mac_control_phy":
		return &c.Pause.RxMACControlPhy
	case "tx_mac_control_phy":
		return &c.Pause.TxMACControlPhy
	case "rx_global_pause":
		return &c.Pause.RxGlobal
	case "rx_global_pause_duration":
		return &c.Pause.RxGlobalDurationUs
	case "rx_global_pause_transition":
		return &c.Pause.RxGlobalTransition
	case "tx_global_pause":
		return &c.Pause.TxGlobal
	case "tx_global_pause_duration":
		return &c.Pause.TxGlobalDurationUs
	case "tx_global_pause_transition":
		return &c.Pause.TxGlobalTransition

	case "tx_pause_storm_warning_events":
		return &c.PauseStorm.WarningEvents
	case "tx_pause_storm_error_events":
		return &c.PauseStorm.ErrorEvents

	case "rx_discards_phy":
		return &c.Discards.RxDiscardsPhy
	case "tx_discards_phy":
		return &c.Discards.TxDiscardsPhy
	case "rx_buffer_passed_thres_phy":
		return &c.Discards.RxBufferPassedThresPhy
	case "rx_out_of_buffer":
		return &c.Discards.RxOutOfBuffer
	case "rx_if_down_packets":
		return &c.Discards.RxIfDownPackets
	case "rx_steer_missed_packets":
		return &c.Discards.RxSteerMissedPackets
	case "dev_out_of_buffer":
		return &c.Discards.DevOutOfBuffer
	case "dev_internal_queue_oob":
		return &c.Discards.DevInternalQueueOOB

	case "rx_packets_phy":
		return &c.PHY.RxPacketsPhy
	case "tx_packets_phy":
		return &c.PHY.TxPacketsPhy
	case "rx_bytes_phy":
		return &c.PHY.RxBytesPhy
	case "tx_bytes_phy":
		return &c.PHY.TxBytesPhy
	case "rx_bits_phy":
		return &c.PHY.RxBitsPhy
	case "rx_crc_errors_phy":
		return &c.PHY.RxCRCErrorsPhy
	case "rx_symbol_err_phy":
		return &c.PHY.RxSymbolErrPhy
	case "rx_pcs_symbol_err_phy":
		return &c.PHY.RxPCSSymbolErrPhy
	case "rx_corrected_bits_phy":
		return &c.PHY.RxCorrectedBitsPhy
	case "link_down_events_phy":
		return &c.PHY.LinkDownEventsPhy
	case "rx_in_range_len_errors_phy":
		return &c.PHY.RxInRangeLenErrors
	case "rx_out_of_range_len_phy":
		return &c.PHY.RxOutOfRangeLen
	case "rx_oversize_pkts_phy":
		return &c.PHY.RxOversizePktsPhy
	case "rx_undersize_pkts_phy":
		return &c.PHY.RxUndersizePktsPhy
	case "rx_fragments_phy":
		return &c.PHY.RxFragmentsPhy
	case "rx_jabbers_phy":
		return &c.PHY.RxJabbersPhy
	case "rx_unsupported_op_phy":
		return &c.PHY.RxUnsupportedOpPhy
	case "tx_errors_phy":
		return &c.PHY.TxErrorsPhy

	case "rx_pci_signal_integrity":
		return &c.PCIe.RxSignalIntegrity
	case "tx_pci_signal_integrity":
		return &c.PCIe.TxSignalIntegrity
	case "outbound_pci_buffer_overflow":
		return &c.PCIe.OutboundBufferOverflow
	case "outbound_pci_stalled_rd":
		return &c.PCIe.OutboundStalledRdPct
	case "outbound_pci_stalled_wr":
		return &c.PCIe.OutboundStalledWrPct
	case "outbound_pci_stalled_rd_events":
		return &c.PCIe.OutboundStalledRdEvents
	case "outbound_pci_stalled_wr_events":
		return &c.PCIe.OutboundStalledWrEvents

	case "module_unplug":
		return &c.Module.Unplug
	case "module_bus_stuck":
		return &c.Module.BusStuck
	case "module_high_temp":
		return &c.Module.HighTemp
	case "module_bad_shorted":
		return &c.Module.BadShorted

	case "rx_vport_rdma_unicast_packets":
		return &c.VportRDMA.RxUnicastPackets
	case "rx_vport_rdma_unicast_bytes":
		return &c.VportRDMA.RxUnicastBytes
	case "tx_vport_rdma_unicast_packets":
		return &c.VportRDMA.TxUnicastPackets
	case "tx_vport_rdma_unicast_bytes":
		return &c.VportRDMA.TxUnicastBytes
	case "rx_vport_rdma_multicast_packets":
		return &c.VportRDMA.RxMulticastPackets
	case "rx_vport_rdma_multicast_bytes":
		return &c.VportRDMA.RxMulticastBytes
	case "tx_vport_rdma_multicast_packets":
		return &c.VportRDMA.TxMulticastPackets
	case "tx_vport_rdma_multicast_bytes":
		return &c.VportRDMA.TxMulticastBytes

	case "rx_ecn_mark":
		return &c.RxECNMark
	}
	return nil
}

// field returns where the per-priority counter dir+"_prioN_"+rest goes.
func (p *Prio) field(dir, rest string) **uint64 {
	rx := dir == "rx"
	switch rest {
	case "bytes":
		return pick(rx, &p.RxBytes, &p.TxBytes)
	case "packets":
		return pick(rx, &p.RxPackets, &p.TxPackets)
	case "pause":
		return pick(rx, &p.RxPause, &p.TxPause)
	case "pause_duration":
		return pick(rx, &p.RxPauseDurationUs, &p.TxPauseDurationUs)
	case "pause_transition":
		return pick(rx, &p.RxPauseTransition, &p.TxPauseTransition)
	}
	if !rx {
		return nil
	}
	switch rest {
	case "discards":
		return &p.RxDiscards
	case "buf_discard":
		return &p.RxBufDiscard
	case "cong_discard":
		return &p.RxCongDiscard
	case "marked":
		return &p.RxMarked
	}
	return nil
}

func pick(rx bool, r, t **uint64) **uint64 {
	if rx {
		return r
	}
	return t
}

// prioName splits "rx_prio3_pause" into priority 3 and "pause".
func prioName(name string) (prio int, rest string, ok bool) {
	const n = len("rx_prio0_")
	if len(name) <= n || (name[:7] != "rx_prio" && name[:7] != "tx_prio") {
		return 0, "", false
	}
	d := name[7]
	if d < '0' || d > '7' || name[8] != '_' {
		return 0, "", false
	}
	return int(d - '0'), name[n:], true
}

// errLane reads the lane of "rx_err_lane_<l>_phy".
func errLane(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "rx_err_lane_")
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, "_phy")
	if !ok || num == "" || len(num) > 3 {
		return 0, false
	}
	lane, err := strconv.Atoi(num)
	if err != nil || lane < 0 || num[0] == '+' {
		return 0, false
	}
	return lane, true
}
