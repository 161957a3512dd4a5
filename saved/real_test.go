package saved

import (
	"slices"
	"strings"
	"testing"
)

// Every file of testdata/real (real NIC output from public sources, see
// its MANIFEST) is recognised as what it is and read with exact values.
func TestRealFilesRecognised(t *testing.T) {
	res, err := Load([]string{realDir})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Kind{
		"dmesg_mlx5_cx5_boot_port_module_event_geerlingguy.txt":        KindKernelLog,
		"dmesg_mlx5_pcie_insufficient_power_gpud.txt":                  KindKernelLog,
		"ethtool_S_bnxt_en_k6.6_ethq.txt":                              KindEthtool,
		"ethtool_S_grep_prio_mlx5_byteps179_1_before_bench.txt":        KindEthtool,
		"ethtool_S_grep_prio_mlx5_byteps179_2_after_bench_PARTIAL.txt": KindEthtool,
		"ethtool_S_ice_ethq.txt":                                       KindEthtool,
		"ethtool_S_mlx5_cx4_k4.15_ethq.txt":                            KindEthtool,
		"ethtool_S_mlx5_cx4_old_driver_names_ethq.txt":                 KindEthtool,
		"ib_counters_find_cat_mlx5_1_gpud943.txt":                      KindSysfsCat,
		"mlnx_qos_trust_dscp_pfc3_att_netarbiter.txt":                  KindMlnxQos,
		"mlxconfig_query_roce_cc_cx5_dpservice26_PARTIAL.txt":          KindMlxconfig,
		// Not a saved output: reported as unrecognised, never fatal.
		"MANIFEST.md":          KindUnknown,
		"MANIFEST.upstream.md": KindUnknown,
	}
	if len(res.Inputs) != len(want) {
		t.Errorf("%d inputs, want %d: %+v", len(res.Inputs), len(want), res.Inputs)
	}
	for name, k := range want {
		in := input(t, res, name)
		if in.Kind != k {
			t.Errorf("%s: %q, want %q (%+v)", name, in.Kind, k, in)
		}
		if k != KindUnknown && !in.Usable() {
			t.Errorf("%s: nothing read: %+v", name, in)
		}
	}
}

// Each vendor's dump, read alone, gives the counters a live host would:
// per-priority PFC present (zero, not absent) on bnxt_en and ice; global
// pause and the PHY discards on the mlx5 4.15 dump, which has no
// per-priority pause (PFC was off there).
func TestRealEthtoolVendors(t *testing.T) {
	for _, tc := range []struct {
		file, driver string
		values       map[string]uint64
		pfc          bool
	}{
		{"ethtool_S_bnxt_en_k6.6_ethq.txt", "bnxt_en", map[string]uint64{
			"rx_pfc_ena_frames_pri3": 0, "pfc_pri3_rx_duration_us": 0, "rx_pfc_frames": 0,
			"rx_discard_packets_cos0": 0, "[0]: rx_ucast_packets": 10198513532}, true},
		{"ethtool_S_ice_ethq.txt", "ice", map[string]uint64{
			"rx_priority_3_xoff.nic": 0, "tx_priority_3_xoff.nic": 0, "link_xoff_rx.nic": 0, "rx_dropped.nic": 0,
			"rx_unicast": 12117448}, true},
		{"ethtool_S_mlx5_cx4_k4.15_ethq.txt", "mlx5_core", map[string]uint64{
			"rx_global_pause": 0, "rx_discards_phy": 0, "rx_out_of_buffer": 0, "rx_prio0_bytes": 2202570777997,
			"tx_global_pause_duration": 0}, false},
		{"ethtool_S_mlx5_cx4_old_driver_names_ethq.txt", "mlx5_core", map[string]uint64{
			"pause_ctrl_rx": 0, "in_discards": 0, "rx_packets": 5487361, "rx_bytes": 1063043816}, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			res := load(t, realDir+tc.file)
			s := last(res)
			if len(s.Ports) != 1 {
				t.Fatalf("%d ports, want the one netdev", len(s.Ports))
			}
			p := &s.Ports[0]
			if !strings.HasPrefix(p.Netdev, unnamedPrefix) || p.Device != "" {
				t.Errorf("port %q/%q: a dump naming no netdev is an unnamed netdev with no RDMA device", p.Device, p.Netdev)
			}
			for n, v := range tc.values {
				if got := value(t, p, n); got != v {
					t.Errorf("%s = %d, want %d", n, got, v)
				}
			}
			if got := res.Inputs[0].Read[0]; !strings.Contains(got, "("+tc.driver+")") {
				t.Errorf("read %q: want driver %s", got, tc.driver)
			}
			if !tc.pfc {
				if len(p.PFC) != 0 {
					t.Errorf("PFC %+v: this dump has no per-priority pause counters", p.PFC)
				}
				return
			}
			if len(p.PFC) != 8 {
				t.Fatalf("PFC on %d priorities, want all 8 (zero, not absent)", len(p.PFC))
			}
			for _, q := range p.PFC {
				if q.RxPauseTotal == nil || *q.RxPauseTotal != 0 || q.TxPauseTotal == nil || *q.TxPauseTotal != 0 {
					t.Errorf("priority %d: rx %v tx %v, want 0 and 0", q.Priority, q.RxPauseTotal, q.TxPauseTotal)
				}
			}
		})
	}
}

// The two `ethtool -S | grep prio` snapshots of one host (no netdev named,
// the second cut short) are two readings of one netdev: per-priority byte
// deltas, no rates (their times are unknown).
func TestRealGrepSnapshotsGiveDeltas(t *testing.T) {
	res := load(t, realDir+"ethtool_S_grep_prio_mlx5_byteps179_1_before_bench.txt",
		realDir+"ethtool_S_grep_prio_mlx5_byteps179_2_after_bench_PARTIAL.txt")
	if len(res.Snapshots) != 2 {
		t.Fatalf("%d snapshots, want 2", len(res.Snapshots))
	}
	p := portOf(t, last(res), "", 0, unnamedPrefix+"1")
	for native, want := range map[string]uint64{
		"rx_prio0_bytes": 88171136852706 - 88034564921216,
		"tx_prio0_bytes": 14043243801718 - 13906677385186,
	} {
		c := counter(p, native)
		if c == nil || c.Delta == nil || *c.Delta != want {
			t.Errorf("%s: %+v, want delta %d", native, c, want)
		}
		if c != nil && c.Rate != nil {
			t.Errorf("%s: rate %v from snapshots of unknown time", native, *c.Rate)
		}
	}
	if res.Snapshots[1].Interval != 0 || !res.Snapshots[1].Time.IsZero() {
		t.Errorf("interval %v time %v: the snapshots do not say when they were taken", res.Snapshots[1].Interval, res.Snapshots[1].Time)
	}
}

// Unnamed dumps of different hosts stay apart: counters that went down
// are not a later reading of the same netdev.
func TestRealUnrelatedDumpsStayApart(t *testing.T) {
	res := load(t, realDir+"ethtool_S_mlx5_cx4_k4.15_ethq.txt", realDir+"ethtool_S_mlx5_cx4_old_driver_names_ethq.txt")
	if n := len(res.Snapshots); n != 1 {
		t.Errorf("%d snapshots: two hosts' dumps taken for two readings", n)
	}
	if n := len(last(res).Ports); n != 2 {
		t.Errorf("%d ports, want 2 netdevs", n)
	}
}

// The IB counters listing (a find | cat loop pasted with its prompt) is
// read against the prompt's directory: mlx5_1 port 1, PMA names mapped,
// port_xmit_data in 4-byte words.
func TestRealIBCountersListing(t *testing.T) {
	res := load(t, realDir+"ib_counters_find_cat_mlx5_1_gpud943.txt")
	p := portOf(t, last(res), "mlx5_1", 1, "")
	if got := value(t, p, "port_xmit_data"); got != 4*205143497464492 {
		t.Errorf("tx bytes %d, want 4 × port_xmit_data", got)
	}
	if c := counter(p, "port_xmit_wait"); c == nil || c.Value != 4294967295 || c.Name != "tx_wait" || !c.Saturated {
		t.Errorf("port_xmit_wait %+v: want tx_wait 4294967295, saturated", c)
	}
	in := input(t, res, "ib_counters_find_cat_mlx5_1_gpud943.txt")
	if !strings.Contains(strings.Join(in.Ignored, "\n"), "port_xmit_wait is stuck at its maximum (4294967295)") {
		t.Errorf("the report does not say port_xmit_wait is saturated: %+v", in)
	}
	if n := len(p.Counters); n != 21 {
		t.Errorf("%d counters, want the 21 listed", n)
	}
}

// mlnx_qos printed twice by a traced script: the last output counts, tied
// to the netdev its command line names.
func TestRealMlnxQos(t *testing.T) {
	res := load(t, realDir+"mlnx_qos_trust_dscp_pfc3_att_netarbiter.txt")
	dcb := last(res).Config.DCB
	if len(dcb) != 1 {
		t.Fatalf("DCB %+v", dcb)
	}
	c := dcb[0]
	if c.Netdev != "eth4" || c.Trust != "dscp" || len(c.PFCEnabled) != 1 || c.PFCEnabled[0] != 3 {
		t.Errorf("%+v: want eth4, trust dscp, PFC on 3", c)
	}
	if c.DSCPToPrio[26] != 3 || c.DSCPToPrio[0] != 0 || c.DSCPToPrio[63] != 7 || len(c.DSCPToPrio) != 64 {
		t.Errorf("DSCP map %v", c.DSCPToPrio)
	}
	if want := []int{1, 0, 2, 3, 4, 5, 6, 7}; !slices.Equal(c.PrioToTC, want) {
		t.Errorf("prio→tc %v, want %v", c.PrioToTC, want)
	}
	// Every tc line says "tsa: vendor" (mlx5's default: one group).
	if want := slices.Repeat([]string{"vendor"}, 8); !slices.Equal(c.TCTSA, want) {
		t.Errorf("tsa %v, want %v", c.TCTSA, want)
	}
	in := input(t, res, "mlnx_qos_trust_dscp_pfc3_att_netarbiter.txt")
	if len(in.Ignored) == 0 {
		t.Errorf("the trace's other commands (cma_roce_tos, sysctl) should be reported as not read: %+v", in)
	}
}

func TestRealMlxconfig(t *testing.T) {
	res := load(t, realDir+"mlxconfig_query_roce_cc_cx5_dpservice26_PARTIAL.txt")
	ecn := last(res).Config.ECN
	if len(ecn) != 1 || ecn[0].Source != "mlxconfig" || ecn[0].Params["ROCE_CC_PRIO_MASK_P1"] != "255" ||
		ecn[0].Params["CLAMP_TGT_RATE_AFTER_TIME_INC_P1"] != "True(1)" {
		t.Errorf("ECN %+v", ecn)
	}
}

// Kernel log lines become events on the device they name; dmesg -T gives
// wall time.
func TestRealKernelLogs(t *testing.T) {
	res := load(t, realDir+"dmesg_mlx5_cx5_boot_port_module_event_geerlingguy.txt", realDir+"dmesg_mlx5_pcie_insufficient_power_gpud.txt")
	evs := last(res).Events
	kinds := map[string]int{}
	for _, e := range evs {
		kinds[e.Kind]++
		if e.Kind == "pcie_power" {
			if e.Device != "0000:5c:00.0" || e.Severity != "warning" || e.Time.Format("2006-01-02 15:04:05") != "2024-12-01 14:54:40" {
				t.Errorf("pcie_power event %+v", e)
			}
		}
	}
	if kinds["pcie_power"] != 1 || kinds["module_event"] != 1 || kinds["device_probe"] != 2 || len(evs) != 4 {
		t.Errorf("events by kind %v (%d), want 1 pcie_power, 1 module_event, 2 device_probe", kinds, len(evs))
	}
}
