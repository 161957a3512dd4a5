package rules

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
)

func TestDefaultPackLoads(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rules) == 0 {
		t.Fatal("empty pack")
	}
}

func analyzeFile(t *testing.T, path string) *capture.Summary {
	t.Helper()
	s, err := capture.AnalyzeFile(path, capture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func findings(t *testing.T, f Frame) []Finding {
	t.Helper()
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(p)
	e.IgnoreFor = true
	fs := e.Evaluate(f).Findings
	CheckNoFailures(t, e)
	return fs
}

func TestPacketLossOnRealLoss(t *testing.T) {
	fs := findings(t, Frame{Time: time.Unix(0, 0), Wire: analyzeFile(t, "../testdata/rxe/pcap/lossy1.pcap")})
	n := 0
	for _, f := range fs {
		if f.Rule == "packet-loss" {
			n++
		}
	}
	if n != 3 { // the three requester flows (write, read, send) each lost packets
		t.Errorf("packet-loss fired on %d flows, want 3: %+v", n, fs)
	}
	if fs := findings(t, Frame{Time: time.Unix(0, 0), Wire: analyzeFile(t, "../testdata/rxe/pcap/clean.pcap")}); len(fs) != 0 {
		t.Errorf("findings on the clean capture: %+v", fs)
	}
}

// eqPack is a small pack for the engine's own tests: the same condition
// (a QP in ERR) at once and held for 3 s.
const eqPack = `
- id: qp-err-now
  title: QP in ERR
  severity: critical
  scope: qp
  when: qp.state == "ERR" || any(qp.events, {.detail endsWith "-> ERR"})
  evidence: "{{.QP.Device}} {{.QP.LQPN}} {{.QP.State}}"
  cause: test
  confirm: ["rdma res show qp"]
  fix: ["none"]
- id: qp-err-held
  title: QP in ERR for 3s
  severity: warning
  scope: qp
  for: 3s
  when: qp.state == "ERR"
  evidence: "{{.QP.Device}} {{.QP.LQPN}} held"
  cause: test
  confirm: ["rdma res show qp"]
  fix: ["none"]
`

func eqEngine(t testing.TB) *Engine {
	t.Helper()
	p, err := Load(fstest.MapFS{"p/a.yaml": {Data: []byte(eqPack)}}, "p")
	if err != nil {
		t.Fatal(err)
	}
	return NewEngine(p)
}

var eqT0 = time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)

// eqFrame is second sec of a run: a host whose QP table holds qps (lqpn:
// state). absent QPs are simply not in the table.
func eqFrame(sec int, qps map[uint32]string) Frame {
	s := &probes.Snapshot{Time: eqT0.Add(time.Duration(sec) * time.Second),
		Status: []probes.Status{{Source: "rdma netlink", State: probes.StateOK}}}
	for _, n := range slices.Sorted(maps.Keys(qps)) {
		s.QPs = append(s.QPs, probes.QP{Device: "rxe0", LQPN: n, Type: "RC", State: qps[n]})
	}
	return Frame{Time: s.Time, Snapshot: s}
}

// eqActive lists the active findings of rule as "rule lqpn".
func eqActive(res Result, rule string) []string {
	var out []string
	for _, f := range res.Findings {
		if f.Rule == rule && !f.Resolved {
			out = append(out, f.Objects["qpn"])
		}
	}
	return out
}

// A `for` timer survives one sample where its object is missing (the QP
// dump failed, or the whole host sample did) and is dropped after two;
// a sample where the condition is false restarts it.
func TestForSurvivesOneMissingSample(t *testing.T) {
	err := map[uint32]string{1: "ERR"}
	none := map[uint32]string{}
	hostless := Frame{} // the host source failed: no snapshot at all
	for _, c := range []struct {
		name   string
		grace  int
		frames []any // map (QPs) or Frame (hostless), one per second
		fires  int   // first second qp-err-held fires, -1 never
	}{
		{"held 3 s", 0, []any{err, err, err, err}, 3},
		{"one missing sample", 0, []any{err, err, none, err}, 3},
		{"one sample without host data", 0, []any{err, err, hostless, err}, 3},
		{"two missing samples restart it", 0, []any{err, err, none, none, err, err, err, err}, 7},
		{"two missing samples with TimerGrace 2", 2, []any{err, err, none, none, err}, 4},
		{"a false sample restarts it", 0, []any{err, map[uint32]string{1: "RTS"}, err, err, err, err}, 5},
		{"TimerGrace -1: no missed sample", -1, []any{err, err, none, err, err, err, err}, 6},
	} {
		e := eqEngine(t)
		e.TimerGrace = c.grace
		got := -1
		for sec, fr := range c.frames {
			var f Frame
			switch x := fr.(type) {
			case map[uint32]string:
				f = eqFrame(sec, x)
			case Frame:
				f = x
				f.Time = eqT0.Add(time.Duration(sec) * time.Second)
			}
			if a := eqActive(e.Evaluate(f), "qp-err-held"); len(a) > 0 && got < 0 {
				got = sec
			}
		}
		if got != c.fires {
			t.Errorf("%s: qp-err-held first fired at %d s, want %d", c.name, got, c.fires)
		}
	}
}

// QPs that are created and destroyed tick after tick, some in ERR, leave
// nothing behind: their timers go with them, and with a retention their
// resolved findings go once it has passed. Without one (a replay) every
// finding is kept, up to MaxResolved.
func TestChurnLeavesNoState(t *testing.T) {
	churn := func(e *Engine, ticks int) Result {
		var res Result
		for i := range ticks {
			qps := map[uint32]string{}
			for j := range uint32(5) {
				qps[uint32(i)*5+j] = map[bool]string{true: "ERR", false: "RTS"}[j < 2] // 2 of 5 in ERR, alive one tick
			}
			res = e.Evaluate(eqFrame(i, qps))
			if tm, _, _, _ := e.stateSize(); tm > 2*2 { // this tick's and the previous tick's (one missed sample)
				t.Fatalf("tick %d: %d timers", i, tm)
			}
		}
		return res
	}
	idle := func(e *Engine, from, ticks int) Result {
		var res Result
		for i := range ticks {
			res = e.Evaluate(eqFrame(from+i, nil))
		}
		return res
	}

	// Live: forget what resolved more than 10 s ago.
	e := eqEngine(t)
	e.Retention = 10 * time.Second
	churn(e, 200)
	if _, found, _, _ := e.stateSize(); found > 2*11+2 { // resolved within 10 s, plus the last tick's
		t.Errorf("live: %d findings kept during the churn", found)
	}
	res := idle(e, 200, 12)
	tm, found, order, queue := e.stateSize()
	if tm != 0 || found != 0 || order != 0 || queue != 0 || len(res.Findings) != 0 {
		t.Errorf("live, after the churn: %d timers, %d findings, %d in order, %d queued, %d reported", tm, found, order, queue, len(res.Findings))
	}
	if res.Forgotten != 400 { // 2 QPs in ERR per tick for 200 ticks
		t.Errorf("live: forgot %d findings, want 400", res.Forgotten)
	}

	// Replay: every finding that ever fired is reported.
	e = eqEngine(t)
	churn(e, 200)
	res = idle(e, 200, 12)
	tm, found, _, _ = e.stateSize()
	if tm != 0 || found != 400 || len(res.Findings) != 400 || res.Forgotten != 0 {
		t.Errorf("replay: %d timers, %d findings kept, %d reported, %d forgotten", tm, found, len(res.Findings), res.Forgotten)
	}

	// Replay with a cap: the newest 100 are kept.
	e = eqEngine(t)
	e.MaxResolved = 100
	churn(e, 200)
	res = idle(e, 200, 2)
	tm, found, order, queue = e.stateSize()
	if tm != 0 || found != 100 || len(res.Findings) != 100 || res.Forgotten != 300 || order > 2*found || queue > 2*found {
		t.Errorf("capped: %d timers, %d findings kept (%d in order, %d queued), %d reported, %d forgotten", tm, found, order, queue, len(res.Findings), res.Forgotten)
	}
	for _, f := range res.Findings {
		if n, _ := strconv.ParseUint(strings.TrimPrefix(f.Objects["qpn"], "0x"), 16, 32); n < 5*150 {
			t.Errorf("capped: kept %s, which resolved among the first", f.Objects["qpn"])
			break
		}
	}
}

// A finding that resolves and fires again is reported again, active, from
// its new start, in the place it first had; once forgotten, it comes back
// as a new finding at the end.
func TestFindingFiresAgain(t *testing.T) {
	e := eqEngine(t)
	e.Retention = 5 * time.Second
	steps := []struct {
		qps    map[uint32]string
		order  []string // qp-err-now findings, in reported order, "qpn state"
		active []string
	}{
		{map[uint32]string{1: "ERR"}, []string{"0x000001 active"}, []string{"0x000001"}},
		{map[uint32]string{1: "RTS", 2: "ERR"}, []string{"0x000002 active", "0x000001 resolved"}, []string{"0x000002"}},
		{map[uint32]string{1: "ERR", 2: "ERR"}, []string{"0x000001 active", "0x000002 active"}, []string{"0x000001", "0x000002"}},
		{map[uint32]string{2: "ERR"}, []string{"0x000002 active", "0x000001 resolved"}, []string{"0x000002"}},
	}
	for sec, st := range steps {
		res := e.Evaluate(eqFrame(sec, st.qps))
		var order []string
		for _, f := range res.Findings {
			if f.Rule == "qp-err-now" {
				order = append(order, f.Objects["qpn"]+map[bool]string{true: " resolved", false: " active"}[f.Resolved])
				// Fired again: its first occurrence is kept, the second counted.
				if f.Objects["qpn"] == "0x000001" && sec == 2 && (!f.FirstSeen.Equal(eqT0) || f.Occurrences != 2 ||
					!f.LatestSince.Equal(eqT0.Add(2*time.Second)) || !f.LastSeen.Equal(f.LatestSince)) {
					t.Errorf("fired again: first seen %v, %d times, the latest since %v, last seen %v",
						f.FirstSeen, f.Occurrences, f.LatestSince, f.LastSeen)
				}
			}
		}
		if !slices.Equal(order, st.order) || !slices.Equal(eqActive(res, "qp-err-now"), st.active) {
			t.Errorf("second %d: %v, want %v", sec, order, st.order)
		}
	}
	// 0x1 resolved at 3 s (last seen 2 s); past the retention it is
	// forgotten, and firing again makes it a new finding after 0x2.
	res := e.Evaluate(eqFrame(8, map[uint32]string{2: "ERR"}))
	if res.Forgotten != 1 || len(eqActive(res, "qp-err-now")) != 1 {
		t.Fatalf("at 8 s: forgotten %d, %+v", res.Forgotten, res.Findings)
	}
	res = e.Evaluate(eqFrame(9, map[uint32]string{1: "ERR", 2: "ERR"}))
	var order []string
	for _, f := range res.Findings {
		if f.Rule == "qp-err-now" {
			order = append(order, f.Objects["qpn"])
		}
	}
	if !slices.Equal(order, []string{"0x000002", "0x000001"}) {
		t.Errorf("after forgetting: %v", order)
	}
}

// The same frames give the same findings in the same order, whatever the
// maps inside the engine do: here many QPs that went to ERR and vanished
// within one sample (known only from their events) with MaxResolved
// forgetting as they go.
func TestFindingOrderDeterministic(t *testing.T) {
	run := func() []Result {
		e := eqEngine(t)
		e.MaxResolved = 7
		var out []Result
		for sec := range 30 {
			f := eqFrame(sec, map[uint32]string{uint32(1000 + sec%4): "ERR"})
			for j := range uint32(6) {
				q := uint32(sec)*10 + j
				f.Snapshot.Events = append(f.Snapshot.Events, probes.Event{Time: f.Time, Source: "qp", Kind: "qp_state",
					Device: "rxe0", QPN: &q, Detail: "RTS -> ERR"})
			}
			out = append(out, e.Evaluate(f))
		}
		return out
	}
	a := run()
	for range 5 {
		if b := run(); !reflect.DeepEqual(a, b) {
			t.Fatal("two runs over the same frames differ")
		}
	}
}
