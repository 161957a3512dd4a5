package ethtool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realDir holds real `ethtool -S` output of several vendors as customers
// paste it (testdata/real/MANIFEST.md).
const realDir = "../../testdata/real"

// realEthtool lists the real dumps: file, counters, header line present.
var realEthtool = []struct {
	file   string
	n      int
	header bool
}{
	{"ethtool_S_mlx5_cx4_k4.15_ethq.txt", 751, false}, // header and indentation stripped by ethq
	{"ethtool_S_mlx5_cx4_old_driver_names_ethq.txt", 309, false},
	{"ethtool_S_bnxt_en_k6.6_ethq.txt", 499, true},
	{"ethtool_S_ice_ethq.txt", 602, true},
	{"ethtool_S_grep_prio_mlx5_byteps179_1_before_bench.txt", 32, false},
	{"ethtool_S_grep_prio_mlx5_byteps179_2_after_bench_PARTIAL.txt", 19, false},
}

func readReal(t testing.TB, file string) TextInfo {
	t.Helper()
	f, err := os.Open(filepath.Join(realDir, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := ParseTextInfo(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return info
}

// wantStats checks exact values; a name mapped to -1 must be absent.
func wantStats(t *testing.T, file string, got map[string]uint64, want map[string]int64) {
	t.Helper()
	for n, w := range want {
		v, ok := got[n]
		switch {
		case w < 0 && ok:
			t.Errorf("%s: %s = %d, want absent", file, n, v)
		case w >= 0 && !ok:
			t.Errorf("%s: %s absent, want %d", file, n, w)
		case w >= 0 && v != uint64(w):
			t.Errorf("%s: %s = %d, want %d", file, n, v, w)
		}
	}
}

// Every real dump reads whole: every line a counter, none lost.
func TestRealEthtoolDumps(t *testing.T) {
	for _, r := range realEthtool {
		info := readReal(t, r.file)
		if len(info.Stats) != r.n || info.Header != r.header || info.Netdev != "" {
			t.Errorf("%s: %d counters, header %v, netdev %q; want %d, %v, none", r.file, len(info.Stats), info.Header, info.Netdev, r.n, r.header)
		}
	}
}

// mlx5 in-tree 4.15: global pause and PHY discards, no per-priority pause.
func TestRealMLX5K415(t *testing.T) {
	const file = "ethtool_S_mlx5_cx4_k4.15_ethq.txt"
	info := readReal(t, file)
	wantStats(t, file, info.Stats, map[string]int64{
		"rx_packets":                  845320277,
		"rx_packets_phy":              845715962,
		"rx_prio0_bytes":              2202570777997,
		"rx_global_pause":             0,
		"rx_global_pause_duration":    0,
		"tx_global_pause":             0,
		"tx_global_pause_duration":    0,
		"rx_global_pause_transition":  0,
		"rx_discards_phy":             0,
		"rx_out_of_buffer":            0,
		"tx_pci_signal_integrity":     34,
		"rx_prio0_pause":              -1, // PFC off: mlx5 lists no per-priority pause
		"rx_prio3_pause_duration":     -1,
		"tx_pause_storm_error_events": -1, // older kernel
	})
	c := Parse(info.Stats)
	if c.Pause.RxGlobal == nil || *c.Pause.RxGlobal != 0 || c.Discards.RxDiscardsPhy == nil || *c.Discards.RxDiscardsPhy != 0 {
		t.Errorf("typed view: global pause %v, rx_discards_phy %v", c.Pause.RxGlobal, c.Discards.RxDiscardsPhy)
	}
	for p, pr := range c.Prio {
		if pr.RxPause != nil || pr.TxPause != nil {
			t.Errorf("priority %d has pause counters in a dump without any", p)
		}
	}
}

// An older mlx5_core spells the port counters without _phy.
func TestRealMLX5OldNames(t *testing.T) {
	const file = "ethtool_S_mlx5_cx4_old_driver_names_ethq.txt"
	info := readReal(t, file)
	wantStats(t, file, info.Stats, map[string]int64{
		"rx_packets":        5487361,
		"rx_bytes":          1063043816,
		"frames_rx":         5487361,
		"octets_received":   1084993260,
		"pause_ctrl_rx":     0,
		"pause_ctrl_tx":     0,
		"in_discards":       0,
		"out_discards":      0,
		"rx_pause_ctrl_phy": -1,
	})
}

// bnxt_en (kernel 6.6): per-ring counters stay per ring, under the name
// the kernel gives them; PFC per priority is there and zero.
func TestRealBNXT(t *testing.T) {
	const file = "ethtool_S_bnxt_en_k6.6_ethq.txt"
	info := readReal(t, file)
	wantStats(t, file, info.Stats, map[string]int64{
		"[0]: rx_ucast_packets":      10198513532,
		"[0]: rx_discards":           11763190,
		"[3]: rx_ucast_packets":      10146503431,
		"[11]: rx_discards":          9244693,
		"rx_ucast_packets":           -1, // not summed into a port counter
		"rx_discards":                -1,
		"rx_total_ring_discards":     655430134,
		"rx_bytes":                   577687185962088,
		"rx_stat_discard":            49337,
		"rx_buffer_passed_threshold": 417,
		"rx_pause_frames":            0,
		"rx_pfc_frames":              0,
		"rx_pfc_ena_frames_pri3":     0,
		"tx_pfc_ena_frames_pri3":     0,
		"pfc_pri3_rx_duration_us":    0,
		"pfc_pri3_rx_transitions":    0,
		"pfc_pri3_tx_duration_us":    0,
		"continuous_pause_events":    0,
	})
	rings := 0
	for n := range info.Stats {
		if strings.HasPrefix(n, "[") {
			rings++
		}
	}
	if rings != 12*24 {
		t.Errorf("%d per-ring counters, want 12 rings × 24", rings)
	}
}

// ice: the ".nic" port counters and PFC xon/xoff per priority, zero.
func TestRealICE(t *testing.T) {
	const file = "ethtool_S_ice_ethq.txt"
	info := readReal(t, file)
	wantStats(t, file, info.Stats, map[string]int64{
		"rx_unicast":             12117448,
		"tx_bytes.nic":           74057390445,
		"rx_dropped.nic":         0,
		"link_xoff_rx.nic":       0,
		"rx_priority_3_xoff.nic": 0,
		"tx_priority_3_xoff.nic": 0,
		"rx_priority_0_xon.nic":  0,
	})
}

// Two `ethtool -S | grep prio` snapshots of one host: no header, the
// second cut mid-list. Only deltas can be had (the interval is unknown).
func TestRealGrepSnapshots(t *testing.T) {
	a := readReal(t, "ethtool_S_grep_prio_mlx5_byteps179_1_before_bench.txt")
	b := readReal(t, "ethtool_S_grep_prio_mlx5_byteps179_2_after_bench_PARTIAL.txt")
	wantStats(t, "snapshot 1", a.Stats, map[string]int64{"rx_prio0_bytes": 88034564921216, "tx_prio7_packets": 0})
	wantStats(t, "snapshot 2", b.Stats, map[string]int64{"rx_prio0_bytes": 88171136852706, "tx_prio4_bytes": 0, "tx_prio4_packets": -1})
	if d := b.Stats["rx_prio0_bytes"] - a.Stats["rx_prio0_bytes"]; d != 136571931490 {
		t.Errorf("rx_prio0_bytes delta %d", d)
	}
}

// A paste that starts with the command that made it: the command line is
// skipped and names the interface.
func TestParseTextCommandLine(t *testing.T) {
	for _, c := range []struct{ in, netdev string }{
		{"$ ethtool -S enp178s0f0 | grep prio\n     rx_prio0_bytes: 88034564921216\n", "enp178s0f0"},
		{"leinen@zhdk0192:~$ sudo ethtool -S p3p1\nNIC statistics:\n     rx_packets: 5487361\n", "p3p1"},
		{"[root@h ~]# /usr/sbin/ethtool --statistics eth0\r\n\r\nNIC statistics:\r\n     rx_prio0_bytes: 88034564921216\r\n", "eth0"},
		{"# ethtool -S | grep prio\nrx_prio0_bytes: 88034564921216\n", ""}, // no interface named
		{"NIC statistics:\n     rx_prio0_bytes: 88034564921216\n", ""},
	} {
		info, err := ParseTextInfo(strings.NewReader(c.in))
		if err != nil || info.Netdev != c.netdev {
			t.Errorf("%q: netdev %q, %v; want %q", c.in, info.Netdev, err, c.netdev)
			continue
		}
		if v, ok := info.Stats["rx_prio0_bytes"]; ok && v != 88034564921216 {
			t.Errorf("%q: rx_prio0_bytes %d", c.in, v)
		}
	}
}
