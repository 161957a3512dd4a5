package ethtool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const fixtureDir = "../../testdata/ethtool"

func loadFixture(t testing.TB, name string) map[string]uint64 {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ParseText(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// fixtureLines counts the "name: value" lines of a fixture, independently
// of ParseText.
func fixtureLines(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), ": ")
}

func val(t *testing.T, what string, p *uint64) uint64 {
	t.Helper()
	if p == nil {
		t.Fatalf("%s: absent, want present", what)
	}
	return *p
}

func wantVal(t *testing.T, what string, p *uint64, want uint64) {
	t.Helper()
	if got := val(t, what, p); got != want {
		t.Errorf("%s = %d, want %d", what, got, want)
	}
}

func wantAbsent(t *testing.T, what string, p *uint64) {
	t.Helper()
	if p != nil {
		t.Errorf("%s = %d, want absent", what, *p)
	}
}

func TestFixtureCX6DxT0(t *testing.T) {
	const name = "mlx5_cx6dx_eth0_roce_pfc3_t0.txt"
	raw := loadFixture(t, name)
	if n := fixtureLines(t, name); len(raw) != n || n != 195 {
		t.Fatalf("%d counters, %d lines in the file; want 195 each", len(raw), n)
	}
	c := Parse(raw)
	if len(c.Raw) != len(raw) {
		t.Errorf("Raw keeps %d of %d counters", len(c.Raw), len(raw))
	}

	// PFC on priority 3 only.
	if got := c.PFCPriorities(); !slices.Equal(got, []int{3}) {
		t.Errorf("PFCPriorities = %v, want [3]", got)
	}
	p3 := &c.Prio[3]
	wantVal(t, "prio3 rx_pause", p3.RxPause, 18233)
	wantVal(t, "prio3 rx_pause_duration", p3.RxPauseDurationUs, 10211)
	wantVal(t, "prio3 tx_pause", p3.TxPause, 1210)
	wantVal(t, "prio3 tx_pause_duration", p3.TxPauseDurationUs, 902)
	wantVal(t, "prio3 rx_pause_transition", p3.RxPauseTransition, 18102)
	wantAbsent(t, "prio3 tx_pause_transition (mlx5 has none)", p3.TxPauseTransition)
	wantVal(t, "prio3 rx_bytes", p3.RxBytes, 8047493600068)
	wantVal(t, "prio3 rx_packets", p3.RxPackets, 500122731)
	wantVal(t, "prio3 tx_bytes", p3.TxBytes, 7574960048932)
	wantVal(t, "prio3 tx_packets", p3.TxPackets, 471822013)
	wantVal(t, "prio3 rx_discards", p3.RxDiscards, 0)
	wantAbsent(t, "prio3 rx_buf_discard", p3.RxBufDiscard)
	// CNPs ride on priority 6: traffic, but no PFC counters.
	wantVal(t, "prio6 rx_bytes", c.Prio[6].RxBytes, 68868618)
	wantVal(t, "prio6 tx_packets", c.Prio[6].TxPackets, 731022)
	for p := range 8 {
		if c.Prio[p].Priority != p {
			t.Errorf("Prio[%d].Priority = %d", p, c.Prio[p].Priority)
		}
		if p != 3 {
			wantAbsent(t, "rx_pause of prio "+string(rune('0'+p)), c.Prio[p].RxPause)
			wantAbsent(t, "tx_pause_duration of prio "+string(rune('0'+p)), c.Prio[p].TxPauseDurationUs)
		}
		wantVal(t, "rx_packets of prio "+string(rune('0'+p)), c.Prio[p].RxPackets, raw["rx_prio"+string(rune('0'+p))+"_packets"])
	}

	wantVal(t, "pause storm warning", c.PauseStorm.WarningEvents, 0)
	wantVal(t, "pause storm error", c.PauseStorm.ErrorEvents, 0)
	wantVal(t, "rx_pause_ctrl_phy", c.Pause.RxCtrlPhy, 18233)
	wantVal(t, "tx_pause_ctrl_phy", c.Pause.TxCtrlPhy, 1210)
	wantAbsent(t, "tx_global_pause (global pause off)", c.Pause.TxGlobal)
	wantAbsent(t, "rx_global_pause_duration", c.Pause.RxGlobalDurationUs)

	wantVal(t, "rx_discards_phy", c.Discards.RxDiscardsPhy, 0)
	wantVal(t, "tx_discards_phy", c.Discards.TxDiscardsPhy, 0)
	wantVal(t, "rx_buffer_passed_thres_phy", c.Discards.RxBufferPassedThresPhy, 12)
	wantVal(t, "rx_out_of_buffer", c.Discards.RxOutOfBuffer, 0)
	wantVal(t, "rx_steer_missed_packets", c.Discards.RxSteerMissedPackets, 219)
	wantVal(t, "dev_internal_queue_oob", c.Discards.DevInternalQueueOOB, 0)
	wantAbsent(t, "dev_out_of_buffer", c.Discards.DevOutOfBuffer)

	wantVal(t, "rx_crc_errors_phy", c.PHY.RxCRCErrorsPhy, 0)
	wantVal(t, "rx_symbol_err_phy", c.PHY.RxSymbolErrPhy, 0)
	wantVal(t, "rx_pcs_symbol_err_phy", c.PHY.RxPCSSymbolErrPhy, 0)
	wantVal(t, "rx_corrected_bits_phy", c.PHY.RxCorrectedBitsPhy, 1211)
	wantVal(t, "link_down_events_phy", c.PHY.LinkDownEventsPhy, 2)
	wantVal(t, "rx_bytes_phy", c.PHY.RxBytesPhy, 10195004654291)
	wantVal(t, "tx_packets_phy", c.PHY.TxPacketsPhy, 482815326)
	wantAbsent(t, "rx_bits_phy", c.PHY.RxBitsPhy)
	if len(c.PHY.RxErrLane) != 4 {
		t.Errorf("rx_err_lane = %v, want lanes 0..3", c.PHY.RxErrLane)
	}
	for l := range 4 {
		if v, ok := c.PHY.RxErrLane[l]; !ok || v != 0 {
			t.Errorf("rx_err_lane_%d_phy = %d, %v; want 0, present", l, v, ok)
		}
	}
	if c.PHY.FEC != nil {
		t.Errorf("FEC = %v, want none", c.PHY.FEC)
	}

	wantVal(t, "outbound_pci_buffer_overflow", c.PCIe.OutboundBufferOverflow, 0)
	wantVal(t, "outbound_pci_stalled_rd", c.PCIe.OutboundStalledRdPct, 0)
	wantVal(t, "module_unplug", c.Module.Unplug, 0)
	wantVal(t, "module_bad_shorted", c.Module.BadShorted, 0)

	wantVal(t, "rx_vport_rdma_unicast_packets", c.VportRDMA.RxUnicastPackets, 500122731)
	wantVal(t, "rx_vport_rdma_unicast_bytes", c.VportRDMA.RxUnicastBytes, 8047493600068)
	wantVal(t, "tx_vport_rdma_unicast_packets", c.VportRDMA.TxUnicastPackets, 471822013)
	wantVal(t, "tx_vport_rdma_unicast_bytes", c.VportRDMA.TxUnicastBytes, 7574960048932)
	wantVal(t, "rx_vport_rdma_multicast_bytes", c.VportRDMA.RxMulticastBytes, 0)
	wantVal(t, "rx_ecn_mark", c.RxECNMark, 0)

	// Unknown counters stay in Raw.
	for _, n := range []string{"rx_csum_complete", "ch0_poll", "tx0_cqe_err", "rx_64_bytes_phy"} {
		if _, ok := c.Get(n); !ok {
			t.Errorf("Raw lost %s", n)
		}
	}
}

// The t0→t1 deltas are the ones the fixtures' MANIFEST states.
func TestFixtureCX6DxDeltas(t *testing.T) {
	c0 := Parse(loadFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt"))
	c1 := Parse(loadFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t1.txt"))
	delta := func(what string, a, b *uint64) uint64 {
		t.Helper()
		x, y := val(t, what, a), val(t, what, b)
		if y < x {
			t.Fatalf("%s went backwards: %d → %d", what, x, y)
		}
		return y - x
	}
	if d := delta("rx_prio3_pause", c0.Prio[3].RxPause, c1.Prio[3].RxPause); d != 941220 {
		t.Errorf("rx_prio3_pause +%d, want +941220", d)
	}
	d := delta("rx_prio3_pause_duration", c0.Prio[3].RxPauseDurationUs, c1.Prio[3].RxPauseDurationUs)
	if d != 5230111 {
		t.Errorf("rx_prio3_pause_duration +%d µs, want +5230111", d)
	}
	if s := float64(d) / 1e6; s < 5.225 || s >= 5.235 {
		t.Errorf("rx_prio3_pause_duration +%.3f s, MANIFEST says +5.23 s", s)
	}
	if d := delta("tx_prio3_pause", c0.Prio[3].TxPause, c1.Prio[3].TxPause); d != 288101 {
		t.Errorf("tx_prio3_pause +%d, want +288101", d)
	}
	wantVal(t, "t0 tx_pause_storm_warning_events", c0.PauseStorm.WarningEvents, 0)
	wantVal(t, "t1 tx_pause_storm_warning_events", c1.PauseStorm.WarningEvents, 2)
	wantVal(t, "t1 tx_pause_storm_error_events", c1.PauseStorm.ErrorEvents, 0)
	if d := delta("rx_discards_phy", c0.Discards.RxDiscardsPhy, c1.Discards.RxDiscardsPhy); d != 1733 {
		t.Errorf("rx_discards_phy +%d, want +1733", d)
	}
	if d := delta("rx_prio3_discards", c0.Prio[3].RxDiscards, c1.Prio[3].RxDiscards); d != 1733 {
		t.Errorf("rx_prio3_discards +%d, want +1733", d)
	}
	if d := delta("rx_buffer_passed_thres_phy", c0.Discards.RxBufferPassedThresPhy, c1.Discards.RxBufferPassedThresPhy); d != 35210 {
		t.Errorf("rx_buffer_passed_thres_phy +%d, want +35210 (rising)", d)
	}
	if got := c1.PFCPriorities(); !slices.Equal(got, []int{3}) {
		t.Errorf("t1 PFCPriorities = %v, want [3]", got)
	}
	// Same string set at both times.
	if len(c0.Raw) != len(c1.Raw) {
		t.Errorf("t0 has %d counters, t1 %d", len(c0.Raw), len(c1.Raw))
	}
	for n := range c0.Raw {
		if _, ok := c1.Raw[n]; !ok {
			t.Errorf("%s missing at t1", n)
		}
	}
}

// A real dump: 802.3x global pause, no PFC. The PFC entries are absent,
// not zero.
func TestFixtureLKMLGlobalPause(t *testing.T) {
	const name = "mlx5_lkml_2024-06_kernel6.5.txt"
	raw := loadFixture(t, name)
	if n := fixtureLines(t, name); len(raw) != n || n != 108 {
		t.Fatalf("%d counters, %d lines; want 108 each", len(raw), n)
	}
	c := Parse(raw)
	if got := c.PFCPriorities(); len(got) != 0 {
		t.Errorf("PFCPriorities = %v, want none", got)
	}
	for p := range 8 {
		pr := &c.Prio[p]
		for what, v := range map[string]*uint64{
			"rx_pause": pr.RxPause, "tx_pause": pr.TxPause,
			"rx_pause_duration": pr.RxPauseDurationUs, "tx_pause_duration": pr.TxPauseDurationUs,
			"rx_pause_transition": pr.RxPauseTransition,
		} {
			wantAbsent(t, what+" of prio "+string(rune('0'+p)), v)
		}
		if p > 0 {
			wantAbsent(t, "rx_bytes of prio "+string(rune('0'+p)), pr.RxBytes)
		}
	}
	wantVal(t, "tx_global_pause", c.Pause.TxGlobal, 44414017)
	wantVal(t, "tx_global_pause_duration", c.Pause.TxGlobalDurationUs, 5961284324)
	wantAbsent(t, "rx_global_pause (zero counters were cut by the poster)", c.Pause.RxGlobal)
	wantVal(t, "tx_pause_ctrl_phy", c.Pause.TxCtrlPhy, 44414017)
	wantVal(t, "tx_mac_control_phy", c.Pause.TxMACControlPhy, 44414017)
	wantAbsent(t, "rx_pause_ctrl_phy", c.Pause.RxCtrlPhy)
	wantAbsent(t, "pause storm warning", c.PauseStorm.WarningEvents)
	wantAbsent(t, "pause storm error", c.PauseStorm.ErrorEvents)

	wantVal(t, "rx_prio0_bytes", c.Prio[0].RxBytes, 46609758231313)
	wantVal(t, "rx_prio0_packets", c.Prio[0].RxPackets, 287214264688)
	wantVal(t, "rx_prio0_discards", c.Prio[0].RxDiscards, 441063206498)
	wantVal(t, "tx_prio0_packets", c.Prio[0].TxPackets, 46956452586)
	wantVal(t, "rx_discards_phy", c.Discards.RxDiscardsPhy, 441063206498)
	wantVal(t, "rx_out_of_buffer", c.Discards.RxOutOfBuffer, 534918379)
	wantVal(t, "rx_buffer_passed_thres_phy", c.Discards.RxBufferPassedThresPhy, 1192226)
	wantVal(t, "rx_if_down_packets", c.Discards.RxIfDownPackets, 4044804)
	wantAbsent(t, "tx_discards_phy", c.Discards.TxDiscardsPhy)
	wantVal(t, "rx_packets_phy", c.PHY.RxPacketsPhy, 728277471186)
	wantAbsent(t, "rx_crc_errors_phy", c.PHY.RxCRCErrorsPhy)
	wantAbsent(t, "rx_vport_rdma_unicast_packets (no RDMA)", c.VportRDMA.RxUnicastPackets)
	wantVal(t, "rx0_xdp_tx_cqes in Raw", ptr(c.Raw["rx0_xdp_tx_cqes"]), 733694572)

	// In JSON, absent counters are left out and present zeros stay.
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	for _, absent := range []string{`"rx_pause"`, `"warning_events"`, `"rx_global_pause"`, `"rx_unicast_packets"`} {
		if strings.Contains(js, absent) {
			t.Errorf("JSON has %s, want it left out", absent)
		}
	}
	for _, present := range []string{`"tx_global_pause":44414017`, `"tx_global_pause_duration_us":5961284324`, `"rx_xdp_tx_full":0`} {
		if !strings.Contains(js, present) {
			t.Errorf("JSON lacks %s", present)
		}
	}
}

func ptr(v uint64) *uint64 { return &v }
