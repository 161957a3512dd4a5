package sysfs

import (
	"testing"
	"testing/fstest"
)

// realIBCounters is ports/1/counters of mlx5_1 on a ConnectX-7 GPU node,
// value for value as posted (testdata/real/ib_counters_find_cat_mlx5_1_gpud943.txt;
// the listing format itself is read elsewhere): three legacy PMA counters
// stuck at the maximum of their width.
var realIBCounters = map[string]string{
	"unicast_rcv_packets":             "240037171331",
	"port_xmit_data":                  "205143497464492",
	"port_xmit_constraint_errors":     "0",
	"VL15_dropped":                    "0",
	"port_rcv_errors":                 "0",
	"port_xmit_wait":                  "4294967295",
	"link_error_recovery":             "0",
	"multicast_rcv_packets":           "0",
	"multicast_xmit_packets":          "0",
	"port_rcv_remote_physical_errors": "0",
	"port_rcv_packets":                "240037171331",
	"unicast_xmit_packets":            "242071897216",
	"excessive_buffer_overrun_errors": "15",
	"port_rcv_data":                   "205128687774249",
	"port_rcv_constraint_errors":      "0",
	"link_downed":                     "255",
	"local_link_integrity_errors":     "0",
	"port_xmit_discards":              "65535",
	"port_rcv_switch_relay_errors":    "2",
	"port_xmit_packets":               "242071897216",
	"symbol_error":                    "0",
}

// The real counters read exactly; the ones at their width's maximum are
// flagged saturated (excessive_buffer_overrun_errors is 4 bits: 15), the
// 64-bit extended-set ones are not.
func TestRealIBCountersSaturated(t *testing.T) {
	m := fstest.MapFS{}
	dir := "sys/class/infiniband/mlx5_1/ports/1/counters/"
	for n, v := range realIBCounters {
		m[dir+n] = &fstest.MapFile{Data: []byte(v + "\n")}
	}
	s := readSet(t, m, "mlx5_1", 1)
	if len(s.Counters) != 21 || len(s.Errors) != 0 || s.PMASet != PMAExtended {
		t.Fatalf("%d counters, errors %v, set %s", len(s.Counters), s.Errors, s.PMASet)
	}
	saturated := map[string]bool{"port_xmit_wait": true, "port_xmit_discards": true, "link_downed": true, "excessive_buffer_overrun_errors": true}
	for _, c := range s.Counters {
		if c.Saturated() != saturated[c.Name] {
			t.Errorf("%s = %d: saturated %v", c.Name, c.Value, c.Saturated())
		}
	}
	for n, want := range map[string]uint64{"port_xmit_wait": 1<<32 - 1, "port_xmit_discards": 65535, "link_downed": 255,
		"port_xmit_data": 205143497464492, "unicast_rcv_packets": 240037171331} {
		if c := get(t, s, SourcePMA, n); c.Value != want {
			t.Errorf("%s = %d, want %d", n, c.Value, want)
		}
	}
	for _, pc := range s.ProbeCounters() {
		if pc.Saturated != saturated[pc.Native] {
			t.Errorf("probe counter %s (%s): saturated %v", pc.Name, pc.Native, pc.Saturated)
		}
	}
}

// Saturation by width: the IBTA widths at their maxima, 2^64-1 always,
// and never a wrapping counter of known width at its maximum.
func TestCounterSaturated(t *testing.T) {
	for _, c := range []struct {
		name string
		v    uint64
		meta Meta
		want bool
	}{
		{"symbol_error", 65535, pmaCounterMeta("symbol_error", PMAExtended), true},
		{"symbol_error", 65534, pmaCounterMeta("symbol_error", PMAExtended), false},
		{"link_error_recovery", 255, pmaCounterMeta("link_error_recovery", PMAExtended), true},
		{"port_rcv_errors", 65535, pmaCounterMeta("port_rcv_errors", PMAExtended), true},
		{"VL15_dropped", 65535, pmaCounterMeta("VL15_dropped", PMAExtended), true},
		{"port_xmit_wait", 1<<32 - 1, pmaCounterMeta("port_xmit_wait", PMAExtended), true},
		{"port_xmit_data", 1<<32 - 1, pmaCounterMeta("port_xmit_data", PMALegacyOrNoIETF), true}, // legacy 32-bit assumed
		{"port_xmit_data", 1<<32 - 1, pmaCounterMeta("port_xmit_data", PMAExtended), false},      // 64-bit: just a value
		{"port_xmit_data", 1<<64 - 1, pmaCounterMeta("port_xmit_data", PMAExtended), true},
		{"new_pma_counter", 65535, pmaCounterMeta("new_pma_counter", PMAExtended), true}, // width unknown, saturates
		{"out_of_buffer", 1<<32 - 1, hwCounterMeta("mlx5", "out_of_buffer"), false},      // 32-bit, wraps
		{"np_cnp_sent", 1<<64 - 1, hwCounterMeta("mlx5", "np_cnp_sent"), true},
		{"vendor_thing", 1<<32 - 1, hwCounterMeta("bnxt_re", "vendor_thing"), false}, // width unknown, may wrap
		{"vendor_thing", 1<<64 - 1, hwCounterMeta("bnxt_re", "vendor_thing"), true},
	} {
		if got := (Counter{Name: c.name, Value: c.v, Meta: c.meta}).Saturated(); got != c.want {
			t.Errorf("%s = %d (%+v): saturated %v, want %v", c.name, c.v, c.meta, got, c.want)
		}
	}
}

// "N/A (no PMA)" is the kernel saying a counter has no value: unavailable,
// not zero and not a parse failure.
func TestParseCounterValueUnavailable(t *testing.T) {
	for in, want := range map[string]uint64{"4294967295\n": 1<<32 - 1, "65535\n": 65535, "255\n": 255, " 15 ": 15, "18446744073709551615": 1<<64 - 1} {
		if v, na, err := ParseCounterValue(in); err != nil || na || v != want {
			t.Errorf("ParseCounterValue(%q) = %d, %v, %v", in, v, na, err)
		}
	}
	for _, in := range []string{"N/A (no PMA)\n", "N/A (no PMA)", " N/A\n"} {
		if v, na, err := ParseCounterValue(in); err != nil || !na || v != 0 {
			t.Errorf("ParseCounterValue(%q) = %d, %v, %v; want unavailable", in, v, na, err)
		}
	}
	for _, in := range []string{"", "NA", "n/a", "-1", "0x10"} {
		if _, na, err := ParseCounterValue(in); err == nil || na {
			t.Errorf("ParseCounterValue(%q) accepted (unavailable %v)", in, na)
		}
	}

	// Read from a device: noted as unavailable, not read as a counter.
	m := mapCopy(t, "mlx5-roce-cx6dx-t0")
	m[mlx5_0Dir+"/ports/1/counters/symbol_error"].Data = []byte("N/A (no PMA)\n")
	s, err := ReadCounters(m, "mlx5_0", 1, "")
	if err != nil {
		t.Fatal(err)
	}
	e := oneError(t, s, "symbol_error", KindUnavailable)
	if e.Source != SourcePMA {
		t.Errorf("%+v", e)
	}
	if _, ok := s.Get(SourcePMA, "symbol_error"); ok {
		t.Error("an unavailable counter read as a value")
	}
}
