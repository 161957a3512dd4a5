package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
	"github.com/expr-lang/expr/vm/runtime"
	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
)

// The flow-scope fast paths (flowfast.go) must answer exactly what running
// the condition as written answers.

// variedFlows are flows in every way the fast paths distinguish: calm,
// with PSN gaps, go-back-N resends, NAKs of each kind (the peer's too),
// ECN marks with and without CNPs, not ECN-capable, out of order, ICRC
// errors, timer resends only, RoCEv1 with link-local and routed GIDs,
// oversized payloads, counters past 2^63, with a peer, without one, and
// with a peer id no flow has.
func variedFlows() []capture.FlowSummary {
	type change func(*capture.FlowSummary)
	kinds := []change{
		func(*capture.FlowSummary) {},
		func(f *capture.FlowSummary) { f.PSNGaps, f.MissingPSNs = 1, 3 },
		func(f *capture.FlowSummary) { f.PSNGaps, f.GoBackN, f.RetransmittedPackets = 2, 2, 40 },
		func(f *capture.FlowSummary) { f.GoBackN, f.RetransmittedPackets = 1, 1 },
		func(f *capture.FlowSummary) { f.GoBackN, f.RetransmittedPackets = 3, 600 },
		func(f *capture.FlowSummary) { f.NAKs.PSNSequenceError = 3 },
		func(f *capture.FlowSummary) { f.NAKs.PSNSequenceError, f.NAKs.RNR = 3, 1 },
		func(f *capture.FlowSummary) { f.NAKs.RNR = 2 },
		func(f *capture.FlowSummary) { f.NAKs.RemoteAccessError = 1 },
		func(f *capture.FlowSummary) { f.NAKs.InvalidRequest = 1 },
		func(f *capture.FlowSummary) { f.NAKs.RemoteOperationalError = 4 },
		func(f *capture.FlowSummary) { f.ECNCE, f.ECN.CE, f.ECN.ECT0 = 20, 20, 980 },
		func(f *capture.FlowSummary) { f.ECNCE, f.ECN.CE, f.CNPs = 20, 20, 5 },
		func(f *capture.FlowSummary) { f.ECN.ECT0, f.ECN.NotECT = 0, 1000 },
		func(f *capture.FlowSummary) { f.ECN.ECT0, f.ECN.NotECT, f.CNPsCarried = 0, 1000, 2000 },
		func(f *capture.FlowSummary) { f.Packets, f.ECN.ECT0, f.ECN.NotECT = 5, 0, 5 },
		func(f *capture.FlowSummary) { f.OutOfOrder = 2 },
		func(f *capture.FlowSummary) { f.ICRCErrors = 1 },
		func(f *capture.FlowSummary) { f.ICRCErrors = 1000 },
		func(f *capture.FlowSummary) { f.ICRCErrors, f.RetransmittedPackets = 1000, 1 },
		func(f *capture.FlowSummary) {
			f.ReadReissues, f.ReadReissuesUnanswered, f.GoBackN, f.RetransmittedPackets = 3, 3, 3, 30
		},
		func(f *capture.FlowSummary) { f.RetransmittedPackets, f.NAKs.PSNSequenceError = 30, 1 },
		func(f *capture.FlowSummary) { f.Encap = "rocev1"; f.Src, f.Dst = "fe80::1", "fe80::2" },
		func(f *capture.FlowSummary) { f.Encap = "rocev1"; f.Src, f.Dst = "fe80::1", "2001:db8::2" },
		func(f *capture.FlowSummary) { f.Encap = "rocev1" },
		func(f *capture.FlowSummary) { f.MaxPayload = 4096; f.GoBackN, f.RetransmittedPackets = 2, 900 },
		func(f *capture.FlowSummary) { f.Transport = "CNP"; f.DSCP = 48 },
		func(f *capture.FlowSummary) {
			f.Packets, f.PSNGaps, f.GoBackN = math.MaxUint64, math.MaxUint64, 1<<63+5
		},
		func(f *capture.FlowSummary) { f.Packets, f.Requests = 0, 0; f.ECN = capture.ECNCounts{} },
	}
	var flows []capture.FlowSummary
	for i, k := range kinds {
		for _, peer := range []int{0, 1, 2} { // none, a calm peer, a peer like it
			a := capture.FlowSummary{Src: fmt.Sprintf("10.0.0.%d", i), Dst: "10.0.1.1", DestQP: uint32(0x100 + i),
				Encap: "rocev2", Transport: "RC", Packets: 1000, Requests: 1000, MaxPayload: 1024, DSCP: 26}
			a.ECN.ECT0 = 1000
			k(&a)
			switch peer {
			case 0:
				flows = append(flows, a)
			case 1:
				b := capture.FlowSummary{Src: a.Dst, Dst: a.Src, DestQP: 0x900, Encap: a.Encap, Transport: "RC", Packets: 1000, ACKs: 1000}
				flows = append(flows, a, b)
			case 2:
				b := a
				b.Src, b.Dst = a.Dst, a.Src
				flows = append(flows, a, b)
			}
		}
	}
	// Number them, pair them (a flow followed by its peer), and give a
	// few a peer id that no flow has.
	for i := range flows {
		flows[i].ID = i + 1
	}
	for i := 0; i < len(flows); i++ {
		if i+1 < len(flows) && flows[i+1].Src == flows[i].Dst && flows[i+1].Dst == flows[i].Src {
			flows[i].PeerID, flows[i+1].PeerID = i+2, i+1
			i++
		} else if i%5 == 0 {
			flows[i].PeerID = 100_000
		}
	}
	return flows
}

// extraFlowRules are flow conditions of the forms the quick tests decide,
// and some they must leave to the program (errors, pointers, variables).
var extraFlowRules = []string{
	`peer == nil || peer.naks.rnr > 0`,
	`nil != peer && peer.psn_gaps - flow.psn_gaps > 0`,
	`peer.psn_gaps >= 0 && flow.encap == "rocev2"`,
	`flow.encap != "rocev2" or flow.gbps > 1.5`,
	`flow.packets * 2 < flow.bytes - 3 * flow.requests`,
	`flow.go_back_n - flow.psn_gaps < 0`,
	`flow.packets + 0.5 > params.x && flow.id > 3`,
	`flow.psn_gaps > params.x - 3 || flow.cnps_carried != 0`,
	`not (flow.dscp == 26) || flow.dest_qp <= 0x110`,
	`flow.vlan == nil && flow.psn_gaps == 0`,
	`flow.last_ack_credits > 0 || flow.naks.rnr > 0`,
	`let g = flow.psn_gaps; g > 0`,
	`flow.src startsWith "10.0.0.1" && flow.max_payload > wire.pmtu`,
	`wire.duration_s * params.x >= float(flow.packets)`,
	`flow.troubled || flow.out_of_order > 0`,
	`flow.packets >= wire.totals.flows + wire.totals.naks.rnr && flow.timer_episodes == 0`,
	`flow.rtt_us.p50 >= flow.timer_wait_us || flow.psn_gaps > 0`,
	`let dcbs = host.config.dcb; len(dcbs) > 0 && flow.psn_gaps > 0`,
	`flow.naks.invalid_rd_request + flow.naks.reserved > flow.ecn.ect1 + flow.ecn.ce`,
	`flow.rtt_us.p99 > 10 && flow.psn_gaps > 0`,
}

func flowRule(t *testing.T, when string) *Rule {
	t.Helper()
	r := &Rule{ID: "x", Title: "x", Severity: Warning, Scope: ScopeFlow, When: when, Cause: "x", Confirm: []string{"x"},
		Fix: []string{"x"}, Evidence: "{{.Flow.ID}}", Params: map[string]float64{"x": 2.5}}
	if err := r.compile(); err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	return r
}

// flowFrames are frames of the varied flows: a capture alone, with host
// data but no DCB, and with DCB; the flows in order of id, and not.
func flowFrames() []Frame {
	t0 := time.Unix(1_800_000_000, 0)
	flows := variedFlows()
	w := &capture.Summary{Format: "pcap", DurationSec: 2, PMTU: 1024, Flows: flows}
	w.Totals.Flows = uint64(len(flows))
	w.Totals.NAKs.RNR = 1
	w.Totals.PSNGaps = 3
	shuffled := *w
	shuffled.Flows = append([]capture.FlowSummary{}, flows...)
	for i, j := 0, len(shuffled.Flows)-1; i < j; i, j = i+1, j-1 {
		shuffled.Flows[i], shuffled.Flows[j] = shuffled.Flows[j], shuffled.Flows[i]
	}
	noDCB := &probes.Snapshot{Time: t0}
	dcb := &probes.Snapshot{Time: t0}
	dcb.Config.DCB = []probes.DCBConfig{{PFCEnabled: []int{3}, Trust: "dscp", DSCPToPrio: map[int]int{26: 3, 48: 6}}}
	return []Frame{
		{Time: t0, Wire: w}, {Time: t0, Wire: &shuffled},
		{Time: t0, Wire: w, Snapshot: noDCB}, {Time: t0, Wire: &shuffled, Snapshot: dcb},
	}
}

func TestFlowFastPathsMatchProgram(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	rules := append([]*Rule{}, p.Rules...)
	for _, w := range extraFlowRules {
		rules = append(rules, flowRule(t, w))
	}
	e := NewEngine(p)
	var plain vm.VM
	checked, decided := 0, 0
	for _, f := range flowFrames() {
		host := hostEnv(f)
		wire := wireEnv(f)
		for _, r := range rules {
			for _, v := range r.variants() {
				if v.Scope != ScopeFlow {
					continue
				}
				objs := objects(f, ScopeFlow, &host, wire)
				it := objectIter{s: objs}
				for o := it.next(); o != nil; o = it.next() {
					if v.flowQuick != nil && v.flowQuick(o.flow, o.peer, o.base, bindParams(nil, v.flowParams, r.Params)) != unknown {
						decided++
					}
					got, gotErr := e.run(v, o, r.Params, false)
					env := o.prepare(r.Params)
					if env.Flow != o.flow || env.Peer != o.peer {
						t.Fatalf("flow %d: environment of another flow", o.flow.ID)
					}
					want, wantErr := plain.Run(v.program, env)
					if got != want || (gotErr == nil) != (wantErr == nil) {
						t.Errorf("%s %q on flow %d (peer %v): fast %v, %v; program %v, %v", r.ID, v.When, o.flow.ID, o.peer != nil, got, gotErr, want, wantErr)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d evaluations checked, %d decided by the quick tests", checked, decided)
	if checked < 10000 || decided < checked/2 {
		t.Fatalf("%d evaluations checked, %d decided by the quick tests", checked, decided)
	}
}

// TestFlowEngineMatchesPlain evaluates frames with an engine on the fast
// paths and one without them (no quick tests, no shared failure): the
// same results, findings, evidence, states and details.
func TestFlowEngineMatchesPlain(t *testing.T) {
	fast, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	slow, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range extraFlowRules {
		fast.Rules = append(fast.Rules, flowRule(t, w))
		slow.Rules = append(slow.Rules, flowRule(t, w))
	}
	for i, r := range fast.Rules {
		r.ID = fmt.Sprintf("%s-%d", r.ID, i)
		slow.Rules[i].ID = r.ID
	}
	quick, fails := 0, 0
	for _, r := range slow.Rules {
		for _, v := range r.variants() {
			if v.flowQuick != nil {
				quick++
			}
			if v.flowFails != nil {
				fails++
			}
			v.flowQuick, v.flowFails = nil, nil
		}
	}
	if quick < 15 || fails < 2 {
		t.Fatalf("%d conditions with quick tests, %d that may fail on every flow", quick, fails)
	}
	for i, f := range flowFrames() {
		a, b := NewEngine(fast), NewEngine(slow)
		a.IgnoreFor, b.IgnoreFor = i%2 == 0, i%2 == 0
		for tick := range 3 {
			f.Time = f.Time.Add(time.Duration(tick) * time.Second)
			got, want := a.Evaluate(f), b.Evaluate(f)
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			if string(gj) != string(wj) {
				t.Fatalf("frame %d tick %d: fast\n%s\nplain\n%s", i, tick, gj, wj)
			}
			if tick == 0 && len(got.Findings) < 20 {
				t.Fatalf("frame %d: only %d findings", i, len(got.Findings))
			}
		}
	}
}

// TestFlowFieldsAreExprs checks every field the quick tests read against
// expr reading it: the same number, of the same kind (integer or float).
func TestFlowFieldsAreExprs(t *testing.T) {
	fl := &capture.FlowSummary{Src: "a", Dst: "b", Encap: "c", Transport: "d", Gbps: 1.5}
	// Distinct values in every numeric field, by reflection.
	setNums(reflect.ValueOf(fl).Elem(), new(uint64))
	w := &WireEnv{DurationSec: 2.5}
	setNums(reflect.ValueOf(w).Elem(), new(uint64))
	env := &Env{Flow: fl, Wire: w}
	var m vm.VM
	read := func(src string) any {
		p, err := expr.Compile(src, expr.Env(Env{}))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		out, err := m.Run(p, env)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return out
	}
	for name, get := range flowNums {
		if got, want := get(fl), numOf(t, read("flow."+name)); got != want {
			t.Errorf("flow.%s: %+v, expr %+v", name, got, want)
		}
	}
	for name, get := range flowStrings {
		if got, want := get(fl), read("flow."+name); got != want {
			t.Errorf("flow.%s: %q, expr %v", name, got, want)
		}
	}
	for name, get := range wireNums {
		if got, want := get(w), numOf(t, read("wire."+name)); got != want {
			t.Errorf("wire.%s: %+v, expr %+v", name, got, want)
		}
	}
}

// setNums sets every integer and float field under v to the next value
// of n, so that no two fields read alike.
func setNums(v reflect.Value, n *uint64) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			setNums(v.Field(i), n)
		}
	case reflect.Int, reflect.Int64:
		*n++
		v.SetInt(int64(*n))
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		*n++
		v.SetUint(*n + 100)
	case reflect.Float64:
		*n++
		v.SetFloat(float64(*n) + 0.25)
	}
}

// numOf is what the quick tests make of a number expr reads.
func numOf(t *testing.T, v any) num {
	t.Helper()
	switch x := v.(type) {
	case int:
		return numI(x)
	case uint64:
		return numU(x)
	case uint32:
		return numU(uint64(x))
	case uint8:
		return numU(uint64(x))
	case float64:
		return numF(x)
	}
	t.Fatalf("%T is not a number the quick tests know", v)
	return num{}
}

// TestFlowNumbersAreExprs checks the quick tests' comparisons and
// arithmetic against expr's runtime, on the types the tests read.
func TestFlowNumbersAreExprs(t *testing.T) {
	vals := []any{0, 1, -1, 7, math.MaxInt, math.MinInt,
		uint64(0), uint64(1), uint64(7), uint64(1 << 40), uint64(math.MaxUint64), uint64(1<<63 + 5),
		uint32(0), uint32(7), uint32(math.MaxUint32), uint8(26), uint8(255),
		0.0, 0.5, 7.0, -3.25, 1e300, float64(1 << 63), 0.001}
	cmps := map[string]func(a, b any) bool{"==": runtime.Equal, "<": runtime.Less, ">": runtime.More,
		"<=": runtime.LessOrEqual, ">=": runtime.MoreOrEqual, "!=": func(a, b any) bool { return !runtime.Equal(a, b) }}
	ariths := map[string]func(a, b any) any{"+": runtime.Add, "-": runtime.Subtract, "*": runtime.Multiply}
	for _, a := range vals {
		for _, b := range vals {
			na, nb := numOf(t, a), numOf(t, b)
			for op, f := range cmps {
				if got, want := cmpNum(op, na, nb), f(a, b); got != want {
					t.Errorf("%T(%v) %s %T(%v): %v, expr %v", a, a, op, b, b, got, want)
				}
			}
			for op, f := range ariths {
				got, want := arithNum(op, na, nb), numOf(t, f(a, b))
				if got != want && !(math.IsNaN(got.f) && math.IsNaN(want.f)) {
					t.Errorf("%T(%v) %s %T(%v): %+v, expr %+v", a, a, op, b, b, got, want)
				}
			}
		}
	}
}

// TestHostLetFails checks what hostLetFails relies on: expr fails to read
// host.config.<field> without host data.
func TestHostLetFails(t *testing.T) {
	p, err := expr.Compile(`let d = host.config.dcb; flow.psn_gaps > 0`, expr.Env(Env{}), expr.AsBool())
	if err != nil {
		t.Fatal(err)
	}
	fails := hostLetFails(p)
	if fails == nil {
		t.Fatal("not recognized")
	}
	fl := &capture.FlowSummary{PSNGaps: 1}
	for _, host := range []*HostEnv{nil, {}} {
		env := &Env{Host: host, Flow: fl}
		if !fails(env) {
			t.Errorf("host %+v: not expected to fail", host)
		}
		var m vm.VM
		if out, err := m.Run(p, env); err == nil {
			t.Errorf("host %+v: %v, no error", host, out)
		}
	}
	if fails(&Env{Host: &HostEnv{Config: &probes.Config{}}}) {
		t.Error("fails with host data")
	}
	for _, src := range []string{`let d = host.config; d != nil`, `let d = flow.psn_gaps; d > 0`, `host.config.dcb != nil`} {
		p, err := expr.Compile(src, expr.Env(Env{}), expr.AsBool())
		if err != nil {
			t.Fatal(err)
		}
		if hostLetFails(p) != nil {
			t.Errorf("%s: recognized", src)
		}
	}
}
