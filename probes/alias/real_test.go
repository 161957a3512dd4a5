package alias

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rdmatop/rdmatop/probes/ethtool"
)

// realStats reads one of the real `ethtool -S` pastes in testdata/real.
func realStats(t *testing.T, file string) map[string]uint64 {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata, "real", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ethtool.ParseText(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// canonicalOf maps every counter of a dump through driver's ethtool table:
// canonical name → value.
func canonicalOf(t *testing.T, driver string, stats map[string]uint64) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	for n, v := range stats {
		m, ok := MapFrom(driver, SourceEthtool, n)
		if !ok {
			continue
		}
		if _, dup := out[m.Canonical]; dup {
			t.Errorf("%s: two natives map to %s", driver, m.Canonical)
		}
		if Lookup(m.Canonical).Name == "" {
			t.Errorf("%s %s → %s, which Lookup does not know", driver, n, m.Canonical)
		}
		out[m.Canonical] = v * m.Scale
	}
	return out
}

// wantCanonical checks exact values; -1 means absent.
func wantCanonical(t *testing.T, what string, got map[string]uint64, want map[string]int64) {
	t.Helper()
	for n, w := range want {
		v, ok := got[n]
		switch {
		case w < 0 && ok:
			t.Errorf("%s: %s = %d, want absent", what, n, v)
		case w >= 0 && (!ok || v != uint64(w)):
			t.Errorf("%s: %s = %d (present %v), want %d", what, n, v, ok, w)
		}
	}
}

func perPrio(base string, v int64) map[string]int64 {
	m := map[string]int64{}
	for p := range 8 {
		m[base+"_prio"+string(rune('0'+p))] = v
	}
	return m
}

// bnxt_en on kernel 6.6: PFC per priority (frames, µs paused,
// transitions), 802.3x pause, port discards, PHY counters; per-ring
// counters stay unmapped.
func TestRealBNXTEthtool(t *testing.T) {
	st := realStats(t, "ethtool_S_bnxt_en_k6.6_ethq.txt")
	got := canonicalOf(t, "bnxt_en", st)
	want := map[string]int64{
		"rx_global_pause_frames":     0,
		"tx_global_pause_frames":     0,
		"rx_pfc_frames":              0,
		"tx_pfc_frames":              0,
		"pause_storm_events":         0,
		"roce_pause_storm_events":    0,
		"phy_rx_discards":            49337,
		"phy_tx_discards":            0,
		"phy_rx_bytes":               577687185962088,
		"phy_tx_bytes":               770394433789550,
		"phy_rx_packets":             662257056500,
		"phy_tx_packets":             754109637868,
		"rx_buffer_threshold_events": 417,
		"phy_rx_crc_errors":          0,
		"phy_pcs_symbol_errors":      0,
		"phy_fec_corrected_bits":     0,
		"phy_link_down_events":       0,
		"rx_discards":                -1, // [N]: rx_discards are per ring, not the RDMA port's
		"rx_bytes":                   -1,
	}
	for _, b := range []string{"rx_pfc_pause_frames", "tx_pfc_pause_frames", "rx_pfc_pause_duration", "tx_pfc_pause_duration",
		"rx_pfc_pause_transitions", "tx_pfc_pause_transitions", "rx_prio_bytes", "rx_prio_packets", "tx_prio_bytes", "tx_prio_packets"} {
		for n, v := range perPrio(b, 0) {
			want[n] = v
		}
	}
	wantCanonical(t, "bnxt_en", got, want)
	if m, _ := MapFrom("bnxt_en", SourceEthtool, "pfc_pri3_rx_duration_us"); m.Scale != 1 || Lookup(m.Canonical).Unit != UnitMicros || m.Priority != 3 {
		t.Errorf("bnxt pause duration: %+v", m)
	}
	for n := range st {
		if n[0] == '[' {
			if m, ok := MapFrom("bnxt_en", SourceEthtool, n); ok {
				t.Errorf("per-ring %q mapped to %s", n, m.Canonical)
			}
		}
	}
}

// ice: PFC XOFF/XON per priority and 802.3x, from the ".nic" port counters.
func TestRealICEEthtool(t *testing.T) {
	got := canonicalOf(t, "ice", realStats(t, "ethtool_S_ice_ethq.txt"))
	want := map[string]int64{
		"rx_global_pause_frames":      0,
		"tx_global_pause_frames":      0,
		"rx_global_resume_frames":     0,
		"tx_global_resume_frames":     0,
		"phy_rx_bytes":                848255752,
		"phy_tx_bytes":                74057390445,
		"phy_rx_discards":             0,
		"phy_tx_discards":             0,
		"phy_rx_crc_errors":           0,
		"rx_bytes":                    -1, // the netdev's rx_bytes is not the RDMA port's
		"rx_pfc_pause_duration_prio3": -1, // ice counts no paused time
	}
	for _, b := range []string{"rx_pfc_pause_frames", "tx_pfc_pause_frames", "rx_pfc_resume_frames", "tx_pfc_resume_frames"} {
		for n, v := range perPrio(b, 0) {
			want[n] = v
		}
	}
	wantCanonical(t, "ice", got, want)
	// i40e (X722) shares irdma with ice but not ice's ethtool names.
	if tb := TableFor("i40e", SourceEthtool); tb != "" {
		t.Errorf("i40e ethtool table %q, want none", tb)
	}
}

// mlx5 in-tree 4.15, PFC off: 802.3x pause and PHY discards read, no
// per-priority pause counter.
func TestRealMLX5K415Ethtool(t *testing.T) {
	got := canonicalOf(t, "mlx5_core", realStats(t, "ethtool_S_mlx5_cx4_k4.15_ethq.txt"))
	want := map[string]int64{
		"rx_global_pause_frames":      0,
		"rx_global_pause_duration":    0,
		"tx_global_pause_frames":      0,
		"tx_global_pause_duration":    0,
		"rx_global_pause_transitions": 0,
		"phy_rx_discards":             0,
		"phy_rx_pause_frames":         0,
		"netdev_rx_out_of_buffer":     0,
		"phy_rx_packets":              845715962,
		"rx_prio_bytes_prio0":         2202570777997,
		"pause_storm_error_events":    -1,
	}
	for n := range perPrio("rx_pfc_pause_frames", -1) {
		want[n] = -1
	}
	wantCanonical(t, "mlx5 4.15", got, want)
}

// An older mlx5_core's names (before the _phy rename) map to the same
// canonical names as today's.
func TestRealMLX5OldEthtool(t *testing.T) {
	got := canonicalOf(t, "mlx5_core", realStats(t, "ethtool_S_mlx5_cx4_old_driver_names_ethq.txt"))
	wantCanonical(t, "old mlx5", got, map[string]int64{
		"phy_rx_packets":      5487361,
		"phy_tx_packets":      5116718,
		"phy_rx_bytes":        1084993260,
		"phy_tx_bytes":        5834192580,
		"phy_rx_discards":     0,
		"phy_tx_discards":     0,
		"phy_rx_pause_frames": 0,
		"phy_tx_pause_frames": 0,
		"phy_rx_crc_errors":   0,
		"phy_symbol_errors":   0,
	})
}

// A grep'd mlx5 paste maps what it has: per-priority traffic only.
func TestRealGrepEthtool(t *testing.T) {
	got := canonicalOf(t, "mlx5", realStats(t, "ethtool_S_grep_prio_mlx5_byteps179_2_after_bench_PARTIAL.txt"))
	wantCanonical(t, "grep prio", got, map[string]int64{
		"rx_prio_bytes_prio0":       88171136852706,
		"tx_prio_packets_prio0":     40304494275,
		"tx_prio_bytes_prio4":       0,
		"tx_prio_packets_prio4":     -1, // the paste stops before it
		"rx_pfc_pause_frames_prio0": -1,
	})
}

// The netdev driver picks the ethtool table; an RDMA driver spelling picks
// its netdev's.
func TestEthtoolTableFor(t *testing.T) {
	for drv, want := range map[string]string{
		"mlx5_core": TableMLX5Ethtool, "mlx5_ib.rdma": TableMLX5Ethtool,
		"bnxt_en": TableBNXTEthtool, "bnxt_re": TableBNXTEthtool, "BNXT_EN": TableBNXTEthtool,
		"ice": TableICEEthtool, "irdma": "", "i40e": "", "veth": "", "": "",
	} {
		if got := TableFor(drv, SourceEthtool); got != want {
			t.Errorf("TableFor(%q, ethtool) = %q, want %q", drv, got, want)
		}
	}
}
