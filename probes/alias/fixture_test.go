package alias

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const testdata = "../../testdata"

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// checkNames maps every name of a real fixture: the key ones must map to
// the given canonical names, and the ones that do not map must be exactly
// the expected list (so that adding or losing a mapping is deliberate).
func checkNames(t *testing.T, driver string, names []string, want map[string]string, unmapped []string) {
	t.Helper()
	var got []string
	for _, n := range names {
		m, ok := Map(driver, n)
		if !ok {
			got = append(got, n)
			continue
		}
		if w, key := want[n]; key && m.Canonical != w {
			t.Errorf("%s %s → %s, want %s", driver, n, m.Canonical, w)
		}
		if Lookup(m.Canonical).Name == "" {
			t.Errorf("%s %s → %s, which Lookup does not know", driver, n, m.Canonical)
		}
		delete(want, n)
	}
	for n := range want {
		t.Errorf("%s: key counter %s is not in the fixture or not mapped", driver, n)
	}
	sort.Strings(got)
	sort.Strings(unmapped)
	if strings.Join(got, ",") != strings.Join(unmapped, ",") {
		t.Errorf("%s unmapped names\n got  %v\n want %v", driver, got, unmapped)
	}
}

// The names of the mlx5 fixture (ConnectX-6 Dx, RoCE) map.
func TestMLX5FixtureNames(t *testing.T) {
	port := filepath.Join(testdata, "sysfs/mlx5-roce-cx6dx-t0/sys/class/infiniband/mlx5_0/ports/1")
	names := append(dirNames(t, filepath.Join(port, "hw_counters")), dirNames(t, filepath.Join(port, "counters"))...)
	checkNames(t, "mlx5", names, map[string]string{
		"np_cnp_sent":                    "cnp_sent",
		"rp_cnp_handled":                 "cnp_handled",
		"rp_cnp_ignored":                 "cnp_ignored",
		"np_ecn_marked_roce_packets":     "ecn_marked_roce_packets",
		"out_of_sequence":                "out_of_sequence",
		"packet_seq_err":                 "packet_seq_err",
		"local_ack_timeout_err":          "local_ack_timeout_err",
		"rnr_nak_retry_err":              "rnr_nak_retry_err",
		"implied_nak_seq_err":            "implied_nak_seq_err",
		"out_of_buffer":                  "out_of_buffer",
		"duplicate_request":              "duplicate_request",
		"req_transport_retries_exceeded": "retry_exceeded_err",
		"req_rnr_retries_exceeded":       "rnr_retry_exceeded_err",
		"rx_icrc_encapsulated":           "icrc_errors",
		"port_xmit_data":                 "tx_bytes",
		"port_rcv_data":                  "rx_bytes",
		"port_xmit_packets":              "tx_packets",
		"port_rcv_packets":               "rx_packets",
		"link_downed":                    "link_downed",
		"link_error_recovery":            "link_error_recovery",
		"symbol_error":                   "symbol_error",
		"VL15_dropped":                   "vl15_dropped",
	}, []string{"lifespan", "roce_slow_restart_cnps", "roce_slow_restart_trans", "rx_dct_connect"})
	if m, _ := Map("mlx5", "port_rcv_data"); m.Scale != 4 {
		t.Errorf("port_rcv_data scale %d, want 4 (4-byte words)", m.Scale)
	}
}

// The names the real Soft-RoCE kernel (6.1) exposed map.
func TestRXEFixtureNames(t *testing.T) {
	f, err := os.Open(filepath.Join(testdata, "sysfs/rxe/sysfs-final.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if path.Dir(path.Clean(h.Name)) == "sys/class/infiniband/rxe0/ports/1/hw_counters" {
			names = append(names, path.Base(h.Name))
		}
	}
	if len(names) != 16 {
		t.Fatalf("rxe0 hw_counters: %d names %v", len(names), names)
	}
	checkNames(t, "rxe", names, map[string]string{
		"sent_pkts":              "tx_packets",
		"rcvd_pkts":              "rx_packets",
		"duplicate_request":      "duplicate_request",
		"out_of_seq_request":     "out_of_sequence",
		"rcvd_rnr_err":           "rnr_nak_retry_err",
		"send_rnr_err":           "rnr_nak_sent",
		"rcvd_seq_err":           "packet_seq_err",
		"retry_exceeded_err":     "retry_exceeded_err",
		"retry_rnr_exceeded_err": "rnr_retry_exceeded_err",
		"completer_retry_err":    "retransmit_rounds",
		"link_downed":            "link_downed",
	}, []string{"ack_deferred", "lifespan", "rdma_recvs", "rdma_sends", "send_err"})
}

func ethtoolNames(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata, "alias", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.HasPrefix(sc.Text(), "     ") {
			out = append(out, strings.TrimSpace(name))
		}
	}
	return out
}

// The RoCE-relevant mlx5 ethtool names map: PFC per priority, pause storms,
// discards, PHY errors, and 802.3x pause in the real LKML dump.
func TestMLX5EthtoolNames(t *testing.T) {
	want := map[string]string{
		"rx_prio3_pause":                "rx_pfc_pause_frames_prio3",
		"rx_prio3_pause_duration":       "rx_pfc_pause_duration_prio3",
		"tx_prio3_pause":                "tx_pfc_pause_frames_prio3",
		"tx_prio3_pause_duration":       "tx_pfc_pause_duration_prio3",
		"rx_prio3_pause_transition":     "rx_pfc_pause_transitions_prio3",
		"tx_pause_storm_warning_events": "pause_storm_warning_events",
		"tx_pause_storm_error_events":   "pause_storm_error_events",
		"rx_discards_phy":               "phy_rx_discards",
		"rx_prio3_discards":             "rx_prio_discards_prio3",
		"rx_crc_errors_phy":             "phy_rx_crc_errors",
		"rx_pcs_symbol_err_phy":         "phy_pcs_symbol_errors",
		"rx_corrected_bits_phy":         "phy_fec_corrected_bits",
		"link_down_events_phy":          "phy_link_down_events",
		"rx_buffer_passed_thres_phy":    "rx_buffer_threshold_events",
		"rx_out_of_buffer":              "netdev_rx_out_of_buffer",
	}
	found := 0
	for _, n := range ethtoolNames(t, "mlx5_cx6dx_eth0_roce_pfc3_t1.txt") {
		m, ok := Map(TableMLX5Ethtool, n)
		if w, key := want[n]; key {
			found++
			if !ok || m.Canonical != w {
				t.Errorf("%s → %+v %v, want %s", n, m, ok, w)
			}
		}
	}
	if found != len(want) {
		t.Errorf("found %d of the %d key names in the fixture", found, len(want))
	}
	lkml := map[string]string{}
	for _, n := range ethtoolNames(t, "mlx5_lkml_2024-06_kernel6.5.txt") {
		if m, ok := Map(TableMLX5Ethtool, n); ok {
			lkml[n] = m.Canonical
		}
	}
	for n, w := range map[string]string{"tx_global_pause": "tx_global_pause_frames", "rx_discards_phy": "phy_rx_discards", "rx_prio0_discards": "rx_prio_discards_prio0"} {
		if lkml[n] != w {
			t.Errorf("lkml %s → %q, want %s", n, lkml[n], w)
		}
	}
}
