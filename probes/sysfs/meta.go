package sysfs

import (
	"math"
	"strings"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/alias"
)

// Overflow is how a counter behaves at its maximum.
type Overflow string

// Overflow behaviours.
const (
	Saturates Overflow = "saturates" // IBTA PMA counters stop at 2^bits-1
	Wraps     Overflow = "wraps"     // modulo 2^bits
)

// UnitWords is the unit of port_xmit_data and port_rcv_data: 4-byte words.
const UnitWords = "4-byte words"

// Meta is what is known about a counter's unit and width. Bits 0 means
// unknown (the kernel prints 64 bits; the hardware may count fewer).
type Meta struct {
	Unit     string   `json:"unit,omitempty"`
	Bits     int      `json:"bits,omitempty"`
	Overflow Overflow `json:"overflow,omitempty"`
	// BytesPerUnit is 4 for counters in 4-byte words, 1 for byte counters,
	// 0 when the counter does not count bytes.
	BytesPerUnit uint64 `json:"bytes_per_unit,omitempty"`
	Note         string `json:"note,omitempty"`
}

// Width is the width for probes.Delta (0 means 64).
func (m Meta) Width() probes.Width {
	if m.Bits <= 0 || m.Bits >= 64 {
		return 0
	}
	return probes.Width(m.Bits)
}

// Behavior is the overflow behaviour for probes.Delta.
func (m Meta) Behavior() probes.Behavior {
	if m.Overflow == Saturates {
		return probes.Saturates
	}
	return probes.Wraps
}

// Max is the counter's largest value.
func (m Meta) Max() uint64 {
	if m.Bits <= 0 || m.Bits >= 64 {
		return math.MaxUint64
	}
	return 1<<m.Bits - 1
}

// Saturated reports whether v is stuck at the maximum of a saturating
// counter: its rate is then unknown.
func (m Meta) Saturated(v uint64) bool { return m.Overflow == Saturates && m.Bits > 0 && v == m.Max() }

// pmaMeta is the IBTA PMA layout: width in bits and unit. The data and
// packet counters are 32-bit in the legacy attribute set and 64-bit in the
// extended ones (drivers/infiniband/core/sysfs.c).
var pmaMeta = map[string]Meta{
	"symbol_error":                    {Unit: alias.UnitEvents, Bits: 16},
	"link_error_recovery":             {Unit: alias.UnitEvents, Bits: 8},
	"link_downed":                     {Unit: alias.UnitEvents, Bits: 8},
	"port_rcv_errors":                 {Unit: alias.UnitPackets, Bits: 16},
	"port_rcv_remote_physical_errors": {Unit: alias.UnitPackets, Bits: 16},
	"port_rcv_switch_relay_errors":    {Unit: alias.UnitPackets, Bits: 16},
	"port_xmit_discards":              {Unit: alias.UnitPackets, Bits: 16},
	"port_xmit_constraint_errors":     {Unit: alias.UnitPackets, Bits: 8},
	"port_rcv_constraint_errors":      {Unit: alias.UnitPackets, Bits: 8},
	"local_link_integrity_errors":     {Unit: alias.UnitEvents, Bits: 4},
	"excessive_buffer_overrun_errors": {Unit: alias.UnitEvents, Bits: 4},
	"VL15_dropped":                    {Unit: alias.UnitPackets, Bits: 16},
	"port_xmit_data":                  {Unit: UnitWords, Bits: 32, BytesPerUnit: 4},
	"port_rcv_data":                   {Unit: UnitWords, Bits: 32, BytesPerUnit: 4},
	"port_xmit_packets":               {Unit: alias.UnitPackets, Bits: 32},
	"port_rcv_packets":                {Unit: alias.UnitPackets, Bits: 32},
	"port_xmit_wait":                  {Unit: alias.UnitTicks, Bits: 32},
	"unicast_xmit_packets":            {Unit: alias.UnitPackets, Bits: 64},
	"unicast_rcv_packets":             {Unit: alias.UnitPackets, Bits: 64},
	"multicast_xmit_packets":          {Unit: alias.UnitPackets, Bits: 64},
	"multicast_rcv_packets":           {Unit: alias.UnitPackets, Bits: 64},
}

// pmaWide are the counters the extended attribute sets make 64-bit.
var pmaWide = map[string]bool{"port_xmit_data": true, "port_rcv_data": true, "port_xmit_packets": true, "port_rcv_packets": true}

// PMASet says which IBTA attribute set the kernel chose for counters/.
type PMASet string

// PMA sets. The extended set is recognised by its unicast/multicast
// counters; the legacy set (32-bit data) and the noietf set (64-bit data,
// no unicast/multicast) list the same names and are told apart only by a
// value above 2^32-1.
const (
	PMAExtended       PMASet = "extended"
	PMANoIETF         PMASet = "noietf"
	PMALegacyOrNoIETF PMASet = "legacy_or_noietf"
)

func pmaCounterMeta(name string, set PMASet) Meta {
	m, ok := pmaMeta[name]
	if !ok {
		return Meta{Overflow: Saturates, Note: "PMA counter unknown to rdmatop: width unknown"}
	}
	m.Overflow = Saturates
	if pmaWide[name] {
		switch set {
		case PMAExtended, PMANoIETF:
			m.Bits = 64
		default:
			m.Note = "legacy PMA set assumed (32-bit, saturating); may be the 64-bit noietf set"
		}
	}
	return m
}

// mlx5 hw_counters (drivers/infiniband/hw/mlx5/counters.c): queue
// counters are 32-bit firmware counters, zero-extended, so they wrap at
// 2^32; congestion, PPCNT and flow (optional) counters are 64-bit.
var mlx5Q = map[string]string{
	"rx_write_requests": alias.UnitRequests, "rx_read_requests": alias.UnitRequests,
	"rx_atomic_requests": alias.UnitRequests, "rx_dct_connect": alias.UnitRequests,
	"out_of_buffer": alias.UnitPackets, "out_of_sequence": alias.UnitPackets,
	"duplicate_request": alias.UnitPackets, "rnr_nak_retry_err": alias.UnitEvents,
	"packet_seq_err": alias.UnitEvents, "implied_nak_seq_err": alias.UnitEvents,
	"local_ack_timeout_err": alias.UnitEvents, "resp_local_length_error": alias.UnitEvents,
	"resp_cqe_error": alias.UnitEvents, "req_cqe_error": alias.UnitEvents,
	"req_remote_invalid_request": alias.UnitEvents, "req_remote_access_errors": alias.UnitEvents,
	"resp_remote_access_errors": alias.UnitEvents, "resp_cqe_flush_error": alias.UnitEvents,
	"req_cqe_flush_error": alias.UnitEvents, "req_transport_retries_exceeded": alias.UnitEvents,
	"req_rnr_retries_exceeded": alias.UnitEvents, "roce_adp_retrans": alias.UnitEvents,
	"roce_adp_retrans_to": alias.UnitEvents, "roce_slow_restart": alias.UnitEvents,
	"roce_slow_restart_cnps": alias.UnitPackets, "roce_slow_restart_trans": alias.UnitEvents,
}

var mlx5Wide = map[string]string{
	"rp_cnp_ignored": alias.UnitPackets, "rp_cnp_handled": alias.UnitPackets,
	"np_ecn_marked_roce_packets": alias.UnitPackets, "np_cnp_sent": alias.UnitPackets,
	"rx_icrc_encapsulated": alias.UnitPackets,
	"cc_rx_ce_pkts":        alias.UnitPackets, "cc_rx_cnp_pkts": alias.UnitPackets, "cc_tx_cnp_pkts": alias.UnitPackets,
	"rdma_tx_packets": alias.UnitPackets, "rdma_rx_packets": alias.UnitPackets,
	"rdma_tx_bytes": alias.UnitBytes, "rdma_rx_bytes": alias.UnitBytes,
}

// rxe hw_counters are 64-bit atomics (drivers/infiniband/sw/rxe).
var rxeUnits = map[string]string{
	"sent_pkts": alias.UnitPackets, "rcvd_pkts": alias.UnitPackets,
	"duplicate_request": alias.UnitPackets, "out_of_seq_request": alias.UnitPackets,
	"rdma_sends": alias.UnitRequests, "rdma_recvs": alias.UnitRequests,
}

func hwCounterMeta(driver, name string) Meta {
	fam := alias.Driver(driver)
	switch fam {
	case "mlx5":
		base := strings.TrimPrefix(name, "vport_")
		if u, ok := mlx5Q[base]; ok {
			return Meta{Unit: u, Bits: 32, Overflow: Wraps, Note: "mlx5 queue counter: 32-bit, wraps"}
		}
		if u, ok := mlx5Wide[name]; ok {
			return withBytes(Meta{Unit: u, Bits: 64, Overflow: Wraps})
		}
	case "rxe":
		u, ok := rxeUnits[name]
		if !ok {
			u = alias.UnitEvents
		}
		return Meta{Unit: u, Bits: 64, Overflow: Wraps}
	}
	// Unknown: the unit from the alias table when it maps one to one.
	if m, ok := alias.MapFrom(driver, alias.SourceHWCounters, name); ok && m.Scale == 1 {
		return withBytes(Meta{Unit: alias.Lookup(m.Base).Unit, Note: "width unknown"})
	}
	return Meta{Note: "width unknown"}
}

func withBytes(m Meta) Meta {
	if m.Unit == alias.UnitBytes {
		m.BytesPerUnit = 1
	}
	return m
}
