package ethtool

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"
)

func TestParseTrimsNames(t *testing.T) {
	c := Parse(map[string]uint64{
		"tx_pause_storm_warning_events ": 7, // an older kernel's spelling
		" rx_prio3_pause":                5,
		"   ":                            1, // nothing left after trimming: dropped
	})
	wantVal(t, "warning events", c.PauseStorm.WarningEvents, 7)
	wantVal(t, "prio3 rx_pause", c.Prio[3].RxPause, 5)
	want := map[string]uint64{"tx_pause_storm_warning_events": 7, "rx_prio3_pause": 5}
	if !maps.Equal(c.Raw, want) {
		t.Errorf("Raw = %v, want %v", c.Raw, want)
	}

	// Both spellings: the exact name wins, whatever the map order.
	for range 20 {
		c := Parse(map[string]uint64{"tx_pause_storm_error_events ": 1, "tx_pause_storm_error_events": 2})
		wantVal(t, "error events", c.PauseStorm.ErrorEvents, 2)
		if len(c.Raw) != 1 {
			t.Fatalf("Raw = %v", c.Raw)
		}
	}
}

func TestParsePriorityNames(t *testing.T) {
	in := map[string]uint64{
		"rx_prio0_pause": 1, "tx_prio7_pause": 2,
		"rx_prio5_pause_duration": 3, "tx_prio5_pause_duration": 4,
		"rx_prio5_pause_transition": 5, "tx_prio5_pause_transition": 6,
		"rx_prio2_buf_discard": 7, "rx_prio2_cong_discard": 8, "rx_prio2_marked": 9,
		"rx_prio1_discards": 10,
		// Not per-priority counters of the view: kept in Raw only.
		"rx_prio8_pause": 11, "rx_prio10_pause": 12, "tx_prio1_discards": 13,
		"rx_prio3_weird": 14, "rx_prio3": 15, "rx_prioX_pause": 16, "rx_prio3pause": 17,
		"xx_prio3_pause": 18,
	}
	c := Parse(in)
	wantVal(t, "rx_prio0_pause", c.Prio[0].RxPause, 1)
	wantVal(t, "tx_prio7_pause", c.Prio[7].TxPause, 2)
	wantVal(t, "rx_prio5_pause_duration", c.Prio[5].RxPauseDurationUs, 3)
	wantVal(t, "tx_prio5_pause_duration", c.Prio[5].TxPauseDurationUs, 4)
	wantVal(t, "rx_prio5_pause_transition", c.Prio[5].RxPauseTransition, 5)
	wantVal(t, "tx_prio5_pause_transition", c.Prio[5].TxPauseTransition, 6)
	wantVal(t, "rx_prio2_buf_discard", c.Prio[2].RxBufDiscard, 7)
	wantVal(t, "rx_prio2_cong_discard", c.Prio[2].RxCongDiscard, 8)
	wantVal(t, "rx_prio2_marked", c.Prio[2].RxMarked, 9)
	wantVal(t, "rx_prio1_discards", c.Prio[1].RxDiscards, 10)
	if got := c.PFCPriorities(); !reflect.DeepEqual(got, []int{0, 5, 7}) {
		t.Errorf("PFCPriorities = %v, want [0 5 7]", got)
	}
	// Count every pointer set anywhere in the view: exactly the 10 above.
	if n := countPresent(reflect.ValueOf(c)); n != 10 {
		t.Errorf("%d typed counters present, want 10", n)
	}
	if !maps.Equal(c.Raw, in) {
		t.Errorf("Raw differs from the input")
	}
}

func TestParseLanesAndFEC(t *testing.T) {
	c := Parse(map[string]uint64{
		"rx_err_lane_0_phy": 1, "rx_err_lane_7_phy": 2,
		"rx_err_lane__phy": 3, "rx_err_lane_x_phy": 4, "rx_err_lane_-1_phy": 5, "rx_err_lane_+1_phy": 6,
		"rx_fec_corrected_blocks": 20, "rx_fec_uncorrectable_blocks": 21, "tx_fec_blocks": 22,
	})
	if want := map[int]uint64{0: 1, 7: 2}; !maps.Equal(c.PHY.RxErrLane, want) {
		t.Errorf("lanes = %v, want %v", c.PHY.RxErrLane, want)
	}
	if want := map[string]uint64{"rx_fec_corrected_blocks": 20, "rx_fec_uncorrectable_blocks": 21, "tx_fec_blocks": 22}; !maps.Equal(c.PHY.FEC, want) {
		t.Errorf("FEC = %v, want %v", c.PHY.FEC, want)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, in := range []map[string]uint64{nil, {}} {
		c := Parse(in)
		if c.Raw == nil || len(c.Raw) != 0 || countPresent(reflect.ValueOf(c)) != 0 {
			t.Errorf("Parse(%v) = %+v", in, c)
		}
	}
}

// The view's pointers are independent values: they survive a JSON round trip.
func TestParseJSONRoundTrip(t *testing.T) {
	c := Parse(loadFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t1.txt"))
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Counters
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Errorf("JSON round trip changed the view")
	}
	// And the recorder's raw form replays through Parse to the same view.
	raw := Raw{Iface: "eth0", Driver: "mlx5_core", Stats: c.Raw}
	rb, _ := json.Marshal(raw)
	var rback Raw
	if err := json.Unmarshal(rb, &rback); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(Parse(rback.Stats), c) {
		t.Errorf("replaying the recorded raw map gives another view")
	}
}

func TestUnit(t *testing.T) {
	for name, want := range map[string]struct {
		unit  string
		gauge bool
	}{
		"rx_prio3_pause_duration":     {"us", false},
		"tx_global_pause_duration":    {"us", false},
		"rx_prio3_pause":              {"", false},
		"rx_prio3_bytes":              {"bytes", false},
		"rx_bytes_phy":                {"bytes", false},
		"tx_bytes_phy":                {"bytes", false},
		"rx_64_bytes_phy":             {"packets", false},
		"rx_1519_to_2047_bytes_phy":   {"packets", false},
		"rx_vport_rdma_unicast_bytes": {"bytes", false},
		"rx_prio3_packets":            {"packets", false},
		"rx_oversize_pkts_phy":        {"packets", false},
		"rx_corrected_bits_phy":       {"bits", false},
		"outbound_pci_stalled_rd":     {"percent", true},
		"outbound_pci_stalled_wr":     {"percent", true},
		"peer_ifindex":                {"", true},
		"rx_crc_errors_phy":           {"", false},
	} {
		u, g := Unit(name)
		if u != want.unit || g != want.gauge {
			t.Errorf("Unit(%q) = %q, %v; want %q, %v", name, u, g, want.unit, want.gauge)
		}
	}
}

// countPresent counts non-nil *uint64 and map entries reachable from v,
// except Raw.
func countPresent(v reflect.Value) int {
	n := 0
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			n++
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).Name == "Raw" {
				continue
			}
			n += countPresent(v.Field(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			n += countPresent(v.Index(i))
		}
	case reflect.Map:
		n += v.Len()
	}
	return n
}
