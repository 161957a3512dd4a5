package rules

// Tests of the rules about the capture itself (capture-blind,
// capture-incomplete): on a live run, does the capture see what the RDMA
// ports count? Inputs are real: the Soft-RoCE lossy1 run (the port
// counters read before and after it, rules/testdata/rxe, and tcpdump's
// capture on veth0 over the same time, testdata/rxe/pcap/lossy1.pcap), a
// capture during which the kernel really dropped 28360 frames
// (qp-peer-killed.pcap, tcpdump's count), rdmatop's own live capture of
// the lab (kernel_drops 0) and the lab recording of ib_write_bw.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
)

// cLive returns a copy of s as a live capture on iface would describe
// itself (capture -i sets Format "live", File and Interface the
// interface, and the kernel's drop count), covering dur seconds.
func cLive(s *capture.Summary, iface string, drops *uint64, dur float64) *capture.Summary {
	c := *s
	c.Format, c.File, c.Interface, c.KernelDrops = "live", iface, iface, drops
	if dur > 0 {
		c.DurationSec = dur
	}
	return &c
}

func u64p(v uint64) *uint64 { return &v }

// cUnrecorded returns s as a recording whose file lacks n frames.
func cUnrecorded(s *capture.Summary, n uint64) *capture.Summary {
	s.Unrecorded = u64p(n)
	return s
}

// cBlind returns s as a capture whose link was down for blindS seconds
// (and still is, for why).
func cBlind(s *capture.Summary, blindS float64, why string) *capture.Summary {
	s.BlindS, s.LinkDown = blindS, why
	return s
}

// cLossy1Host is rxe0 and rxe1 before and after the lossy1 run, on their
// netdevs (rules/testdata/rxe/topology.env).
func cLossy1Host(t *testing.T) *probes.Snapshot {
	t.Helper()
	env, err := os.ReadFile("testdata/rxe/topology.env")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(string(env), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			vars[k] = v
		}
	}
	netdev := map[string]string{vars["RXE_DEV_A"]: vars["RXE_NETDEV_A"], vars["RXE_DEV_B"]: vars["RXE_NETDEV_B"]}
	snaps := wCounterDump(t, "testdata/rxe/counters-lossy1.tsv")
	s := snaps[1]
	for i := range s.Ports {
		s.Ports[i].Netdev = netdev[s.Ports[i].Device]
	}
	if s.Ports[0].Netdev != "veth0" {
		t.Fatalf("topology: %v", netdev)
	}
	return s
}

// cKernelDrops reads tcpdump's "N packets dropped by kernel".
func cKernelDrops(t *testing.T, path string) uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if n, ok := strings.CutSuffix(line, " packets dropped by kernel"); ok {
			v, err := strconv.ParseUint(n, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("%s: no kernel drop count", path)
	return 0
}

// cInterval returns a copy of s whose rates are said to cover sec seconds.
func cInterval(s *probes.Snapshot, sec float64) *probes.Snapshot {
	c := *s
	c.Interval = sec
	return &c
}

// cFired returns the objects capture-incomplete fired on.
func cFired(fs []Finding, rule string) []string {
	return wFired(fs)[rule]
}

func TestCaptureIncomplete(t *testing.T) {
	p := wirePack(t)
	host := cLossy1Host(t)
	iv := host.Interval // 14.1 s: the capture ran over the whole of it
	var counted float64
	for _, n := range []string{"rx_packets", "tx_packets"} {
		counted += float64(*firstCounter(host.Ports[0].Counters, n).Delta)
	}
	if host.Ports[0].Device != "rxe0" || counted != 3267+1736 {
		t.Fatalf("rxe0 counted %g packets, the dump says 3267 sent + 1736 received", counted)
	}
	full := wAnalyze(t, wtd+"rxe/pcap/lossy1.pcap")
	if full.RoCEPackets != 4972 { // tcpdump: 4972 captured, 0 dropped by kernel
		t.Fatalf("lossy1.pcap: %d RoCE packets", full.RoCEPackets)
	}
	// Thinned copies of the same capture: every nth RoCE frame removed,
	// as a ring overflow the kernel did not report, or a tap that misses
	// part of the traffic, would.
	dir := t.TempDir()
	thin := func(n int) *capture.Summary {
		out := filepath.Join(dir, fmt.Sprintf("thin%d.pcap", n))
		wRewritePcap(t, wtd+"rxe/pcap/lossy1.pcap", out, func(i int, _ []byte) bool { return i%n != n-1 })
		return wAnalyze(t, out)
	}
	third, eighth, twentieth := thin(3), thin(8), thin(20)
	oneWay := filepath.Join(dir, "responder-only.pcap")
	wRewritePcap(t, wtd+"rxe/pcap/lossy1.pcap", oneWay, wFromHost([4]byte{192, 168, 77, 2}))
	responder := wAnalyze(t, oneWay)

	peerKilled := wAnalyze(t, wtd+"rxe/pcap/qp-peer-killed.pcap")
	labLive := wAnalyze(t, wtd+"lab/live-capture/wire.pcap")
	zero := u64p(0)
	if d := cKernelDrops(t, "testdata/rxe/lossy1.pcap.tcpdump.txt"); d != 0 {
		t.Fatalf("lossy1: tcpdump dropped %d", d)
	}
	if d := cKernelDrops(t, "testdata/rxe/qp-peer-killed.pcap.tcpdump.txt"); d != 28360 {
		t.Fatalf("qp-peer-killed: tcpdump dropped %d", d)
	}

	for _, c := range []struct {
		name string
		f    Frame
		want []string
	}{
		{"the whole capture: 4972 of the 5003 packets rxe0 counted (netem dropped 31 before the tap)",
			Frame{Live: true, Snapshot: host, Wire: cLive(full, "veth0", zero, iv)}, nil},
		{"1 frame in 20 missing (95%): within the margin",
			Frame{Live: true, Snapshot: host, Wire: cLive(twentieth, "veth0", zero, iv)}, nil},
		{"1 frame in 8 missing (87%)",
			Frame{Live: true, Snapshot: host, Wire: cLive(eighth, "veth0", zero, iv)}, []string{"rxe0/1"}},
		{"1 frame in 3 missing (66%)",
			Frame{Live: true, Snapshot: host, Wire: cLive(third, "veth0", zero, iv)}, []string{"rxe0/1"}},
		{"one direction only (the responder's 1736 frames)",
			Frame{Live: true, Snapshot: host, Wire: cLive(responder, "veth0", zero, iv)}, []string{"rxe0/1"}},
		{"1 in 3 missing, but not a live run",
			Frame{Snapshot: host, Wire: cLive(third, "veth0", zero, iv)}, nil},
		{"1 in 3 missing, capture interface unknown (a file): no port to compare with",
			Frame{Live: true, Snapshot: host, Wire: func() *capture.Summary { c := *third; c.DurationSec = iv; return &c }()}, nil},
		{"1 in 3 missing, captured on an interface no RDMA port uses",
			Frame{Live: true, Snapshot: host, Wire: cLive(third, "mirror0", zero, iv)}, nil},
		// The capture and the counters must cover the same interval: a
		// capture's own span (first to last packet: 4.9 s against the
		// counters' 14.1 s), or a whole capture next to one sample's
		// rates, is not compared.
		{"a third missing, but the capture spans 4.9 s of the counters' 14.1",
			Frame{Live: true, Snapshot: host, Wire: cLive(third, "veth0", zero, 0)}, nil},
		{"a third missing, but the counters' rates are of a 1 s sample",
			Frame{Live: true, Snapshot: cInterval(host, 1), Wire: cLive(third, "veth0", zero, iv)}, nil},
		{"a third missing, the counters' interval 10% longer than the capture's",
			Frame{Live: true, Snapshot: cInterval(host, iv*1.1), Wire: cLive(third, "veth0", zero, iv)}, []string{"rxe0/1"}},
		{"the kernel dropped 28360 frames (tcpdump's count for qp-peer-killed.pcap)",
			Frame{Live: true, Wire: cLive(peerKilled, "veth0", u64p(28360), 0)}, []string{"host"}},
		{"kernel drops and a shortfall",
			Frame{Live: true, Snapshot: host, Wire: cLive(third, "veth0", u64p(1700), iv)}, []string{"host", "rxe0/1"}},
		{"rdmatop's live capture of the lab: 0 kernel drops, no host data",
			Frame{Live: true, Wire: cLive(labLive, "veth0", zero, 0)}, nil},
		{"the same capture with its drops, replayed from a recording that says them (not live)",
			Frame{Wire: cLive(peerKilled, "veth0", u64p(28360), 0)}, []string{"host"}},
		{"a recording whose writer fell behind: frames captured, not in the file",
			Frame{Wire: cUnrecorded(cLive(labLive, "veth0", nil, 0), 1390)}, []string{"host"}},
		{"a recording of a capture whose link was down for 2 s",
			Frame{Wire: cBlind(cLive(labLive, "veth0", nil, 0), 2, "")}, []string{"host"}},
		{"a capture file: nothing known of what it missed",
			Frame{Wire: cLive(labLive, "", nil, 0)}, nil},
	} {
		res := wEvalOnce(t, p, c.f)
		got := cFired(res.Findings, "capture-incomplete")
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: capture-incomplete on %v, want %v", c.name, got, c.want)
		}
		for _, f := range res.Findings {
			if f.Rule != "capture-incomplete" {
				continue
			}
			if f.Severity != Info || strings.Contains(f.Evidence, "evidence unavailable") || strings.Contains(f.Evidence, "n/a") {
				t.Errorf("%s: %s %s", c.name, f.Severity, f.Evidence)
			}
			t.Logf("%s: %s", c.name, f.Evidence)
		}
		// capture-blind is about a capture without any RoCE: never here.
		if got := cFired(res.Findings, "capture-blind"); len(got) != 0 {
			t.Errorf("%s: capture-blind %v", c.name, got)
		}
	}

	// The evidence names the numbers: 1658 of ~4968 is a third missing.
	res := wEvalOnce(t, p, Frame{Live: true, Snapshot: host, Wire: cLive(third, "veth0", zero, iv)})
	for _, f := range res.Findings {
		if f.Rule == "capture-incomplete" && !strings.Contains(f.Evidence, fmt.Sprintf("saw %d RoCE packets (66%% of them)", third.RoCEPackets)) {
			t.Errorf("evidence: %s", f.Evidence)
		}
	}

	// With the kernel's drops in the frame, packet-loss's evidence says the
	// gaps may be the capture's (the PSN gap of qp-peer-killed.pcap is: see
	// its MANIFEST).
	res = wEvalOnce(t, p, Frame{Live: true, Wire: cLive(peerKilled, "veth0", u64p(28360), 0)})
	n := 0
	for _, f := range res.Findings {
		if f.Rule == "packet-loss" {
			n++
			if !strings.Contains(f.Evidence, "the capture itself lost 28360 frames in the kernel") {
				t.Errorf("packet-loss evidence: %s", f.Evidence)
			}
		}
	}
	if n == 0 {
		t.Error("packet-loss did not fire on qp-peer-killed.pcap")
	}

	// Without a capture there is nothing to reconcile: cannot evaluate.
	res = wEvalOnce(t, p, Frame{Live: true, Snapshot: host})
	for _, st := range res.Rules {
		if st.Rule == "capture-incomplete" && st.State != "cannot_evaluate" {
			t.Errorf("capture-incomplete without a capture: %s", st.State)
		}
	}
}

// On a run evaluated tick after tick, the port comparison must hold for two
// ticks (an interval can split a burst between the counters and the
// capture), while a tick with kernel drops is reported at once.
func TestCaptureIncompleteTickByTick(t *testing.T) {
	p := wirePack(t)
	host := cLossy1Host(t)
	iv := host.Interval
	full := cLive(wAnalyze(t, wtd+"rxe/pcap/lossy1.pcap"), "veth0", u64p(0), iv)
	out := filepath.Join(t.TempDir(), "thin.pcap")
	wRewritePcap(t, wtd+"rxe/pcap/lossy1.pcap", out, func(i int, _ []byte) bool { return i%3 != 2 })
	short := cLive(wAnalyze(t, out), "veth0", u64p(0), iv)
	dropped := cLive(wAnalyze(t, wtd+"rxe/pcap/lossy1.pcap"), "veth0", u64p(12), iv)

	e := NewEngine(p)
	defer CheckNoFailures(t, e)
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	for i, c := range []struct {
		wire  *capture.Summary
		state string
		want  []string // active capture-incomplete findings
	}{
		{full, "ok", nil},
		{short, "pending", nil}, // one short interval: an edge, maybe
		{full, "ok", nil},       // and the next one is complete
		{short, "pending", nil},
		{short, "firing", []string{"rxe0/1"}}, // two in a row: the capture misses packets
		{short, "firing", []string{"rxe0/1"}},
		{full, "ok", nil},                     // resolved
		{dropped, "firing", []string{"host"}}, // kernel drops: at once
		{full, "ok", nil},
	} {
		res := e.Evaluate(Frame{Time: t0.Add(time.Duration(i) * time.Second), Live: true, Snapshot: host, Wire: c.wire})
		var active []string
		for _, f := range res.Findings {
			if f.Rule == "capture-incomplete" && !f.Resolved {
				active = append(active, wLabel(f))
			}
		}
		slices.Sort(active)
		if !slices.Equal(active, c.want) {
			t.Errorf("tick %d: active %v, want %v", i, active, c.want)
		}
		for _, st := range res.Rules {
			if st.Rule == "capture-incomplete" && st.State != c.state {
				t.Errorf("tick %d: state %s, want %s", i, st.State, c.state)
			}
		}
	}
}

// capture-blind on a run evaluated tick after tick: a live capture that
// sees no RoCE while the ports count traffic fires on the second tick; a
// single blind interval between intervals with RoCE (a burst that started
// between the capture's cut and the counters' read) does not; a capture
// that is not live never does.
func TestCaptureBlindTickByTick(t *testing.T) {
	p := wirePack(t)
	var busy *probes.Snapshot
	for _, s := range wReplay(t, wtd+"lab/probes/record.bundle.gz") {
		if r, ok := hostEnv(Frame{Snapshot: s}).RDMAPacketsPerSec.(float64); ok && (busy == nil || r > hostEnv(Frame{Snapshot: busy}).RDMAPacketsPerSec.(float64)) {
			busy = s
		}
	}
	blind := cLive(wAnalyze(t, wtd+"pcaps/rdma-softroce-demo_no-roce.pcap"), "veth0", u64p(0), busy.Interval)
	sees := cLive(wAnalyze(t, wtd+"lab/live-capture/wire.pcap"), "veth0", u64p(0), busy.Interval)
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	run := func(live bool, wires ...*capture.Summary) []string {
		e := NewEngine(p)
		defer CheckNoFailures(t, e)
		var states []string
		for i, w := range wires {
			res := e.Evaluate(Frame{Time: t0.Add(time.Duration(i) * time.Second), Live: live, Snapshot: busy, Wire: w})
			for _, st := range res.Rules {
				if st.Rule == "capture-blind" {
					states = append(states, st.State)
				}
			}
		}
		return states
	}
	for _, c := range []struct {
		name  string
		live  bool
		wires []*capture.Summary
		want  []string
	}{
		{"blind from the start", true, []*capture.Summary{blind, blind, blind}, []string{"pending", "firing", "firing"}},
		{"one blind interval", true, []*capture.Summary{sees, blind, sees, blind, sees}, []string{"ok", "pending", "ok", "pending", "ok"}},
		{"not live", false, []*capture.Summary{blind, blind, blind}, []string{"ok", "ok", "ok"}},
	} {
		if got := run(c.live, c.wires...); !slices.Equal(got, c.want) {
			t.Errorf("%s: capture-blind %v, want %v", c.name, got, c.want)
		}
	}
}
