package rules

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
)

// sparseFrames are frames with as little as a host or a capture can
// give: ports without counters, MTU or PFC data, priorities with nothing
// known, a QP without an owner, live and not, with and without a capture,
// a first sample and a second one.
func sparseFrames() []Frame {
	t0 := time.Unix(1_800_000_000, 0)
	mk := func(interval float64) *probes.Snapshot {
		s := &probes.Snapshot{Time: t0, Interval: interval}
		s.Ports = []probes.Port{
			{Device: "mlx5_0", Port: 1, Netdev: "eth0", State: "ACTIVE", PhysState: "LinkUp", LinkLayer: "Ethernet",
				PFC: []probes.PFCPriority{{Priority: 3}}},
			{Device: "mlx5_1", Port: 1, State: "ACTIVE", PhysState: "LinkUp", LinkLayer: "InfiniBand"},
			// Counters present but without rates (a first sample).
			{Device: "rxe0", Port: 1, Netdev: "veth0", State: "ACTIVE", PhysState: "LinkUp", LinkLayer: "Ethernet",
				Counters: []probes.Counter{{Name: "rx_packets", Value: 5}, {Name: "retransmit_rounds", Value: 1}}},
		}
		s.QPs = []probes.QP{{Device: "mlx5_0", Port: 1, LQPN: 0x11, Type: "RC", State: "RTS"}}
		return s
	}
	wire := fleetCapture(200)
	empty := &capture.Summary{Format: "live"}
	var out []Frame
	for _, live := range []bool{false, true} {
		for _, snap := range []*probes.Snapshot{nil, mk(0), mk(1)} {
			for _, w := range []*capture.Summary{nil, empty, wire} {
				if snap == nil && w == nil {
					continue
				}
				out = append(out, Frame{Time: t0, Snapshot: snap, Wire: w, Live: live})
			}
		}
	}
	return out
}

// Where data is missing the bundled pack says so (known, need, requires):
// no condition fails on the way, which would be slow (expr panics and
// recovers) and give a vaguer reason. And the rules that cannot evaluate
// say why.
func TestPackSaysWhatItNeeds(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range sparseFrames() {
		e := NewEngine(p)
		e.IgnoreFor = true
		res := e.Evaluate(f)
		CheckNoFailures(t, e)
		for _, st := range res.Rules {
			if st.State == "cannot_evaluate" && strings.TrimSpace(st.Detail) == "" {
				t.Errorf("frame %d: %s cannot evaluate and does not say why", i, st.Rule)
			}
		}
	}
}

// findingText is what a finding says, for comparing two evaluations.
func findingText(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %v %s %v %g", f.Rule, f.Objects, f.Evidence, f.Resolved, f.Magnitude))
	}
	sort.Strings(out)
	return out
}

// The on lists of the bundled pack only pass over flows where the
// conditions are false anyway: on every capture of testdata, with and
// without the index, the same findings and rule states. (An on list is
// part of its condition's meaning; for the bundled pack it is also
// implied by it, which this checks on real traffic.)
func TestOnListsImpliedByConditions(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../testdata/*/*.pcap")
	more, _ := filepath.Glob("../testdata/*/*/*.pcap")
	files = append(files, more...)
	if len(files) < 20 {
		t.Fatalf("%d captures in testdata: the check needs them", len(files))
	}
	t0 := time.Unix(1_800_000_000, 0)
	frames := []Frame{{Time: t0, Wire: fleetCapture(5000)}, {Time: t0, Wire: mixedClasses(fleetCapture(5000))}}
	for _, f := range files {
		s, err := capture.AnalyzeFile(f, capture.Config{})
		if err != nil || len(s.Flows) == 0 {
			continue
		}
		frames = append(frames, Frame{Time: t0, Wire: s})
	}
	bare := packWithoutOnLists(t)
	skipped := 0
	for i, f := range frames {
		with, without := NewEngine(p), NewEngine(bare)
		with.IgnoreFor, without.IgnoreFor = true, true
		a, b := with.Evaluate(f), without.Evaluate(f)
		if i == 1 && !slices.ContainsFunc(a.Findings, func(f Finding) bool { return f.Rule == "qos-direction-mismatch" }) {
			t.Errorf("mixed classes: no qos-direction-mismatch; the != tests were not exercised")
		}
		if !slices.Equal(findingText(a.Findings), findingText(b.Findings)) || !reflect.DeepEqual(a.Rules, b.Rules) {
			t.Errorf("frame %d: with the on index\n%v\n%v\nwithout\n%v\n%v", i, findingText(a.Findings), a.Rules, findingText(b.Findings), b.Rules)
		}
		for j := range f.Wire.Flows {
			for _, r := range p.Rules {
				for _, v := range r.variants() {
					if on := with.idx.check(v); v.Scope == ScopeFlow && with.idx.skip(&on, j, -1) {
						skipped++
					}
				}
			}
		}
	}
	if skipped == 0 {
		t.Fatal("the index passed over no flow: the check checked nothing")
	}
	t.Logf("%d frames, %d flow evaluations passed over by the index", len(frames), skipped)
}

// mixedClasses gives some of w's connections directions on different
// classes: one direction's DSCP changed, or PCPs that differ, or a PCP on
// one direction only (which no rule compares).
func mixedClasses(w *capture.Summary) *capture.Summary {
	pcp := []uint8{3, 0}
	for i := range w.Flows {
		fl := &w.Flows[i]
		switch i % 40 {
		case 0:
			fl.DSCP = 0
		case 10, 11:
			fl.PCP = &pcp[i%2]
		case 20:
			fl.PCP = &pcp[0]
		}
	}
	return w
}

// packWithoutOnLists is the bundled pack with its on lists taken out:
// every flow variant evaluated on every flow.
func packWithoutOnLists(t *testing.T) *Pack {
	t.Helper()
	files, err := fs.Glob(packFS, "pack/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("pack files: %v", err)
	}
	onLine := regexp.MustCompile(`(?m)^\s*on: \[.*\]\n`)
	m := fstest.MapFS{}
	removed := 0
	for _, f := range files {
		data, err := fs.ReadFile(packFS, f)
		if err != nil {
			t.Fatal(err)
		}
		removed += len(onLine.FindAll(data, -1))
		m[f] = &fstest.MapFile{Data: onLine.ReplaceAll(data, nil)}
	}
	if removed == 0 {
		t.Fatal("no on list in the pack: nothing to compare")
	}
	p, err := Load(m, "pack")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A pack naming more than 64 distinct on tests keeps their meaning: the
// variants past the mask's bits check their lists test by test.
func TestOnListsPastTheMask(t *testing.T) {
	var b strings.Builder
	rule := func(id, on, when string) {
		fmt.Fprintf(&b, "- id: %s\n  title: t\n  severity: warning\n  scope: flow\n  on: [%s]\n  when: %s\n  evidence: x\n  cause: c\n  confirm: [c]\n  fix: [f]\n", id, on, when)
	}
	var many []string
	for i := range 64 {
		many = append(many, fmt.Sprintf("src=10.9.9.%d", i))
	}
	rule("sixty-four", strings.Join(many, ", "), "true")
	rule("past", "encap=rocev1", "true")
	p, err := Load(fstest.MapFS{"p/a.yaml": {Data: []byte(b.String())}}, "p")
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(p)
	if _, ok := e.idx.bits[p.Rule("past").variants()[0]]; ok {
		t.Fatal("the 65th test got a bit: the check checks nothing")
	}
	e.IgnoreFor = true
	w := &capture.Summary{Flows: []capture.FlowSummary{
		{ID: 1, Src: "10.9.9.3", Encap: "rocev2"}, {ID: 2, Src: "10.0.0.1", Encap: "rocev1"}, {ID: 3, Src: "10.0.0.2", Encap: "rocev2"}}}
	fired := map[string][]string{}
	for _, f := range e.Evaluate(Frame{Time: time.Unix(1_800_000_000, 0), Wire: w}).Findings {
		fired[f.Rule] = append(fired[f.Rule], f.Objects["flow"])
	}
	if !slices.Equal(fired["sixty-four"], []string{"1"}) || !slices.Equal(fired["past"], []string{"2"}) {
		t.Errorf("fired %v, want sixty-four on flow 1 and past on flow 2", fired)
	}
}

// A condition that reads only its QP keeps its answers on the QPs that
// did not change: frame after frame, while QPs change state, appear,
// vanish, move place and have events, the engine says what an engine
// that asks every QP every frame says.
func TestQPAnswersKeptOnlyForUnchangedQPs(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	memo, fresh := NewEngine(p), NewEngine(p)
	local := 0
	for _, r := range p.Rules {
		for _, v := range r.variants() {
			if v.qpLocal {
				local++
			}
		}
	}
	if local == 0 {
		t.Fatal("no qp condition of the pack reads only its QP: nothing to check")
	}
	snap := fleetSnapshot(300, 0, true)
	snap.Ports = snap.Ports[:1]
	for sec := range 40 {
		snap.Time = snap.Time.Add(time.Second)
		snap.Events = nil
		switch {
		case sec%5 == 1: // a QP fails, with its event
			q := &snap.QPs[sec%len(snap.QPs)]
			q.State = "ERR"
			qpn := q.LQPN
			snap.Events = append(snap.Events, probes.Event{Time: snap.Time, Source: "qp", Kind: "qp_state", Device: q.Device, QPN: &qpn, Detail: "RTS -> ERR"})
		case sec%5 == 2: // it is destroyed: every QP after it moves one place
			snap.QPs = slices.Delete(snap.QPs, (sec-1)%len(snap.QPs), (sec-1)%len(snap.QPs)+1)
		case sec%5 == 3: // a new QP, first
			low := uint64(1 << 20)
			pid := 7
			snap.QPs = slices.Insert(snap.QPs, 0, probes.QP{Device: "mlx5_0", LQPN: uint32(0x9000 + sec), Type: "RC", State: "INIT", PID: &pid, MemlockSoft: &low})
		case sec%5 == 4: // its memlock limit changes in place
			v := uint64(4 << 30)
			snap.QPs[0].MemlockSoft = &v
		}
		fresh.qpAns = map[*Variant]*qpAnswers{} // asks every QP
		a, b := memo.Evaluate(Frame{Time: snap.Time, Snapshot: snap}), fresh.Evaluate(Frame{Time: snap.Time, Snapshot: snap})
		if !slices.Equal(findingText(a.Findings), findingText(b.Findings)) || !reflect.DeepEqual(a.Rules, b.Rules) {
			t.Fatalf("second %d: kept answers\n%v\nasked\n%v", sec, findingText(a.Findings), findingText(b.Findings))
		}
	}
}

// known(), need() and requires make a rule cannot-evaluate on an object
// (never ok, never firing) exactly where the data they name is missing,
// whatever the rest of the condition says, and the reason says so.
func TestKnownNeedRequires(t *testing.T) {
	const pack = `
- id: k
  title: known
  severity: warning
  scope: port
  when: port.state == "DOWN" || (known(port.mtu) && port.mtu < 9000)
  evidence: x
  cause: c
  confirm: [c]
  fix: [f]
- id: n
  title: need
  severity: warning
  scope: port
  when: need(port.rate_gbps > 0) && port.rate_gbps < 100
  evidence: x
  cause: c
  confirm: [c]
  fix: [f]
- id: r
  title: requires
  severity: warning
  scope: port
  requires: host.qps > 0
  when: port.rate_gbps < 100
  evidence: x
  cause: c
  confirm: [c]
  fix: [f]
`
	p, err := Load(fstest.MapFS{"p/a.yaml": {Data: []byte(pack)}}, "p")
	if err != nil {
		t.Fatal(err)
	}
	mtu := 1500
	t0 := time.Unix(1_800_000_000, 0)
	for _, c := range []struct {
		name string
		port probes.Port
		qps  int
		want map[string]string // rule → state
	}{
		{"all known, all fire", probes.Port{State: "ACTIVE", MTU: &mtu, RateGbps: 25}, 1,
			map[string]string{"k": "firing", "n": "firing", "r": "firing"}},
		{"an earlier term decides", probes.Port{State: "DOWN"}, 1,
			map[string]string{"k": "firing", "n": "cannot_evaluate", "r": "firing"}},
		{"missing", probes.Port{State: "ACTIVE"}, 0,
			map[string]string{"k": "cannot_evaluate", "n": "cannot_evaluate", "r": "cannot_evaluate"}},
	} {
		s := &probes.Snapshot{Time: t0, Ports: []probes.Port{c.port}, Interval: 1}
		for range c.qps {
			s.QPs = append(s.QPs, probes.QP{Device: "d", LQPN: 1, State: "RTS"})
		}
		s.Ports[0].Device, s.Ports[0].Port, s.Ports[0].LinkLayer = "d", 1, "Ethernet"
		e := NewEngine(p)
		e.IgnoreFor = true
		res := e.Evaluate(Frame{Time: t0, Snapshot: s})
		CheckNoFailures(t, e)
		for _, st := range res.Rules {
			if st.State != c.want[st.Rule] {
				t.Errorf("%s: %s is %s (%s), want %s", c.name, st.Rule, st.State, st.Detail, c.want[st.Rule])
			}
			if st.State == "cannot_evaluate" && !strings.Contains(st.Detail, "not available here") {
				t.Errorf("%s: %s cannot evaluate, says %q", c.name, st.Rule, st.Detail)
			}
		}
	}
}
