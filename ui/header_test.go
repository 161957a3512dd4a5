package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
)

// The header's wire line splits kernel drops by ring when the capture
// reads several (--workers), and stays as it was with one.
func TestWireLineRingDrops(t *testing.T) {
	drops := uint64(7)
	for _, c := range []struct {
		rings []uint64
		want  string
	}{
		{nil, "wire 10 RoCE pkts drops 7"},
		{[]uint64{7}, "wire 10 RoCE pkts drops 7"},
		{[]uint64{0, 7, 0}, "wire 10 RoCE pkts drops 7 (rings 0+7+0)"},
	} {
		f := &monitor.Frame{Wire: &capture.Summary{RoCEPackets: 10, KernelDrops: &drops, RingDrops: c.rings}}
		if got := wireLine(f); got != c.want {
			t.Errorf("rings %v: %q, want %q", c.rings, got, c.want)
		}
	}
}

// At 80 columns a replay's header keeps where it is (bar, position, time)
// and its state; the host and file give way.
func TestReplayHeaderKeepsPositionAt80(t *testing.T) {
	f := fixtureFrame(t)
	f.Mode, f.Seq, f.Total = monitor.ModeReplay, 36, 37
	f.Source = "testdata/evalset2/v2-reorder-send-3ms-full.pcapng.gz"
	m := send(sized(New(Options{NoColor: true, Mode: monitor.ModeReplay}), 80, 24), FrameMsg{f})
	m = send(m, PlaybackMsg{Paused: true})
	l1 := strings.Split(m.Render(), "\n")[0]
	for _, want := range []string{"REPLAY [===========>] 37/37 @", "[PAUSED]"} {
		if !strings.Contains(l1, want) {
			t.Errorf("header at 80 columns lacks %q: %q", want, l1)
		}
	}
}

// A live screen with a flight recorder says what it did in the header, at
// 80 columns too, sanitised like every string from outside the model.
func TestHeaderShowsTheFlightRecorder(t *testing.T) {
	f := fixtureFrame(t)
	f.Mode = monitor.ModeLive
	m := send(sized(New(Options{NoColor: true, Mode: monitor.ModeLive}), 80, 24), FrameMsg{f})
	if l1 := strings.Split(m.Render(), "\n")[0]; strings.Contains(l1, "flight") {
		t.Errorf("without a recorder: %q", l1)
	}
	m = send(m, FlightMsg{State: "flight: 1 incident\x1b[2J"})
	l1 := strings.Split(m.Render(), "\n")[0]
	if !strings.Contains(l1, "[flight: 1 incident") || strings.Contains(l1, "\x1b") {
		t.Errorf("header at 80 columns: %q", l1)
	}
}

// What a cause explains is counted per kind of object, each object once:
// a rule on a port's counters and on a flow of the capture is "on 1 port
// and 1 flow", not "on 2 ports".
func TestExplainsSummaryCountsPerKind(t *testing.T) {
	port := map[string]string{"device": "rxe0", "port": "1", "netdev": "veth0"}
	flow := map[string]string{"flow": "1", "src": "192.168.77.1", "dst": "192.168.77.2", "dest_qp": "0x000011"}
	flow2 := map[string]string{"flow": "3", "src": "192.168.77.1", "dst": "192.168.77.2", "dest_qp": "0x000012"}
	got := ExplainsSummary([]rules.Ref{
		{Rule: "retransmissions", Objects: port}, {Rule: "retransmissions", Objects: flow},
		{Rule: "ack-timeout", Objects: flow}, {Rule: "ack-timeout", Objects: flow2},
		{Rule: "link-flap", Objects: map[string]string{}},
	})
	if want := "retransmissions on 1 port and 1 flow, ack-timeout on 2 flows, link-flap"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// The demo's capture is one QP's mirror beside ports carrying far more:
// the wire line says so, or "0.00 Gb/s" beside a 66 Gb/s port reads as a
// contradiction (issue 18, item 10).
func TestDemoWireLineSaysWhatItCaptures(t *testing.T) {
	f := fixtureFrame(t)
	f.Mode = monitor.ModeDemo
	w := *f.Wire
	w.File = "demo: a mirror of QP 0x0001a4's connection"
	f.Wire = &w
	if got := wireLine(&f); !strings.HasPrefix(got, "wire (demo: a mirror of QP 0x0001a4's connection) ") {
		t.Errorf("%q", got)
	}
	f.Mode = monitor.ModeReplay
	if got := wireLine(&f); !strings.HasPrefix(got, "wire 4972 RoCE pkts") {
		t.Errorf("a replay's wire line: %q", got)
	}
}

// Issue 31: the header's probe line names a hung source first, since
// when, how old its values are and the likely reason; a source whose
// files hang names the first of them.
func TestHeaderSaysWhichSourceHangs(t *testing.T) {
	f := fixtureFrame(t)
	f.Mode = monitor.ModeLive
	since := time.Date(2026, 12, 6, 2, 13, 5, 0, time.UTC)
	age := 12.0
	s := *f.Snapshot
	s.Status = []probes.Status{
		{Source: "sysfs", State: probes.StateTimeout, Since: &since, StaleS: &age},
		{Source: "ethtool", State: probes.StateTimeout, Since: &since},
		{Source: "rtnetlink", State: probes.StateTimeout, Since: &since},
		{Source: "rdma netlink", State: probes.StateOK},
		{Source: "dcb", State: probes.StateNotSupported},
	}
	f.Snapshot = &s
	m := send(sized(New(Options{NoColor: true, Mode: monitor.ModeLive}), 400, 24), FrameMsg{f})
	l3 := strings.Split(m.Render(), "\n")[2]
	want := "probes: HUNG sysfs since 02:13:05, values 12s old; HUNG ethtool since 02:13:05; HUNG rtnetlink since 02:13:05; dcb: not_supported — RTNL likely held: dmesg for 'cmd exec timeout' / hung tasks"
	if strings.TrimSpace(l3) != want {
		t.Errorf("probe line:\n%q\nwant\n%q", strings.TrimSpace(l3), want)
	}

	s.Status = []probes.Status{{Source: "sysfs", State: probes.StatePartial, Since: &since, StaleS: &age,
		Stuck: []string{"sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent"}}}
	m = send(m, FrameMsg{f})
	l3 = strings.TrimSpace(strings.Split(m.Render(), "\n")[2])
	want = "probes: HUNG sysfs (1 file: mlx5_0/ports/1/hw_counters/np_cnp_sent) since 02:13:05, values 12s old — driver not answering counter reads: dmesg for 'cmd exec timeout'"
	if l3 != want {
		t.Errorf("probe line:\n%q\nwant\n%q", l3, want)
	}
}
