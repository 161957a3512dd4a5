package sysfs

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rdmatop/rdmatop/probes"
)

func readSet(t *testing.T, fsys fs.FS, dev string, port int) CounterSet {
	t.Helper()
	s, err := ReadCounters(fsys, dev, port, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func get(t *testing.T, s CounterSet, src Source, name string) Counter {
	t.Helper()
	c, ok := s.Get(src, name)
	if !ok {
		t.Fatalf("%s/%d: no %s/%s", s.Device, s.Port, src, name)
	}
	return c
}

// Exact values, units and widths of the mlx5 RoCE fixture.
func TestCountersMLX5(t *testing.T) {
	s := readSet(t, fixture("mlx5-roce-cx6dx-t0"), "mlx5_0", 1)
	if !s.PMA || !s.HW || s.PMASet != PMAExtended || s.Driver != "mlx5" || len(s.Errors) != 0 {
		t.Fatalf("set pma %v hw %v set %q driver %q errors %v", s.PMA, s.HW, s.PMASet, s.Driver, s.Errors)
	}
	if len(s.Counters) != 21+31 { // 21 PMA files, 32 hw_counters files minus lifespan
		t.Errorf("%d counters", len(s.Counters))
	}
	if s.LifespanMS == nil || *s.LifespanMS != 10 {
		t.Errorf("lifespan %v", s.LifespanMS)
	}
	if _, ok := s.Get(SourceHW, "lifespan"); ok {
		t.Error("lifespan is a setting, not a counter")
	}
	data := get(t, s, SourcePMA, "port_xmit_data")
	if data.Value != 1893740012233 || data.Meta.Unit != UnitWords || data.Meta.Bits != 64 || data.Meta.Overflow != Saturates || data.Meta.BytesPerUnit != 4 {
		t.Errorf("port_xmit_data %+v", data)
	}
	if b, ok := data.Bytes(); !ok || b != 4*1893740012233 {
		t.Errorf("port_xmit_data bytes %d %v", b, ok)
	}
	if c := get(t, s, SourcePMA, "port_rcv_data"); c.Value != 2011873400017 || c.Meta.Unit != UnitWords {
		t.Errorf("port_rcv_data %+v", c)
	}
	for name, bits := range map[string]int{"symbol_error": 16, "link_error_recovery": 8, "link_downed": 8, "local_link_integrity_errors": 4, "excessive_buffer_overrun_errors": 4, "VL15_dropped": 16, "port_xmit_wait": 32, "unicast_xmit_packets": 64, "port_rcv_packets": 64} {
		if c := get(t, s, SourcePMA, name); c.Meta.Bits != bits || c.Meta.Overflow != Saturates || c.Meta.Behavior() != probes.Saturates {
			t.Errorf("%s meta %+v, want %d-bit saturating", name, c.Meta, bits)
		}
	}
	if c := get(t, s, SourcePMA, "port_xmit_packets"); c.Value != 471822013 || c.Meta.Unit != "packets" {
		t.Errorf("port_xmit_packets %+v", c)
	}
	for name, want := range map[string]uint64{"np_cnp_sent": 731022, "np_ecn_marked_roce_packets": 1204511, "out_of_sequence": 37, "packet_seq_err": 9, "duplicate_request": 12, "local_ack_timeout_err": 3} {
		if c := get(t, s, SourceHW, name); c.Value != want {
			t.Errorf("%s = %d, want %d", name, c.Value, want)
		}
	}
	oos := get(t, s, SourceHW, "out_of_sequence")
	if oos.Meta.Bits != 32 || oos.Meta.Overflow != Wraps || oos.Meta.Width() != 32 || oos.Meta.Behavior() != probes.Wraps || oos.Meta.Unit != "packets" {
		t.Errorf("q-counter meta %+v", oos.Meta)
	}
	cnp := get(t, s, SourceHW, "np_cnp_sent")
	if cnp.Meta.Bits != 64 || cnp.Meta.Width() != 0 || cnp.Meta.Overflow != Wraps {
		t.Errorf("congestion counter meta %+v", cnp.Meta)
	}
	if _, ok := cnp.Bytes(); ok {
		t.Error("np_cnp_sent does not count bytes")
	}

	// mlx5_1 is down: every counter is there, and 0.
	s1 := readSet(t, fixture("mlx5-roce-cx6dx-t0"), "mlx5_1", 1)
	if len(s1.Counters) != 52 {
		t.Errorf("mlx5_1: %d counters", len(s1.Counters))
	}
	for _, c := range s1.Counters {
		if c.Value != 0 {
			t.Errorf("mlx5_1 %s = %d", c.Name, c.Value)
		}
	}
}

// The t0→t1 pair: deltas through probes.Delta with this package's
// metadata, data counters in 4-byte words.
func TestCountersDelta(t *testing.T) {
	s0 := readSet(t, fixture("mlx5-roce-cx6dx-t0"), "mlx5_0", 1)
	s1 := readSet(t, fixture("mlx5-roce-cx6dx-t1"), "mlx5_0", 1)
	want := map[string]uint64{
		"port_rcv_data":              144000000000, // words: 576 GB in 60 s
		"port_xmit_data":             174000000000,
		"np_cnp_sent":                3382003 - 731022,
		"np_ecn_marked_roce_packets": 5105644 - 1204511,
		"out_of_sequence":            4150 - 37,
		"packet_seq_err":             1386 - 9,
		"duplicate_request":          400 - 12,
		"local_ack_timeout_err":      215 - 3,
	}
	for _, c1 := range s1.Counters {
		c0, ok := s0.Get(c1.Source, c1.Name)
		if !ok {
			t.Fatalf("%s missing at t0", c1.Name)
		}
		d, known, note := probes.Delta(c0.Value, c1.Value, c1.Meta.Width(), c1.Meta.Behavior())
		if !known || note != probes.NoteNone {
			t.Errorf("%s: delta unknown (%s)", c1.Name, note)
		}
		if w, ok := want[c1.Name]; ok && d != w {
			t.Errorf("%s delta %d, want %d", c1.Name, d, w)
		}
	}
	c := get(t, s1, SourcePMA, "port_rcv_data")
	c.Value = 144000000000
	if b, _ := c.Bytes(); b != 576000000000 {
		t.Errorf("576 GB expected, got %d bytes", b)
	}
}

// A legacy PMA set: 32-bit data counters saturate at 2^32-1.
func TestCountersLegacyPMA(t *testing.T) {
	m := mapCopy(t, "mlx5-roce-cx6dx-t0")
	pma := "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0/ports/1/counters/"
	for _, n := range []string{"unicast_xmit_packets", "unicast_rcv_packets", "multicast_xmit_packets", "multicast_rcv_packets"} {
		delete(m, pma+n)
	}
	m[pma+"port_xmit_data"].Data = []byte("4294967295\n")
	m[pma+"port_rcv_data"].Data = []byte("12345\n")
	m[pma+"port_xmit_packets"].Data = []byte("1000\n")
	m[pma+"port_rcv_packets"].Data = []byte("1000\n")
	s := readSet(t, m, "mlx5_0", 1)
	if s.PMASet != PMALegacyOrNoIETF {
		t.Errorf("set %q", s.PMASet)
	}
	c := get(t, s, SourcePMA, "port_xmit_data")
	if c.Meta.Bits != 32 || !c.Meta.Saturated(c.Value) || c.Meta.Note == "" {
		t.Errorf("legacy port_xmit_data %+v", c)
	}
	if _, _, note := probes.Delta(4294967000, c.Value, c.Meta.Width(), c.Meta.Behavior()); note != probes.NoteSaturated {
		t.Errorf("note %s", note)
	}
	if get(t, s, SourcePMA, "port_rcv_data").Meta.Saturated(12345) {
		t.Error("12345 is not saturated")
	}
	// A value above 2^32-1 proves the 64-bit noietf set.
	m[pma+"port_rcv_data"].Data = []byte("4294967296\n")
	if s := readSet(t, m, "mlx5_0", 1); s.PMASet != PMANoIETF || get(t, s, SourcePMA, "port_xmit_data").Meta.Bits != 64 {
		t.Errorf("noietf: set %q", s.PMASet)
	}
}

// Real Soft-RoCE counters: no counters/ directory, 64-bit hw_counters.
func TestCountersRXE(t *testing.T) {
	s := readSet(t, rxeTar(t, "sysfs-final.tar.gz"), "rxe0", 1)
	if s.PMA || !s.HW || s.PMASet != "" || s.Driver != "rxe" || len(s.Errors) != 0 {
		t.Fatalf("rxe0 set %+v", s)
	}
	if len(s.Counters) != 15 || *s.LifespanMS != 12 {
		t.Errorf("%d counters, lifespan %v", len(s.Counters), s.LifespanMS)
	}
	for name, want := range map[string]uint64{"sent_pkts": 142263, "rcvd_pkts": 17548, "completer_retry_err": 653, "rcvd_seq_err": 24, "link_downed": 1, "ack_deferred": 14} {
		c := get(t, s, SourceHW, name)
		if c.Value != want || c.Meta.Bits != 64 || c.Meta.Overflow != Wraps {
			t.Errorf("%s %+v, want %d 64-bit", name, c, want)
		}
	}
	if u := get(t, s, SourceHW, "sent_pkts").Meta.Unit; u != "packets" {
		t.Errorf("sent_pkts unit %q", u)
	}
	if s.Port != 1 || s.Device != "rxe0" {
		t.Errorf("ref %s/%d", s.Device, s.Port)
	}
}

// Unknown names are kept, with unknown width; the device-level
// hw_counters (port 0) are read when a device has them.
func TestCountersUnknownKept(t *testing.T) {
	m := mapCopy(t, "mlx5-roce-cx6dx-t0")
	dev := "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0"
	m[dev+"/ports/1/hw_counters/brand_new_counter"] = &fstest.MapFile{Data: []byte("42\n")}
	m[dev+"/ports/1/counters/port_something_new"] = &fstest.MapFile{Data: []byte("7\n")}
	m[dev+"/hw_counters/device_wide_thing"] = &fstest.MapFile{Data: []byte("5\n")}
	m[dev+"/hw_counters/lifespan"] = &fstest.MapFile{Data: []byte("10\n")}
	s := readSet(t, m, "mlx5_0", 1)
	if c := get(t, s, SourceHW, "brand_new_counter"); c.Value != 42 || c.Meta.Bits != 0 || c.Meta.Width() != 0 || c.Meta.Note == "" {
		t.Errorf("unknown hw counter %+v", c)
	}
	if c := get(t, s, SourcePMA, "port_something_new"); c.Value != 7 || c.Meta.Overflow != Saturates {
		t.Errorf("unknown PMA counter %+v", c)
	}
	devs, err := Discover(m)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := ReadAllCounters(m, devs)
	if err != nil || len(sets) != 3 {
		t.Fatalf("sets %d, %v", len(sets), err)
	}
	if d := sets[0]; d.Port != 0 || d.PMA || !d.HW || len(d.Counters) != 1 || d.Counters[0].Value != 5 {
		t.Errorf("device-level set %+v", d)
	}
	js, err := json.Marshal(sets[1])
	if err != nil || !strings.Contains(string(js), `"name":"brand_new_counter","source":"hw_counters","value":42`) {
		t.Errorf("json %s %v", js, err)
	}
}

// The snapshot model's counters: canonical names where the alias table
// has them, in the canonical unit (port_rcv_data's 4-byte words become
// rx_bytes in bytes, the words kept as native_value), widths and
// behaviours for probes.Rates.
func TestProbeCounters(t *testing.T) {
	s0 := readSet(t, fixture("mlx5-roce-cx6dx-t0"), "mlx5_0", 1)
	s1 := readSet(t, fixture("mlx5-roce-cx6dx-t1"), "mlx5_0", 1)
	prev, cur := s0.ProbeCounters(), s1.ProbeCounters()
	probes.Rates(prev, cur, 60)
	byName := map[string]probes.Counter{}
	for _, c := range cur {
		byName[c.Name] = c
	}
	rx := byName["rx_bytes"]
	words := get(t, s1, SourcePMA, "port_rcv_data").Value
	if rx.Native != "port_rcv_data" || rx.Source != "counters" || rx.Unit != "bytes" || rx.Value != 4*words || rx.NativeValue == nil || *rx.NativeValue != words ||
		rx.Width != 0 || rx.Behavior != probes.Saturates || *rx.Delta != 4*144000000000 || *rx.Rate != 4*2.4e9 {
		t.Errorf("rx_bytes %+v", rx)
	}
	for _, c := range cur {
		if c.Name != "rx_bytes" && c.Name != "tx_bytes" && (c.NativeValue != nil || c.Unit == UnitWords) {
			t.Errorf("%s is not scaled, yet %+v", c.Name, c)
		}
	}
	cnp := byName["cnp_sent"]
	if cnp.Native != "np_cnp_sent" || cnp.Source != "hw_counters" || *cnp.Delta != 3382003-731022 {
		t.Errorf("cnp_sent %+v", cnp)
	}
	oos := byName["out_of_sequence"]
	if oos.Width != 32 || oos.Behavior != probes.Wraps || oos.Unit != "packets" {
		t.Errorf("out_of_sequence %+v", oos)
	}
	if c, ok := byName["rx_dct_connect"]; !ok || c.Native != "rx_dct_connect" {
		t.Errorf("unmapped names keep their native name: %+v", c)
	}
	rxe := readSet(t, rxeTar(t, "sysfs-final.tar.gz"), "rxe0", 1)
	names := map[string]bool{}
	for _, c := range rxe.ProbeCounters() {
		names[c.Name] = true
	}
	for _, n := range []string{"tx_packets", "rx_packets", "retransmit_rounds", "packet_seq_err", "ack_deferred"} {
		if !names[n] {
			t.Errorf("rxe: no %s in %v", n, names)
		}
	}
}
