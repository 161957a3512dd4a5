package rules

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"text/template"
	"time"

	"github.com/expr-lang/expr/vm"
	"github.com/rdmatop/rdmatop/probes"
)

// The engine's fast paths (memo.go, envfuncs.go, evidence.go) must answer
// exactly what running the condition as written answers.

// variedQPs are QPs in every combination the fast paths distinguish:
// states, owner known or not, memlock limit unlimited, low, high or
// unknown, with and without events.
func variedQPs() (qps []probes.QP, events []probes.Event) {
	pids := []*int{nil, new(int), new(int)}
	*pids[1], *pids[2] = 1234, 99
	low, high := uint64(64<<10), uint64(8<<30)
	mems := []*uint64{nil, &low, &high}
	n := uint32(0x100)
	for _, state := range []string{"RTS", "ERR", "SQE", "INIT"} {
		for _, pid := range pids {
			for _, mem := range mems {
				for _, unlimited := range []bool{false, true} {
					for _, withEvent := range []bool{false, true} {
						n++
						q := probes.QP{Device: "mlx5_0", Port: 1, LQPN: n, Type: "RC", State: state, PID: pid,
							MemlockSoft: mem, MemlockUnlimited: unlimited}
						if pid != nil {
							q.Comm = "trainer"
						}
						qps = append(qps, q)
						if withEvent {
							qpn := n
							events = append(events, probes.Event{Source: "qp", Kind: "qp_state", Device: "mlx5_0", QPN: &qpn,
								Detail: "RTS -> " + state})
						}
					}
				}
			}
		}
	}
	return qps, events
}

// extraQPRules are qp conditions of the forms the quick tests decide, and
// some they must leave to the program (errors first, variables, lqpn).
var extraQPRules = []string{
	`qp.state == "ERR" && qp.pid != nil`,
	`qp.state != "RTS" || qp.comm == "trainer"`,
	`qp.state not in ["RTS", "INIT"]`,
	`!(qp.state in ["RTS"]) && !qp.memlock_unlimited`,
	`qp.memlock_bytes == nil`,
	`nil != qp.memlock_bytes && qp.memlock_bytes < 1e6`,
	`qp.pid == nil || qp.memlock_bytes > 5`,
	`qp.memlock_bytes < 10 && qp.state == "ERR"`,
	`qp.memlock_unlimited or qp.pid > 100`,
	`all(qp.events, {.kind == "qp_state"}) && qp.state == "ERR"`,
	`none(qp.events, {.detail endsWith "ERR"})`,
	`one(qp.events, {true}) || qp.type == "UD"`,
	`len(qp.events) > 0 && qp.state == "RTS"`,
	`qp.lqpn % 3 == 0 && qp.state == "ERR"`,
	`qp.device == "mlx5_0" and qp.comm == ""`,
	`let s = qp.state; s == "ERR" || qp.pid == nil`,
	`qp.state == "ERR" && host.qps > 0`,
}

func qpRule(t *testing.T, when string) *Rule {
	t.Helper()
	r := &Rule{ID: "x", Title: "x", Severity: Warning, Scope: ScopeQP, When: when, Cause: "x", Confirm: []string{"x"},
		Fix: []string{"x"}, Evidence: "{{.QP.State}}"}
	if err := r.compile(); err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	return r
}

func TestQPFastPathsMatchProgram(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	rules := append([]*Rule{}, p.Rules...)
	for _, w := range extraQPRules {
		rules = append(rules, qpRule(t, w))
	}
	qps, events := variedQPs()
	snap := &probes.Snapshot{QPs: qps, Events: events,
		Status: []probes.Status{{Source: "rdma netlink", State: probes.StateOK}}}
	f := Frame{Time: time.Unix(1_800_000_000, 0), Snapshot: snap}
	host := hostEnv(f)
	e := NewEngine(p)
	var plain vm.VM
	checked := 0
	for _, r := range rules {
		for _, v := range r.variants() {
			if v.Scope != ScopeQP {
				continue
			}
			objs := objects(f, ScopeQP, &host, nil)
			memo := v.qpReads&qpMemoizable != 0
			e.memo.reset()
			it := objectIter{s: objs}
			for o := it.next(); o != nil; o = it.next() {
				got, gotErr := e.run(v, o, r.Params, memo)
				want, wantErr := plain.Run(v.program, o.prepare(r.Params))
				if got != want || (gotErr == nil) != (wantErr == nil) {
					t.Errorf("%s %q on %s: fast %v, %v; program %v, %v", r.ID, v.When, o.id(), got, gotErr, want, wantErr)
				}
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d evaluations checked", checked)
	}
}

// TestFastProgramMatchesProgram checks the compilation the engine runs
// (Env methods as functions) against the condition as written, on ports,
// priorities and the host, with counters missing or without a rate.
func TestFastProgramMatchesProgram(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	snap := fleetSnapshot(10, 3, true)
	for i := range snap.Ports {
		switch i % 4 {
		case 1: // a first sample: no rates, no deltas
			for j := range snap.Ports[i].Counters {
				snap.Ports[i].Counters[j].Rate, snap.Ports[i].Counters[j].Delta = nil, nil
			}
		case 2: // a port with few counters
			snap.Ports[i].Counters = snap.Ports[i].Counters[:3]
		case 3:
			snap.Ports[i].PFC = nil
		}
	}
	f := Frame{Time: snap.Time, Snapshot: snap}
	host := hostEnv(f)
	var a, b vm.VM
	checked := 0
	for _, r := range p.Rules {
		for _, v := range r.variants() {
			if v.fast == v.program {
				t.Errorf("%s (%s): the engine runs the program as written", r.ID, v.Scope)
			}
			objs := objects(f, v.Scope, &host, nil)
			it := objectIter{s: objs}
			for o := it.next(); o != nil; o = it.next() {
				env := o.prepare(r.Params)
				got, gotErr := a.Run(v.fast, env)
				want, wantErr := b.Run(v.program, env)
				if got != want || (gotErr == nil) != (wantErr == nil) {
					t.Errorf("%s (%s) on %s: fast %v, %v; program %v, %v", r.ID, v.Scope, o.id(), got, gotErr, want, wantErr)
				}
				checked++
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d evaluations checked", checked)
	}
}

// TestEnvFuncsAreEnvMethods checks that the functions standing for Env's
// methods have the methods' types, and that Env has no method on its
// pointer only (conditions are compiled against Env and run on *Env: the
// method indexes must be the same).
func TestEnvFuncsAreEnvMethods(t *testing.T) {
	env := reflect.TypeOf(Env{})
	if n, np := env.NumMethod(), reflect.TypeOf(&Env{}).NumMethod(); n != np {
		t.Fatalf("Env has %d methods, *Env %d: give the new method a value receiver", n, np)
	}
	for name, f := range envFuncs {
		m, ok := env.MethodByName(name)
		if !ok {
			t.Errorf("%s: Env has no such method", name)
			continue
		}
		if want := reflect.TypeOf(f.typ).Elem(); m.Type != want {
			t.Errorf("%s: method %v, function %v", name, m.Type, want)
		}
	}
}

func TestQPOnlyEvidence(t *testing.T) {
	for _, c := range []struct {
		tpl  string
		want bool
	}{
		{`{{.QP.Device}} QP 0x{{printf "%x" .QP.LQPN}}{{if .QP.PID}} pid {{num .QP.PID}}{{end}}`, true},
		{`{{range .QP.Events}}; {{.Detail}} at {{.Time.Unix}}{{end}}`, true},
		{`{{with .QP}}{{.State}}{{else}}{{.Port}}{{end}}`, false},
		{`{{with .QP}}{{.State}}{{end}}`, true},
		{`{{(.QP).State}} {{pct 1 2}}`, true},
		{`{{.QP.State}} of {{.Host.QPs}}`, false},
		{`{{.QP.State}} {{.Rate "x"}}`, false},
		{`{{.QP.State}} {{$.QP.State}}`, false},
		{`{{range $e := .QP.Events}}{{$e.Detail}}{{end}}`, false},
		{`{{.QP.State}} {{.Params.x}}`, false},
		{`{{template "u" .QP}}{{define "u"}}{{.}}{{end}}`, false},
		{`{{.}}`, false},
		{`plain`, true},
	} {
		tpl := template.Must(template.New("t").Funcs(templateFuncs).Parse(c.tpl))
		if got := qpOnlyEvidence(tpl); got != c.want {
			t.Errorf("%s: %v, want %v", c.tpl, got, c.want)
		}
	}
}

// TestEvidenceFollowsQP checks that a finding's evidence, kept while its
// QP does not change, follows every change of it.
func TestEvidenceFollowsQP(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	pid, pid2 := 10, 11
	low := uint64(1 << 20)
	base := probes.QP{Device: "mlx5_0", Port: 1, LQPN: 0x42, Type: "RC", State: "ERR", PID: &pid, Comm: "a",
		MemlockSoft: &low}
	qpn := uint32(0x42)
	steps := []func(q *probes.QP, s *probes.Snapshot){
		func(q *probes.QP, s *probes.Snapshot) {},
		func(q *probes.QP, s *probes.Snapshot) {}, // unchanged
		func(q *probes.QP, s *probes.Snapshot) { q.Comm = "b" },
		func(q *probes.QP, s *probes.Snapshot) { q.Comm, q.PID = "b", &pid2 },
		func(q *probes.QP, s *probes.Snapshot) { q.Comm, q.PID, q.State = "b", &pid2, "SQE" },
		func(q *probes.QP, s *probes.Snapshot) {
			q.Comm, q.PID, q.State = "b", &pid2, "SQE"
			s.Events = []probes.Event{{Source: "qp", Kind: "qp_state", Device: "mlx5_0", QPN: &qpn, Detail: "RTS -> SQE"}}
		},
		func(q *probes.QP, s *probes.Snapshot) { q.Comm, q.PID, q.State = "b", &pid2, "SQE" },
		func(q *probes.QP, s *probes.Snapshot) { q.PID, q.MemlockSoft = nil, nil },
		func(q *probes.QP, s *probes.Snapshot) {},
	}
	e := NewEngine(p)
	e.IgnoreFor = true
	now := time.Unix(1_800_000_000, 0)
	for i, step := range steps {
		q := base
		s := &probes.Snapshot{Status: []probes.Status{{Source: "rdma netlink", State: probes.StateOK}}}
		step(&q, s)
		s.QPs = []probes.QP{q}
		now = now.Add(time.Second)
		fr := Frame{Time: now, Snapshot: s}
		got := e.Evaluate(fr)
		fresh := NewEngine(p)
		fresh.IgnoreFor = true
		want := fresh.Evaluate(fr)
		if g, w := evidences(got, "qp"), evidences(want, "qp"); g != w {
			t.Errorf("step %d: evidence\n%s\nwant\n%s", i, g, w)
		}
	}
}

// evidences lists the active findings' rule and evidence of objects with
// key (a qp: "qpn").
func evidences(r Result, scope string) string {
	s := ""
	for _, f := range r.Findings {
		if !f.Resolved && (scope != "qp" || f.Objects["qpn"] != "") {
			s += fmt.Sprintf("%s: %s\n", f.Rule, f.Evidence)
		}
	}
	return s
}

// TestEvaluateAllocsBounded pins what an evaluation allocates at fleet
// size (BenchmarkEvaluatePack's frame: 16 ports with 8 priorities each,
// 10,000 QPs). Healthy QPs cost no allocation at all: what is allocated
// comes from the ports (144 port and priority objects, about a thousand
// condition runs, a hundred-odd port findings: 4,400 today, with port
// conditions and evidence evaluated in Go, portcond.go and evfast.go),
// so the bound is the same for 0 and 10,000 QPs (give or take a few:
// sync.Pool drops items at random under -race), and is today's figure
// with room for the pack to grow (16,000). A QP that keeps firing costs a
// few allocations a tick (its identity and key; its evidence is rendered
// again only when it changed): at most 6.
func TestEvaluateAllocsBounded(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	allocs := func(snap *probes.Snapshot) float64 {
		e := NewEngine(p)
		e.IgnoreFor = true
		tick := func() {
			snap.Time = snap.Time.Add(time.Second)
			e.Evaluate(Frame{Time: snap.Time, Snapshot: snap})
		}
		tick() // the findings' first occurrence
		return testing.AllocsPerRun(5, tick)
	}
	none, healthy := allocs(fleetSnapshot(0, 0, false)), allocs(fleetSnapshot(10_000, 0, false))
	t.Logf("allocations per evaluation: 16 ports: %.0f; with 10,000 healthy QPs: %.0f", none, healthy)
	// None, give or take what sync.Pool users (fmt, under -race) do.
	if healthy-none > 100 {
		t.Errorf("10,000 healthy QPs cost %.0f allocations per evaluation, want none", healthy-none)
	}
	if !raceOn && healthy > 16_000 {
		t.Errorf("%.0f allocations per evaluation at 16 ports and 10,000 QPs, want at most 16,000", healthy)
	}
	firingSnap := fleetSnapshot(10_000, 100, true)
	firing := 0
	for _, q := range firingSnap.QPs {
		if q.State == "ERR" || !q.MemlockUnlimited {
			firing++
		}
	}
	withFiring := allocs(firingSnap)
	perQP := (withFiring - healthy) / float64(firing)
	t.Logf("with %d QPs firing: %.0f (%.1f per firing QP)", firing, withFiring, perQP)
	if perQP > 6 {
		t.Errorf("a firing QP costs %.1f allocations per evaluation, want at most 6", perQP)
	}
}

// TestFastEvidenceMatchesEvidence renders every evidence template of the
// pack, and calls of Env's methods in every form, both as written and as
// the engine renders them (Env's methods as functions): the same text,
// errors included.
func TestFastEvidenceMatchesEvidence(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	var extra []*Rule
	for i, tpl := range []string{
		`{{"out_of_sequence" | .Rate | num}} {{num (.Rate "out_of_sequence")}} {{(.Delta "rx_packets")}}`,
		`{{with .Port}}{{.Device}}{{end}}{{range .Port.Events}}{{.Detail}}{{end}} {{.Value "tx_bytes"}}`,
		`{{if .Has "cnp_sent"}}has{{else}}{{.Rate "cnp_sent"}}{{end}} {{.AnyRate "a" "cnp_sent"}} {{.AnyRate}}`,
		`{{with $x := .Rate "cnp_sent"}}{{$x}}{{end}} {{$.Rate "cnp_sent"}}`,
		`{{.Rate}}`,
		`{{.Rate 5}}`,
		`{{.Rate "a" "b"}}`,
		`{{.Flow.TimerWaitUs}}`,
		`{{with .Rate "cnp_sent"}}{{.Rate "x"}}{{end}}`,
	} {
		r := &Rule{ID: fmt.Sprintf("t%d", i), Title: "x", Severity: Warning, Scope: ScopePort, When: "true", Cause: "x",
			Confirm: []string{"x"}, Fix: []string{"x"}, Evidence: tpl}
		if err := r.compile(); err != nil {
			t.Fatalf("%s: %v", tpl, err)
		}
		extra = append(extra, r)
	}
	snap := fleetSnapshot(40, 3, true)
	snap.Ports[1].Counters = snap.Ports[1].Counters[:2]
	for j := range snap.Ports[2].Counters {
		snap.Ports[2].Counters[j].Rate = nil
	}
	f := Frame{Time: snap.Time, Snapshot: snap}
	host := hostEnv(f)
	var a, b bytes.Buffer
	rewritten, checked := 0, 0
	for _, r := range append(append([]*Rule{}, p.Rules...), extra...) {
		for _, v := range r.variants() {
			if v.fastEvidence != v.evidence {
				rewritten++
			}
			objs := objects(f, v.Scope, &host, nil)
			it := objectIter{s: objs}
			for o := it.next(); o != nil; o = it.next() {
				env := *o.prepare(r.Params)
				got, want := render(&a, v.fastEvidence, &env), render(&b, v.evidence, &env)
				if got != want {
					t.Errorf("%s (%s) on %s:\n%s\nwant\n%s", r.ID, v.Scope, o.id(), got, want)
				}
				checked++
			}
		}
	}
	if rewritten < 20 || checked < 500 {
		t.Fatalf("%d templates rewritten, %d renderings checked", rewritten, checked)
	}
}
