package sampler

import (
	"math"
	"os"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/ethtool"
)

// realCounters reads a real `ethtool -S` paste (testdata/real) as the
// sampler would have read it from driver.
func realCounters(t *testing.T, file, driver string) []probes.Counter {
	t.Helper()
	f, err := os.Open(fixtures + "real/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stats, err := ethtool.ParseText(f)
	if err != nil {
		t.Fatal(err)
	}
	return ethtoolCounters(ethtool.Raw{Iface: "eth0", Driver: driver, Stats: stats})
}

// bnxt_en and ice list PFC counters for all eight priorities: each shows,
// at zero; mlx5 with PFC off lists none, so no priority shows.
func TestRealPFCView(t *testing.T) {
	for _, c := range []struct {
		file, driver string
		prios        int
		duration     bool // the driver counts paused time
		transitions  bool
	}{
		{"ethtool_S_bnxt_en_k6.6_ethq.txt", "bnxt_en", 8, true, true},
		{"ethtool_S_ice_ethq.txt", "ice", 8, false, false},
		{"ethtool_S_mlx5_cx4_k4.15_ethq.txt", "mlx5_core", 0, false, false},
		{"ethtool_S_grep_prio_mlx5_byteps179_1_before_bench.txt", "mlx5_core", 0, false, false},
	} {
		cs := realCounters(t, c.file, c.driver)
		pfc := pfcView(&collected{}, "eth0", cs, 0)
		if len(pfc) != c.prios {
			t.Errorf("%s: %d priorities shown, want %d", c.driver, len(pfc), c.prios)
		}
		for _, pp := range pfc {
			if pp.RxPauseTotal == nil || *pp.RxPauseTotal != 0 || pp.TxPauseTotal == nil || *pp.TxPauseTotal != 0 || pp.Enabled != nil {
				t.Errorf("%s prio %d: rx %v tx %v enabled %v, want 0, 0, unknown", c.driver, pp.Priority, pp.RxPauseTotal, pp.TxPauseTotal, pp.Enabled)
			}
			if (pp.RxTransitions != nil) != c.transitions || (pp.TxTransitions != nil) != c.transitions {
				t.Errorf("%s prio %d: transitions %v %v", c.driver, pp.Priority, pp.RxTransitions, pp.TxTransitions)
			}
		}
		if c.duration {
			d := counterByName(cs, "rx_pfc_pause_duration_prio3")
			if d == nil || d.Unit != "us" || d.Native != "pfc_pri3_rx_duration_us" {
				t.Errorf("%s: rx_pfc_pause_duration_prio3 %+v", c.driver, d)
			}
		}
	}
}

// A bnxt_en priority paused 250 ms of a 1 s interval reads 25 % paused:
// its durations count microseconds.
func TestBNXTPausedPercent(t *testing.T) {
	prev := realCounters(t, "ethtool_S_bnxt_en_k6.6_ethq.txt", "bnxt_en")
	cur := realCounters(t, "ethtool_S_bnxt_en_k6.6_ethq.txt", "bnxt_en")
	for i := range cur {
		switch cur[i].Native {
		case "pfc_pri3_rx_duration_us":
			cur[i].Value += 250_000
		case "pfc_pri3_tx_duration_us":
			cur[i].Value += 10_000
		case "rx_pfc_ena_frames_pri3":
			cur[i].Value += 1200
		}
	}
	probes.Rates(prev, cur, 1)
	var p3 *probes.PFCPriority
	pfc := pfcView(&collected{}, "eth0", cur, 1)
	for i := range pfc {
		if pfc[i].Priority == 3 {
			p3 = &pfc[i]
		}
	}
	if p3 == nil || p3.RxPausedPercent == nil || math.Abs(*p3.RxPausedPercent-25) > 1e-9 ||
		p3.TxPausedPercent == nil || math.Abs(*p3.TxPausedPercent-1) > 1e-9 ||
		p3.RxPausePerSec == nil || *p3.RxPausePerSec != 1200 || *p3.RxPauseTotal != 1200 {
		t.Fatalf("priority 3: %+v", p3)
	}
}

// A duration counter that moved more than the interval (read a little
// late) is paused the whole interval, not more (syn-pfc-pause-storm said
// 100.5 %).
func TestPausedPercentAtMostTheInterval(t *testing.T) {
	for _, c := range []struct{ us, want float64 }{{250_000, 25}, {1_005_000, 100}, {0, 0}} {
		if got := pausedPercent(&c.us); *got != c.want {
			t.Errorf("%v µs/s: %v %%, want %v", c.us, *got, c.want)
		}
	}
	if pausedPercent(nil) != nil {
		t.Error("an unknown rate gave a share")
	}
}
