package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
)

// run returns every frame of a scenario.
func run(t *testing.T, seed int64) []monitor.Frame {
	t.Helper()
	var out []monitor.Frame
	r, err := NewRun(seed)
	if err != nil {
		t.Fatal(err)
	}
	for f, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

var frames []monitor.Frame // DefaultSeed, computed once

func defaultFrames(t *testing.T) []monitor.Frame {
	t.Helper()
	if frames == nil {
		frames = run(t, DefaultSeed)
	}
	return frames
}

func tickTime(i int) time.Time { return Start.Add(time.Duration(i) * Interval) }

// Two runs give the same frames, byte for byte as JSON, and nothing is
// read from the repository at run time (the working directory is empty).
func TestDeterministic(t *testing.T) {
	t.Chdir(t.TempDir())
	a, b := run(t, DefaultSeed), run(t, DefaultSeed)
	if len(a) != New(DefaultSeed).Ticks() || len(a) != len(b) {
		t.Fatalf("%d and %d frames", len(a), len(b))
	}
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		for i := range a {
			x, _ := json.Marshal(a[i])
			y, _ := json.Marshal(b[i])
			if !bytes.Equal(x, y) {
				t.Fatalf("frame %d differs between two runs", i)
			}
		}
	}
	// The seed only moves the traffic jitter.
	c := run(t, DefaultSeed+1)
	jc, _ := json.Marshal(c)
	if bytes.Equal(ja, jc) {
		t.Error("another seed gives the same frames")
	}
}

func active(f monitor.Frame, rule string) *rules.Finding {
	for i := range f.Findings {
		if f.Findings[i].Rule == rule && !f.Findings[i].Resolved {
			return &f.Findings[i]
		}
	}
	return nil
}

// Each episode makes its rules fire, within the episode, after the rule's
// `for` (the engine keeps the history across ticks).
func TestPhasesFireTheirRules(t *testing.T) {
	fs := defaultFrames(t)
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	// The wait of each rule's variant, by rule and scope (a variant may
	// override the rule's: ecn-marked-no-cnp waits 30 s on the counters,
	// none on the wire).
	forOf := map[string]time.Duration{}
	for _, r := range pack.Rules {
		forOf[r.ID+"|"+string(r.Scope)] = time.Duration(r.For)
		for _, v := range r.Also {
			forOf[r.ID+"|"+string(v.Scope)] = time.Duration(r.For)
			if v.For != nil {
				forOf[r.ID+"|"+string(v.Scope)] = time.Duration(*v.For)
			}
		}
	}
	scopeOf := func(f *rules.Finding) string {
		switch {
		case f.Objects["flow"] != "":
			return "flow"
		case f.Objects["qpn"] != "":
			return "qp"
		case f.Objects["priority"] != "":
			return "priority"
		case f.Objects["port"] != "":
			return "port"
		}
		return "host"
	}
	want := map[string]bool{"pfc-pause-backpressure": true, "ecn-marked-no-cnp": true, "qp-error-state": true,
		"packet-loss": true, "retransmissions": true}
	for _, ph := range Phases() {
		for i := ph.First; i <= ph.Last; i++ {
			if fs[i].Phase != ph.Name {
				t.Fatalf("tick %d: phase %q, want %q", i, fs[i].Phase, ph.Name)
			}
		}
		for _, rule := range ph.Rules {
			delete(want, rule)
			if f := active(fs[ph.First-1], rule); f != nil {
				t.Errorf("%s already active before %q: %+v", rule, ph.Name, f)
			}
			last := active(fs[ph.Last], rule)
			if last == nil {
				t.Errorf("%q (ticks %d-%d): %s does not fire", ph.Name, ph.First, ph.Last, rule)
				continue
			}
			// Rates exist from the episode's first tick (its counters moved
			// since the tick before): each variant's condition holds from
			// then (its first seen) and it fires after exactly its `for`.
			for _, f := range fs[ph.Last].Findings {
				if f.Rule != rule || f.Resolved {
					continue
				}
				wait := forOf[rule+"|"+scopeOf(&f)]
				if want := tickTime(ph.First); !f.FirstSeen.Equal(want) {
					t.Errorf("%s on %v first seen %s, want %s", rule, f.Objects, f.FirstSeen, want)
				}
				fires := ph.First + int(wait/Interval)
				if fires > 0 && activeOn(fs[fires-1], &f) || !activeOn(fs[fires], &f) {
					t.Errorf("%s on %v: not firing from tick %d exactly (for %s)", rule, f.Objects, fires, wait)
				}
			}
			if last.Evidence == "" || strings.Contains(last.Evidence, "unavailable") {
				t.Errorf("%s evidence: %q", rule, last.Evidence)
			}
			t.Logf("%s: %s", rule, last.Evidence)
		}
	}
	if len(want) > 0 {
		t.Errorf("no episode for %v", want)
	}
}

// Healthy traffic has no warning or critical finding; after the recovery
// the findings are all resolved (and kept, as resolved).
func TestHealthyIsQuiet(t *testing.T) {
	fs := defaultFrames(t)
	for _, ph := range Phases() {
		if ph.kind != healthy && ph.kind != recovered {
			continue
		}
		for i := ph.First; i <= ph.Last; i++ {
			for _, f := range fs[i].Findings {
				if rules.AtLeastWarning([]rules.Finding{f}) && (ph.kind == healthy || !f.Resolved) {
					t.Errorf("tick %d (%s): %s %s: %s", i, ph.Name, f.Severity, f.Rule, f.Evidence)
				}
			}
			for _, r := range fs[i].Rules {
				if r.State == "pending" || r.State == "firing" {
					t.Errorf("tick %d (%s): rule %s %s", i, ph.Name, r.Rule, r.State)
				}
			}
		}
	}
	if !rules.AtLeastWarning(fs[len(fs)-1].Findings) {
		t.Error("the last frame forgot the resolved findings")
	}
}

func port(f monitor.Frame, dev string) *probes.Port {
	for i := range f.Snapshot.Ports {
		if f.Snapshot.Ports[i].Device == dev {
			return &f.Snapshot.Ports[i]
		}
	}
	return nil
}

func counter(p *probes.Port, name string) *probes.Counter {
	for i := range p.Counters {
		if p.Counters[i].Name == name {
			return &p.Counters[i]
		}
	}
	return nil
}

// Frames are whole: the demo's mode and clock, two active ports whose
// counters have rates after the first tick, a capture, every rule's state.
func TestFrameShape(t *testing.T) {
	fs := defaultFrames(t)
	// Rules that judge a whole capture's paths (low-flow-entropy) cannot
	// judge an interval, the demo's or any live run's: not theirs to show.
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	wholeCapture := map[string]bool{}
	for _, r := range pack.Rules {
		if strings.Contains(r.Requires, "wire.paths") {
			wholeCapture[r.ID] = true
		}
	}
	if len(wholeCapture) == 0 {
		t.Fatal("no rule requires a whole capture's paths: drop this exception")
	}
	for i, f := range fs {
		if f.Mode != monitor.ModeDemo || f.Seq != i || f.Total != len(fs) || f.Source != Source || !f.Time.Equal(tickTime(i)) {
			t.Fatalf("frame %d: mode %s seq %d total %d source %q time %s", i, f.Mode, f.Seq, f.Total, f.Source, f.Time)
		}
		if f.Snapshot == nil || len(f.Snapshot.Ports) != 2 || f.Wire == nil || f.Interval == nil ||
			f.Interval.RoCEPackets == 0 || f.Wire.RoCEPackets <= f.Interval.RoCEPackets && i > 0 || len(f.Rules) == 0 {
			t.Fatalf("frame %d: snapshot %v, wire %v, %d rule states", i, f.Snapshot != nil, f.Wire != nil, len(f.Rules))
		}
		for _, dev := range []string{"mlx5_0", "mlx5_1"} {
			p := port(f, dev)
			if p == nil || p.State != "ACTIVE" || p.LinkLayer != "Ethernet" {
				t.Fatalf("frame %d: %s: %+v", i, dev, p)
			}
			c := counter(p, "rx_packets")
			if c == nil {
				t.Fatalf("frame %d: %s has no rx_packets", i, dev)
			}
			if (i == 0) != (c.Rate == nil) || (i > 0 && *c.Rate <= 0) {
				t.Errorf("frame %d: %s rx_packets rate %v", i, dev, c.Rate)
			}
		}
		for _, r := range f.Rules {
			if r.State == "cannot_evaluate" && i > 0 && !wholeCapture[r.Rule] {
				t.Errorf("frame %d: rule %s cannot be evaluated: %s", i, r.Rule, r.Detail)
			}
		}
		if len(f.Snapshot.QPs) != 5 {
			t.Errorf("frame %d: %d QPs", i, len(f.Snapshot.QPs))
		}
	}
	// The story in the numbers the views show.
	pfcT := fs[phases[pfc].Last]
	var prio3 *probes.PFCPriority
	for i, pp := range port(pfcT, "mlx5_0").PFC {
		if pp.Priority == 3 {
			prio3 = &port(pfcT, "mlx5_0").PFC[i]
		}
	}
	if prio3 == nil || prio3.RxPausedPercent == nil || *prio3.RxPausedPercent < 10 || *prio3.RxPausePerSec < 10000 {
		t.Errorf("PFC episode, priority 3: %+v", prio3)
	}
	ecnT := port(fs[phases[ecn].Last], "mlx5_0")
	if m, c := counter(ecnT, "ecn_marked_roce_packets"), counter(ecnT, "cnp_sent"); *m.Rate < 10000 || *c.Rate != 0 {
		t.Errorf("ECN episode: marks %v/s, CNPs %v/s", *m.Rate, *c.Rate)
	}
	lossT := fs[phases[loss].First]
	if oos := counter(port(lossT, "mlx5_0"), "out_of_sequence"); oos.Rate == nil || *oos.Rate < 100 {
		t.Errorf("loss episode: out_of_sequence %+v", oos)
	}
	if w := lossT.Interval.Totals; w.PSNGaps == 0 || w.RetransmittedPackets == 0 || w.GoBackN < 2 {
		t.Errorf("loss episode wire: %+v", w)
	}
}

// The QP that fails is in ERR, with its qp_state event on the tick it
// changed; it is destroyed and replaced when the job reconnects.
func TestQPError(t *testing.T) {
	fs := defaultFrames(t)
	at := fs[phases[qpErr].First]
	var ev *probes.Event
	for i, e := range at.Snapshot.Events {
		if e.Kind == "qp_state" && e.QPN != nil && *e.QPN == failedQPN {
			ev = &at.Snapshot.Events[i]
		}
	}
	if ev == nil || !strings.HasSuffix(ev.Detail, "RTS -> ERR") || ev.Device != "mlx5_0" {
		t.Fatalf("events at tick %d: %+v", phases[qpErr].First, at.Snapshot.Events)
	}
	for _, q := range fs[phases[qpErr].Last].Snapshot.QPs {
		if q.LQPN == failedQPN && q.State != "ERR" {
			t.Errorf("QP %#x is %s", q.LQPN, q.State)
		}
	}
	after := fs[phases[loss].First].Snapshot
	for _, q := range after.QPs {
		if q.LQPN == failedQPN {
			t.Errorf("QP %#x still listed after it was destroyed", q.LQPN)
		}
	}
	if f := active(fs[phases[loss].First], "qp-error-state"); f != nil {
		t.Errorf("qp-error-state still active after the QP was destroyed: %s", f.Evidence)
	}
}

// Frames can be asked for in any order through a monitor.Timeline (the
// screen's seeks): the same Frames as one pass.
func TestFrameAccess(t *testing.T) {
	tl := monitor.NewTimeline(context.Background(), func() (*monitor.Run, error) { return NewRun(DefaultSeed) })
	defer tl.Close()
	late, ok, err := tl.At(50)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	early, ok, err := tl.At(3)
	if err != nil || !ok || early.Seq != 3 || late.Seq != 50 {
		t.Fatalf("seq %d, %d, %v %v", early.Seq, late.Seq, ok, err)
	}
	a, _ := json.Marshal(late)
	b, _ := json.Marshal(defaultFrames(t)[50])
	if !bytes.Equal(a, b) {
		t.Error("frame 50 differs when asked for first")
	}
	if f, ok, err := tl.At(New(DefaultSeed).Ticks()); ok || err != nil || f.Seq != New(DefaultSeed).Ticks()-1 {
		t.Errorf("past the end: seq %d ok %v err %v", f.Seq, ok, err)
	}
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, _ := NewRun(DefaultSeed)
	for _, err := range r.Frames(cctx) {
		if err == nil {
			t.Error("a frame with a cancelled context")
		}
	}
}

// The demo agrees with itself: its capture is of this host (the local end
// of every flow is a GID of mlx5_0/1, so the QPs view joins QP 0x1a4 with
// its flow), and its QoS settings are listed once per netdev (the DCB
// replies are one recording, replayed for both).
func TestDemoConsistent(t *testing.T) {
	f := defaultFrames(t)[3]
	gids := map[string]bool{}
	for _, g := range f.Snapshot.Config.GIDs {
		if g.Device == "mlx5_0" && g.Port == 1 {
			if a, err := netip.ParseAddr(g.GID); err == nil {
				gids[a.Unmap().String()] = true
			}
		}
	}
	if len(f.Wire.Flows) == 0 {
		t.Fatal("no flow")
	}
	for _, fl := range f.Wire.Flows {
		if !gids[fl.Src] && !gids[fl.Dst] {
			t.Errorf("flow %d %s -> %s: neither end is a GID of mlx5_0/1 %v", fl.ID, fl.Src, fl.Dst, gids)
		}
	}
	var netdevs []string
	for _, d := range f.Snapshot.Config.DCB {
		netdevs = append(netdevs, d.Netdev)
	}
	if !slices.Equal(netdevs, []string{"eth0", "eth1"}) {
		t.Errorf("DCB listed for %v, want eth0 and eth1 once each", netdevs)
	}
}

// In every frame of the story, a finding's cause shares an object with it
// (and says which) and began no later than a tick after it: the loss on
// QP 0x0001a4 does not explain QP 0x0001a5 going to ERR ten seconds
// before it.
func TestExplanationsComeFirst(t *testing.T) {
	checked := 0
	for _, f := range defaultFrames(t) {
		for _, s := range f.Findings {
			c := s.ExplainedBy
			if c == nil {
				continue
			}
			checked++
			i := slices.IndexFunc(f.Findings, func(x rules.Finding) bool {
				return x.Rule == c.Rule && maps.Equal(x.Objects, c.Objects)
			})
			switch {
			case i < 0:
				t.Errorf("tick %d: %s %v explained by %s %v, not among the findings", f.Seq, s.Rule, s.Objects, c.Rule, c.Objects)
			case c.Via == "":
				t.Errorf("tick %d: %s %v explained by %s with nothing in common said", f.Seq, s.Rule, s.Objects, c.Rule)
			case f.Findings[i].FirstSeen.After(s.FirstSeen.Add(Interval)):
				t.Errorf("tick %d: %s %v (since %s) explained by %s %v, which began at %s", f.Seq, s.Rule, s.Objects,
					s.FirstSeen.Format(time.TimeOnly), c.Rule, c.Objects, f.Findings[i].FirstSeen.Format(time.TimeOnly))
			}
		}
	}
	if checked == 0 {
		t.Fatal("no explanation in the whole story")
	}
}

// activeOn reports whether frame fr has f's finding (same rule, same
// objects) active.
func activeOn(fr monitor.Frame, f *rules.Finding) bool {
	return slices.ContainsFunc(fr.Findings, func(x rules.Finding) bool {
		return x.Rule == f.Rule && !x.Resolved && maps.Equal(x.Objects, f.Objects)
	})
}
