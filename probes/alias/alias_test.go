package alias

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var snake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// The table has no duplicate or conflicting mapping, and every canonical
// name it uses is defined (and every defined one is used).
func TestTableConsistent(t *testing.T) {
	defined := map[string]bool{}
	for _, in := range canonical {
		if defined[in.Name] {
			t.Errorf("canonical %q defined twice", in.Name)
		}
		defined[in.Name] = true
		if !snake.MatchString(in.Name) {
			t.Errorf("canonical %q is not snake_case", in.Name)
		}
		if in.Description == "" || strings.ContainsAny(in.Description, "\n") {
			t.Errorf("%s: description must be one non-empty line", in.Name)
		}
		if in.Unit == "" || (in.Kind != Counter && in.Kind != Gauge) {
			t.Errorf("%s: unit %q kind %q", in.Name, in.Unit, in.Kind)
		}
	}
	used := map[string]bool{}
	tables := map[string]bool{}
	for _, tb := range Tables() {
		tables[tb] = true
	}
	type key struct{ table, native string }
	natives := map[key]string{}
	canonPerTable := map[key]bool{}
	for _, en := range entries() {
		if !tables[en.Table] {
			t.Errorf("entry %v: unknown table", en)
		}
		if !defined[en.Canonical] {
			t.Errorf("entry %s/%v: canonical %q is not defined", en.Table, en.Natives, en.Canonical)
		}
		used[en.Canonical] = true
		if canonPerTable[key{en.Table, en.Canonical}] {
			t.Errorf("table %s maps two entries to %q (spellings of one counter belong in one entry)", en.Table, en.Canonical)
		}
		canonPerTable[key{en.Table, en.Canonical}] = true
		if len(en.Natives) == 0 || en.Cite == "" || !strings.Contains(en.Cite, "/") {
			t.Errorf("entry %s/%s: needs natives and a cited source path", en.Table, en.Canonical)
		}
		perPrio := false
		for _, n := range en.Natives {
			if strings.Contains(n, prioMark) {
				perPrio = true
			}
			for _, x := range expand(n) {
				k := key{en.Table, x}
				if prev, dup := natives[k]; dup {
					t.Errorf("table %s: native %q mapped twice (%s, %s)", en.Table, x, prev, en.Canonical)
				}
				natives[k] = en.Canonical
			}
		}
		if in := infoByName()[en.Canonical]; in.PerPriority != perPrio {
			t.Errorf("entry %s/%s: per-priority natives %v but canonical PerPriority %v", en.Table, en.Canonical, perPrio, in.PerPriority)
		}
	}
	for name := range defined {
		if !used[name] {
			t.Errorf("canonical %q is defined but no table maps to it", name)
		}
	}
	// A hw_counters table falls back to the PMA table: a name in both must
	// mean the same.
	for k, c := range natives {
		if k.table == TableIBTA || strings.HasSuffix(k.table, "_ethtool") {
			continue
		}
		if pc, ok := natives[key{TableIBTA, k.native}]; ok && pc != c {
			t.Errorf("%s/%s → %s but ibta/%s → %s", k.table, k.native, c, k.native, pc)
		}
	}
}

func expand(n string) []string {
	if !strings.Contains(n, prioMark) {
		return []string{n}
	}
	var out []string
	for p := 0; p < 8; p++ {
		out = append(out, strings.Replace(n, prioMark, strconv.Itoa(p), 1))
	}
	return out
}

func TestMapAndLookup(t *testing.T) {
	cases := []struct {
		driver, native, want string
		scale                uint64
		prio                 int
	}{
		{"mlx5", "np_cnp_sent", "cnp_sent", 1, -1},
		{"mlx5_core", "rp_cnp_handled", "cnp_handled", 1, -1},
		{"mlx5_ib.rdma", "vport_out_of_sequence", "out_of_sequence", 1, -1},
		{"mlx5", "port_xmit_data", "tx_bytes", 4, -1},  // PMA fallback, 4-byte words
		{"ibta", "port_rcv_data", "rx_bytes", 4, -1},   //
		{"hns", "symbol_error", "symbol_error", 1, -1}, // unknown driver: PMA names still map
		{"mlx5_ethtool", "rx_prio3_pause", "rx_pfc_pause_frames_prio3", 1, 3},
		{"mlx5_ethtool", "tx_pause_storm_warning_events ", "pause_storm_warning_events", 1, -1}, // old kernels' trailing space
		{"rdma_rxe", "out_of_seq_request", "out_of_sequence", 1, -1},
		{"bnxt_en", "tx_cnp_pkts", "cnp_sent", 1, -1},
		{"irdma.roce", "Nak Sequence Error", "packet_seq_err", 1, -1},
		{"irdma", "iwInRdmaWrites", "rx_write_requests", 1, -1},
		{"irdma", "InRdmaWrites", "rx_write_requests", 1, -1},
		{"efa", "rx_drops", "rx_discards", 1, -1},
		{"erdma", "rx_bytes_cnt", "rx_bytes", 1, -1},
	}
	for _, c := range cases {
		m, ok := Map(c.driver, c.native)
		if !ok || m.Canonical != c.want || m.Scale != c.scale || m.Priority != c.prio {
			t.Errorf("Map(%q, %q) = %+v, %v; want %s ×%d prio %d", c.driver, c.native, m, ok, c.want, c.scale, c.prio)
		}
		if name, ok := Canonical(c.driver, c.native); !ok || name != c.want {
			t.Errorf("Canonical(%q, %q) = %q, %v", c.driver, c.native, name, ok)
		}
		if in := Lookup(m.Canonical); in.Name != m.Canonical {
			t.Errorf("Lookup(%q) = %+v", m.Canonical, in)
		}
	}
	// Not mapped: ethtool names are not searched through a hw table, a hw
	// table's names not through ethtool, and netdev rx_packets is not RDMA.
	for _, c := range [][2]string{{"mlx5", "rx_prio3_pause"}, {"mlx5_ethtool", "np_cnp_sent"}, {"mlx5_ethtool", "rx_packets"}, {"mlx5_ethtool", "port_xmit_data"}, {"mlx5", "rx_dct_connect"}, {"rxe", "ack_deferred"}} {
		if m, ok := Map(c[0], c[1]); ok {
			t.Errorf("Map(%q, %q) = %+v, want no mapping", c[0], c[1], m)
		}
	}

	if in := Lookup("rx_pfc_pause_duration_prio3"); in.Unit != UnitMicros || !in.RisingIsBad || in.Kind != Counter {
		t.Errorf("pause duration info %+v", in)
	}
	if in := Lookup("tx_bytes"); in.Unit != UnitBytes || in.RisingIsBad {
		t.Errorf("tx_bytes info %+v", in)
	}
	if in := Lookup("pci_outbound_stalled_reads_pct"); in.Kind != Gauge {
		t.Errorf("stalled reads should be a gauge: %+v", in)
	}
	for _, bad := range []string{"tx_bytes_prio3", "rx_pfc_pause_frames_prio8", "rx_pfc_pause_frames_prio", "nonsense", ""} {
		if in := Lookup(bad); in.Name != "" {
			t.Errorf("Lookup(%q) = %+v, want zero", bad, in)
		}
	}
}

func TestDriverAndTables(t *testing.T) {
	for in, want := range map[string]string{
		"mlx5_core": "mlx5", "mlx5_ib.rdma": "mlx5", "MLX5": "mlx5", "rdma_rxe": "rxe", "bnxt_en": "bnxt_re",
		"bnxt_re.rdma": "bnxt_re", "ice": "irdma", "irdma.iwarp": "irdma", "efa": "efa", "hns_roce_hw_v2": "hns_roce_hw_v2",
	} {
		if got := Driver(in); got != want {
			t.Errorf("Driver(%q) = %q, want %q", in, got, want)
		}
	}
	for _, c := range []struct {
		driver string
		src    Source
		want   string
	}{
		{"mlx5_core", SourceHWCounters, TableMLX5},
		{"mlx5_core", SourceEthtool, TableMLX5Ethtool},
		{"rxe", SourceCounters, TableIBTA},
		{"rxe", SourceEthtool, ""},
		{"siw", SourceHWCounters, ""},
		{"mlx5", "netlink", ""},
	} {
		if got := TableFor(c.driver, c.src); got != c.want {
			t.Errorf("TableFor(%q, %q) = %q, want %q", c.driver, c.src, got, c.want)
		}
	}
	if m, ok := MapFrom("mlx5_core", SourceEthtool, "rx_discards_phy"); !ok || m.Canonical != "phy_rx_discards" {
		t.Errorf("MapFrom ethtool: %+v %v", m, ok)
	}
	if _, ok := MapFrom("mlx5_core", SourceHWCounters, "rx_discards_phy"); ok {
		t.Error("MapFrom hw_counters found an ethtool name")
	}
	if len(Drivers()) != 6 {
		t.Errorf("Drivers() = %v", Drivers())
	}
	es := Entries()
	es[0].Natives[0] = "changed"
	if entries()[0].Natives[0] == "changed" {
		t.Error("Entries() exposes the table")
	}
}
