package exporter

import (
	"context"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/internal/buildinfo"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/sampler"
	"github.com/rdmatop/rdmatop/rules"
)

const fixtures = "../testdata/"

var t0 = time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)

type switchFS struct{ cur fs.FS }

func (s *switchFS) Open(name string) (fs.File, error) { return s.cur.Open(name) }

func ethtoolStats(t testing.TB, name string) map[string]uint64 {
	t.Helper()
	f, err := os.Open(fixtures + "ethtool/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := ethtool.ParseText(f)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// fixtureFrames are the mlx5 CX6-DX pair sampled for real, 60 s apart
// (congestion and a PFC storm on priority 3 in between), judged by the
// default rules: two Frames as a live run yields them.
func fixtureFrames(t testing.TB) []monitor.Frame {
	t.Helper()
	sw := &switchFS{cur: os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t0")}
	et := &ethtool.Fake{Ifaces: map[string]ethtool.FakeIface{
		"eth0": {Driver: "mlx5_core", Stats: ethtoolStats(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt")}}}
	s := sampler.New(sampler.Sources{FS: sw, Ethtool: et, Label: "fixture"}, sampler.Options{})
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	e := rules.NewEngine(pack)
	var out []monitor.Frame
	for i, at := range []time.Time{t0, t0.Add(time.Minute)} {
		if i == 1 {
			sw.cur = os.DirFS(fixtures + "sysfs/mlx5-roce-cx6dx-t1")
			et.Ifaces["eth0"] = ethtool.FakeIface{Driver: "mlx5_core", Stats: ethtoolStats(t, "mlx5_cx6dx_eth0_roce_pfc3_t1.txt")}
		}
		snap := s.Sample(context.Background(), at)
		snap.QPs = append(snap.QPs, probes.QP{Device: "mlx5_0", Port: 1, LQPN: 0x1a3, Type: "RC", State: "ERR", Comm: "ib_write_bw"},
			probes.QP{Device: "mlx5_0", Port: 1, LQPN: 0x1a4, Type: "RC", State: "RTS", Comm: "ib_write_bw"})
		res := e.Evaluate(rules.Frame{Time: at, Snapshot: snap})
		out = append(out, monitor.Frame{Time: at, Seq: i, Snapshot: snap, Findings: res.Findings, Rules: res.Rules})
	}
	return out
}

func gather(t testing.TB, c prometheus.Collector) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// value returns the sample of family name whose labels include want.
func value(t testing.TB, mfs map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	t.Helper()
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
	for _, m := range mf.GetMetric() {
		ok := true
		for k, v := range want {
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == k && lp.GetValue() == v {
					found = true
				}
			}
			ok = ok && found
		}
		if !ok {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		}
	}
	return 0, false
}

func fileValue(t testing.TB, path string) float64 {
	t.Helper()
	b, err := os.ReadFile(fixtures + path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Values, units and labels against the fixture files themselves.
func TestFixtureValues(t *testing.T) {
	pack, _ := rules.Default()
	e := New(Options{Pack: pack, Build: buildinfo.Info{Version: "v1.2.3", Revision: "abc", GoVersion: "go1.26"}})
	for _, f := range fixtureFrames(t) {
		e.Update(f)
	}
	mfs := gather(t, e)
	mlx := map[string]string{"device": "mlx5_0", "port": "1", "netdev": "eth0"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range mlx {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	const t1 = "sysfs/mlx5-roce-cx6dx-t1/sys/class/infiniband/mlx5_0/ports/1/"
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		// 4-byte words on the host, bytes here.
		{"rdmatop_port_bytes_total", with(map[string]string{"direction": "tx"}), 4 * fileValue(t, t1+"counters/port_xmit_data")},
		{"rdmatop_port_bytes_total", with(map[string]string{"direction": "rx"}), 4 * fileValue(t, t1+"counters/port_rcv_data")},
		{"rdmatop_port_packets_total", with(map[string]string{"direction": "tx"}), fileValue(t, t1+"counters/port_xmit_packets")},
		{"rdmatop_cnp_sent_total", mlx, fileValue(t, t1+"hw_counters/np_cnp_sent")},
		{"rdmatop_cnp_handled_total", mlx, fileValue(t, t1+"hw_counters/rp_cnp_handled")},
		{"rdmatop_ecn_marked_roce_packets_total", mlx, fileValue(t, t1+"hw_counters/np_ecn_marked_roce_packets")},
		{"rdmatop_out_of_sequence_total", mlx, fileValue(t, t1+"hw_counters/out_of_sequence")},
		// ethtool: pause frames per priority and direction; microseconds
		// of pause become seconds.
		{"rdmatop_pfc_pause_frames_total", with(map[string]string{"priority": "3", "direction": "rx"}),
			float64(ethtoolStats(t, "mlx5_cx6dx_eth0_roce_pfc3_t1.txt")["rx_prio3_pause"])},
		{"rdmatop_pfc_pause_seconds_total", with(map[string]string{"priority": "3", "direction": "rx"}),
			float64(ethtoolStats(t, "mlx5_cx6dx_eth0_roce_pfc3_t1.txt")["rx_prio3_pause_duration"]) / 1e6},
		{"rdmatop_port_up", mlx, 1},
		{"rdmatop_port_up", map[string]string{"device": "mlx5_1"}, 0},
		{"rdmatop_port_speed_bytes", mlx, 100e9 / 8},
		{"rdmatop_qps", map[string]string{"device": "mlx5_0", "type": "RC", "state": "ERR"}, 1},
		{"rdmatop_build_info", map[string]string{"version": "v1.2.3", "revision": "abc"}, 1},
		{"rdmatop_finding_active", map[string]string{"rule": "port-down", "severity": "warning", "device": "mlx5_1", "port": "1"}, 1},
		{"rdmatop_finding_active", map[string]string{"rule": "qp-error-state", "device": "mlx5_0"}, 1},
		{"rdmatop_rule_info", map[string]string{"rule": "packet-loss", "severity": "critical", "title": "RoCE packets are being lost"}, 1},
		{"rdmatop_source_up", map[string]string{"source": "sysfs"}, 1},
		{"rdmatop_source_state", map[string]string{"source": "rdma netlink", "state": "not_supported"}, 1},
	} {
		got, ok := value(t, mfs, c.name, c.labels)
		if !ok || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if n, ok := value(t, mfs, "rdmatop_findings", map[string]string{"severity": "critical"}); !ok || n < 1 {
		t.Errorf("rdmatop_findings{critical} = %v", n)
	}
	// No native name as a label, no 4-byte words anywhere.
	for name, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "native" || lp.GetName() == "counter" {
					t.Errorf("%s has a %s label", name, lp.GetName())
				}
			}
		}
		if strings.Contains(mf.GetHelp(), "4-byte") {
			t.Errorf("%s: %s", name, mf.GetHelp())
		}
	}
	if !strings.Contains(mfs["rdmatop_cnp_sent_total"].GetHelp(), "np_cnp_sent") {
		t.Errorf("cnp_sent's help does not name the native counter: %q", mfs["rdmatop_cnp_sent_total"].GetHelp())
	}
}

// Prometheus's linter (testutil.CollectAndLint: naming, units, _total,
// help) finds nothing in what the fixture produces.
func TestLint(t *testing.T) {
	pack, _ := rules.Default()
	e := New(Options{Pack: pack, PerQP: true})
	for _, f := range fixtureFrames(t) {
		e.Update(f)
	}
	problems, err := testutil.CollectAndLint(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

func counter(name, native string, v uint64, delta *uint64) probes.Counter {
	return probes.Counter{Name: name, Native: native, Source: "hw_counters", Value: v, Delta: delta}
}

func u64(v uint64) *uint64 { return &v }

// A counter that wraps or resets on the host stays monotonic here: it
// grows by the sampler's deltas (which know the wrap) and holds across a
// reset (no delta), so rate() is right.
func TestCountersStayMonotonic(t *testing.T) {
	e := New(Options{})
	frame := func(i int, c probes.Counter) monitor.Frame {
		return monitor.Frame{Time: t0.Add(time.Duration(i) * time.Second), Seq: i, Snapshot: &probes.Snapshot{
			Ports: []probes.Port{{Device: "mlx5_0", Port: 1, Netdev: "eth0", State: "ACTIVE", Counters: []probes.Counter{c}}}}}
	}
	steps := []struct {
		c    probes.Counter
		want float64
	}{
		{counter("out_of_sequence", "out_of_sequence", 4294967000, nil), 4294967000},
		{counter("out_of_sequence", "out_of_sequence", 100, u64(396)), 4294967396},      // wrapped at 2^32
		{counter("out_of_sequence", "out_of_sequence", 5, nil), 4294967396},             // reset: no delta, hold
		{counter("out_of_sequence", "out_of_sequence", 15, u64(10)), 4294967406},        // counts on
		{counter("out_of_sequence", "out_of_sequence", 15, u64(0)), 4294967406},         // idle
		{counter("out_of_sequence", "out_of_sequence", 4294967295, u64(7)), 4294967413}, // saturated: lower bound
	}
	for i, s := range steps {
		e.Update(frame(i, s.c))
		got, _ := value(t, gather(t, e), "rdmatop_out_of_sequence_total", map[string]string{"device": "mlx5_0"})
		if got != s.want {
			t.Errorf("step %d: %v, want %v", i, got, s.want)
		}
	}
	// A series gone for longer than Stale Frames is forgotten.
	e = New(Options{Stale: 3})
	e.Update(frame(0, counter("out_of_sequence", "out_of_sequence", 1, nil)))
	for i := 1; i <= 4; i++ {
		e.Update(monitor.Frame{Seq: i})
	}
	for k := range e.acc {
		if strings.HasPrefix(k, "rdmatop_out_of_sequence_total") {
			t.Errorf("%q kept after its port vanished", k)
		}
	}
}

// Per-QP series are off by default and capped when on.
func TestPerQPCap(t *testing.T) {
	snap := &probes.Snapshot{}
	for i := range 50 {
		snap.QPs = append(snap.QPs, probes.QP{Device: "mlx5_0", Port: 1, LQPN: uint32(100 + i), Type: "RC", State: "RTS"})
	}
	off := New(Options{})
	off.Update(monitor.Frame{Snapshot: snap})
	if mfs := gather(t, off); mfs["rdmatop_qp_info"] != nil {
		t.Error("per-QP series without --per-qp")
	}
	on := New(Options{PerQP: true, MaxQPs: 20})
	on.Update(monitor.Frame{Snapshot: snap})
	mfs := gather(t, on)
	if n := len(mfs["rdmatop_qp_info"].GetMetric()); n != 20 {
		t.Errorf("%d per-QP series, cap 20", n)
	}
	if d, _ := value(t, mfs, "rdmatop_qp_series_dropped", nil); d != 30 {
		t.Errorf("dropped %v, want 30", d)
	}
	if v, _ := value(t, mfs, "rdmatop_qps", map[string]string{"state": "RTS"}); v != 50 {
		t.Errorf("rdmatop_qps %v", v)
	}
	if New(Options{PerQP: true, MaxQPs: 1 << 30}).opts.MaxQPs != HardMaxQPs {
		t.Error("the hard cap does not hold")
	}
	// The owner's pod is a label: its name where the node names it, its
	// UID where not, empty outside a pod; the series stay within the cap.
	snap.QPs[0].Pod, snap.QPs[0].PodUID = "ml/trainer-0", "0d4c6a1e-6b1f-4c2a-9e3d-2f1a0b9c8d7e"
	snap.QPs[1].PodUID = "5b2e9c1a-3d4f-4e6a-8b7c-9d0e1f2a3b4c"
	on = New(Options{PerQP: true, MaxQPs: 20})
	on.Update(monitor.Frame{Snapshot: snap})
	mfs = gather(t, on)
	for lqpn, pod := range map[string]string{"0x000064": "ml/trainer-0", "0x000065": "5b2e9c1a-3d4f-4e6a-8b7c-9d0e1f2a3b4c", "0x000066": ""} {
		if _, ok := value(t, mfs, "rdmatop_qp_info", map[string]string{"lqpn": lqpn, "pod": pod}); !ok {
			t.Errorf("QP %s: no series with pod=%q", lqpn, pod)
		}
	}
	if n := len(mfs["rdmatop_qp_info"].GetMetric()); n != 20 {
		t.Errorf("%d per-QP series with pods, cap 20", n)
	}
}

// A capture on several rings exports its drops per ring, adding up each
// interval's; one ring exports the total only.
func TestRingDrops(t *testing.T) {
	e := New(Options{})
	frame := func(i int, rings ...uint64) monitor.Frame {
		var total uint64
		for _, d := range rings {
			total += d
		}
		iv := &capture.Summary{File: "eth0", KernelDrops: &total, RingDrops: rings}
		return monitor.Frame{Time: t0.Add(time.Duration(i) * time.Second), Seq: i, Wire: iv, Interval: iv}
	}
	e.Update(frame(0, 0, 5))
	e.Update(frame(1, 2, 1))
	for ring, want := range map[string]float64{"0": 2, "1": 6} {
		got, ok := value(t, gather(t, e), "rdmatop_wire_ring_kernel_drops_total", map[string]string{"interface": "eth0", "ring": ring})
		if !ok || got != want {
			t.Errorf("ring %s: %v (%v), want %v", ring, got, ok, want)
		}
	}
	if got, _ := value(t, gather(t, e), "rdmatop_wire_kernel_drops_total", map[string]string{"interface": "eth0"}); got != 8 {
		t.Errorf("kernel drops %v, want 8", got)
	}
}

// Staleness is judged on when a Frame reached the exporter, by its clock
// (Options.Now), not on the Frame's own time: a replay's Frames carry the
// recording's.
func TestFrameReceivedIsTheExportersClock(t *testing.T) {
	now := time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)
	e := New(Options{Now: func() time.Time { return now }})
	f := fixtureFrames(t)[1]
	e.Update(f)
	mfs := gather(t, e)
	if v, ok := value(t, mfs, "rdmatop_frame_received_timestamp_seconds", nil); !ok || v != float64(now.Unix()) {
		t.Errorf("received %v (%v), want %d", v, ok, now.Unix())
	}
	if v, _ := value(t, mfs, "rdmatop_frame_timestamp_seconds", nil); v != float64(f.Time.UnixNano())/1e9 {
		t.Errorf("frame time %v, want the Frame's %v", v, f.Time)
	}
	if _, last := e.Health(); !last.Equal(now) {
		t.Errorf("Health's last receipt %v, want %v", last, now)
	}
}

// Issue 31: a source that hangs is down (timeout) or up with stale parts
// (partial); the staleness gauge says how old what is carried forward
// is, absent when nothing is, and when it stopped answering.
func TestSourceStaleness(t *testing.T) {
	pack, _ := rules.Default()
	e := New(Options{Pack: pack})
	frames := fixtureFrames(t)
	last := frames[len(frames)-1]
	s := *last.Snapshot
	since := time.Unix(1_800_000_000, 0)
	age := 12.5
	s.Status = []probes.Status{
		{Source: "sysfs", State: probes.StatePartial, Since: &since, StaleS: &age, Stuck: []string{"sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent"}},
		{Source: "ethtool", State: probes.StateTimeout, Since: &since},
		{Source: "kmsg", State: probes.StateOK},
	}
	last.Snapshot = &s
	for _, f := range append(frames[:len(frames)-1], last) {
		e.Update(f)
	}
	mfs := gather(t, e)
	for _, c := range []struct {
		name, source string
		want         float64
		present      bool
	}{
		{"rdmatop_source_up", "sysfs", 1, true},
		{"rdmatop_source_up", "ethtool", 0, true},
		{"rdmatop_source_stale_seconds", "sysfs", 12.5, true},
		{"rdmatop_source_stale_seconds", "kmsg", 0, true},
		{"rdmatop_source_stale_seconds", "ethtool", 0, false},
		{"rdmatop_source_hung_since_timestamp_seconds", "ethtool", 1_800_000_000, true},
		{"rdmatop_source_hung_since_timestamp_seconds", "kmsg", 0, false},
	} {
		got, ok := value(t, mfs, c.name, map[string]string{"source": c.source})
		if ok != c.present || ok && got != c.want {
			t.Errorf("%s{source=%q} = %v (present %v), want %v (present %v)", c.name, c.source, got, ok, c.want, c.present)
		}
	}
}
