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
	if at, ok := counterFields[name]; ok {
		return at(c)
	}
	return nil
}

// counterFields says where each mlx5 counter of Counters goes, by its
// ethtool -S name (the per-priority ones are Prio.field's).
var counterFields = map[string]func(c *Counters) **uint64{
	"rx_pause_ctrl_phy":          func(c *Counters) **uint64 { return &c.Pause.RxCtrlPhy },
	"tx_pause_ctrl_phy":          func(c *Counters) **uint64 { return &c.Pause.TxCtrlPhy },
	"rx_mac_control_phy":         func(c *Counters) **uint64 { return &c.Pause.RxMACControlPhy },
	"tx_mac_control_phy":         func(c *Counters) **uint64 { return &c.Pause.TxMACControlPhy },
	"rx_global_pause":            func(c *Counters) **uint64 { return &c.Pause.RxGlobal },
	"rx_global_pause_duration":   func(c *Counters) **uint64 { return &c.Pause.RxGlobalDurationUs },
	"rx_global_pause_transition": func(c *Counters) **uint64 { return &c.Pause.RxGlobalTransition },
	"tx_global_pause":            func(c *Counters) **uint64 { return &c.Pause.TxGlobal },
	"tx_global_pause_duration":   func(c *Counters) **uint64 { return &c.Pause.TxGlobalDurationUs },
	"tx_global_pause_transition": func(c *Counters) **uint64 { return &c.Pause.TxGlobalTransition },

	"tx_pause_storm_warning_events": func(c *Counters) **uint64 { return &c.PauseStorm.WarningEvents },
	"tx_pause_storm_error_events":   func(c *Counters) **uint64 { return &c.PauseStorm.ErrorEvents },

	"rx_discards_phy":            func(c *Counters) **uint64 { return &c.Discards.RxDiscardsPhy },
	"tx_discards_phy":            func(c *Counters) **uint64 { return &c.Discards.TxDiscardsPhy },
	"rx_buffer_passed_thres_phy": func(c *Counters) **uint64 { return &c.Discards.RxBufferPassedThresPhy },
	"rx_out_of_buffer":           func(c *Counters) **uint64 { return &c.Discards.RxOutOfBuffer },
	"rx_if_down_packets":         func(c *Counters) **uint64 { return &c.Discards.RxIfDownPackets },
	"rx_steer_missed_packets":    func(c *Counters) **uint64 { return &c.Discards.RxSteerMissedPackets },
	"dev_out_of_buffer":          func(c *Counters) **uint64 { return &c.Discards.DevOutOfBuffer },
	"dev_internal_queue_oob":     func(c *Counters) **uint64 { return &c.Discards.DevInternalQueueOOB },

	"rx_packets_phy":             func(c *Counters) **uint64 { return &c.PHY.RxPacketsPhy },
	"tx_packets_phy":             func(c *Counters) **uint64 { return &c.PHY.TxPacketsPhy },
	"rx_bytes_phy":               func(c *Counters) **uint64 { return &c.PHY.RxBytesPhy },
	"tx_bytes_phy":               func(c *Counters) **uint64 { return &c.PHY.TxBytesPhy },
	"rx_bits_phy":                func(c *Counters) **uint64 { return &c.PHY.RxBitsPhy },
	"rx_crc_errors_phy":          func(c *Counters) **uint64 { return &c.PHY.RxCRCErrorsPhy },
	"rx_symbol_err_phy":          func(c *Counters) **uint64 { return &c.PHY.RxSymbolErrPhy },
	"rx_pcs_symbol_err_phy":      func(c *Counters) **uint64 { return &c.PHY.RxPCSSymbolErrPhy },
	"rx_corrected_bits_phy":      func(c *Counters) **uint64 { return &c.PHY.RxCorrectedBitsPhy },
	"link_down_events_phy":       func(c *Counters) **uint64 { return &c.PHY.LinkDownEventsPhy },
	"rx_in_range_len_errors_phy": func(c *Counters) **uint64 { return &c.PHY.RxInRangeLenErrors },
	"rx_out_of_range_len_phy":    func(c *Counters) **uint64 { return &c.PHY.RxOutOfRangeLen },
	"rx_oversize_pkts_phy":       func(c *Counters) **uint64 { return &c.PHY.RxOversizePktsPhy },
	"rx_undersize_pkts_phy":      func(c *Counters) **uint64 { return &c.PHY.RxUndersizePktsPhy },
	"rx_fragments_phy":           func(c *Counters) **uint64 { return &c.PHY.RxFragmentsPhy },
	"rx_jabbers_phy":             func(c *Counters) **uint64 { return &c.PHY.RxJabbersPhy },
	"rx_unsupported_op_phy":      func(c *Counters) **uint64 { return &c.PHY.RxUnsupportedOpPhy },
	"tx_errors_phy":              func(c *Counters) **uint64 { return &c.PHY.TxErrorsPhy },

	"rx_pci_signal_integrity":        func(c *Counters) **uint64 { return &c.PCIe.RxSignalIntegrity },
	"tx_pci_signal_integrity":        func(c *Counters) **uint64 { return &c.PCIe.TxSignalIntegrity },
	"outbound_pci_buffer_overflow":   func(c *Counters) **uint64 { return &c.PCIe.OutboundBufferOverflow },
	"outbound_pci_stalled_rd":        func(c *Counters) **uint64 { return &c.PCIe.OutboundStalledRdPct },
	"outbound_pci_stalled_wr":        func(c *Counters) **uint64 { return &c.PCIe.OutboundStalledWrPct },
	"outbound_pci_stalled_rd_events": func(c *Counters) **uint64 { return &c.PCIe.OutboundStalledRdEvents },
	"outbound_pci_stalled_wr_events": func(c *Counters) **uint64 { return &c.PCIe.OutboundStalledWrEvents },

	"module_unplug":      func(c *Counters) **uint64 { return &c.Module.Unplug },
	"module_bus_stuck":   func(c *Counters) **uint64 { return &c.Module.BusStuck },
	"module_high_temp":   func(c *Counters) **uint64 { return &c.Module.HighTemp },
	"module_bad_shorted": func(c *Counters) **uint64 { return &c.Module.BadShorted },

	"rx_vport_rdma_unicast_packets":   func(c *Counters) **uint64 { return &c.VportRDMA.RxUnicastPackets },
	"rx_vport_rdma_unicast_bytes":     func(c *Counters) **uint64 { return &c.VportRDMA.RxUnicastBytes },
	"tx_vport_rdma_unicast_packets":   func(c *Counters) **uint64 { return &c.VportRDMA.TxUnicastPackets },
	"tx_vport_rdma_unicast_bytes":     func(c *Counters) **uint64 { return &c.VportRDMA.TxUnicastBytes },
	"rx_vport_rdma_multicast_packets": func(c *Counters) **uint64 { return &c.VportRDMA.RxMulticastPackets },
	"rx_vport_rdma_multicast_bytes":   func(c *Counters) **uint64 { return &c.VportRDMA.RxMulticastBytes },
	"tx_vport_rdma_multicast_packets": func(c *Counters) **uint64 { return &c.VportRDMA.TxMulticastPackets },
	"tx_vport_rdma_multicast_bytes":   func(c *Counters) **uint64 { return &c.VportRDMA.TxMulticastBytes },

	"rx_ecn_mark": func(c *Counters) **uint64 { return &c.RxECNMark },
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
