package rules

import (
	"reflect"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
	"github.com/expr-lang/expr/vm/runtime"
	"github.com/rdmatop/rdmatop/capture"
)

// A capture can hold 100,000 flows, nearly all calm, and a flow-scope
// condition nearly always starts with a test of a counter that is zero on
// a calm flow (flow.psn_gaps >= params.min_gaps, flow.naks.rnr >= ...).
// flowTest is such a condition compiled to Go, like a QP's quickTest
// (memo.go): yes, no, or unknown (run the program). Its values are the
// ones expr's VM sees (the same Go types: uint64 counters, int ids,
// float64 params, the literals as the checker typed them), compared and
// added as expr's runtime does (num: integers as int, anything with a
// float as float64, TestFlowNumbersAreExprs), without boxing them, in the
// order the VM evaluates them (left to right, && and || short-circuiting).
// Anything it does not know (a pointer field, a function, a variable,
// mixed kinds) or a value it cannot read (a missing peer, a missing param)
// is unknown: a decided answer is the one the program gives, and no error
// is ever hidden. TestFlowFastPathsMatchProgram and
// TestFlowEngineMatchesPlain check it on varied flows.
type flowTest func(fl, peer *capture.FlowSummary, base *Env, ps []paramSlot) tri

// flowTestOf compiles what it can of a flow-scope condition, nil when it
// can never decide, and lists the params the test reads.
func flowTestOf(p *vm.Program) (flowTest, []string) {
	if p == nil {
		return nil, nil
	}
	v := &flowVisitor{}
	root := p.Node()
	ast.Walk(&root, v)
	if v.shadowed {
		return nil, nil
	}
	c := &flowCompiler{}
	t, ok := c.quick(root)
	if !ok {
		return nil, nil
	}
	return t, c.params
}

// flowCompiler compiles a condition's quick test: the params it reads
// are given to the test by place (paramSlot), looked up once a frame.
type flowCompiler struct {
	params []string
}

func (c *flowCompiler) slot(name string) int {
	if i := slices.Index(c.params, name); i >= 0 {
		return i
	}
	c.params = append(c.params, name)
	return len(c.params) - 1
}

// paramSlot is the value of a param a quick test reads, ok false when the
// rule has no such param.
type paramSlot struct {
	v  float64
	ok bool
}

// bindParams fills slots with the values in params of names.
func bindParams(slots []paramSlot, names []string, params map[string]float64) []paramSlot {
	slots = slots[:0]
	for _, n := range names {
		v, ok := params[n]
		slots = append(slots, paramSlot{v, ok})
	}
	return slots
}

// flowVisitor finds variables named as the environment's names: a
// condition declaring one is not compiled.
type flowVisitor struct{ shadowed bool }

func (v *flowVisitor) Visit(n *ast.Node) {
	if d, ok := (*n).(*ast.VariableDeclaratorNode); ok {
		switch d.Name {
		case "flow", "peer", "wire", "params", "host":
			v.shadowed = true
		}
	}
}

func unknownFlowTest(*capture.FlowSummary, *capture.FlowSummary, *Env, []paramSlot) tri {
	return unknown
}

// flowQuick compiles the boolean n, false when n is not a form it knows.
func (c *flowCompiler) quick(n ast.Node) (flowTest, bool) {
	switch n := n.(type) {
	case *ast.UnaryNode:
		if n.Operator != "!" && n.Operator != "not" {
			return nil, false
		}
		t, ok := c.quick(n.Node)
		if !ok {
			return nil, false
		}
		return func(fl, peer *capture.FlowSummary, base *Env, ps []paramSlot) tri {
			return not(t(fl, peer, base, ps))
		}, true
	case *ast.BinaryNode:
		switch n.Operator {
		case "&&", "and", "||", "or":
			l, okl := c.quick(n.Left)
			if !okl {
				return nil, false
			}
			r, okr := c.quick(n.Right)
			if !okr {
				r = unknownFlowTest
			}
			stop := no
			if n.Operator == "||" || n.Operator == "or" {
				stop = yes
			}
			return func(fl, peer *capture.FlowSummary, base *Env, ps []paramSlot) tri {
				switch a := l(fl, peer, base, ps); a {
				case stop, unknown:
					return a
				}
				return r(fl, peer, base, ps)
			}, true
		}
		l, okl := c.val(n.Left)
		r, okr := c.val(n.Right)
		if !okl || !okr {
			return nil, false
		}
		return compareTest(n.Operator, l, r)
	}
	return nil, false
}

// anyComparisons are expr's comparisons of other values (the peer and
// nil), as its VM runs them (!= is == negated).
var anyComparisons = map[string]func(a, b any) bool{
	"==": runtime.Equal,
	"!=": func(a, b any) bool { return !runtime.Equal(a, b) },
}

type valueKind int8

const (
	numValue valueKind = iota + 1
	strValue
	anyValue // the peer, nil
)

// flowValue reads a value the way expr does, false when it cannot (the
// program would fail, or might): a number, a string or another value.
type flowValue struct {
	kind valueKind
	num  func(fl, peer *capture.FlowSummary, base *Env, ps []paramSlot) (num, bool)
	str  func(fl, peer *capture.FlowSummary, base *Env) (string, bool)
	any  func(fl, peer *capture.FlowSummary) any
}

// compareTest compiles l op r.
func compareTest(op string, l, r flowValue) (flowTest, bool) {
	switch {
	case l.kind == numValue && r.kind == numValue:
		switch op {
		case "==", "!=", "<", ">", "<=", ">=":
		default:
			return nil, false
		}
		return func(fl, peer *capture.FlowSummary, base *Env, ps []paramSlot) tri {
			a, ok := l.num(fl, peer, base, ps)
			if !ok {
				return unknown
			}
			b, ok := r.num(fl, peer, base, ps)
			if !ok {
				return unknown
			}
			return triOf(cmpNum(op, a, b))
		}, true
	case l.kind == strValue && r.kind == strValue:
		var cmp func(a, b string) bool
		switch op {
		case "==":
			cmp = func(a, b string) bool { return a == b }
		case "!=":
			cmp = func(a, b string) bool { return a != b }
		case "startsWith":
			cmp = strings.HasPrefix
		default:
			return nil, false
		}
		return func(fl, peer *capture.FlowSummary, base *Env, _ []paramSlot) tri {
			a, ok := l.str(fl, peer, base)
			if !ok {
				return unknown
			}
			b, ok := r.str(fl, peer, base)
			if !ok {
				return unknown
			}
			return triOf(cmp(a, b))
		}, true
	case l.kind == anyValue && r.kind == anyValue:
		cmp := anyComparisons[op]
		if cmp == nil {
			return nil, false
		}
		return func(fl, peer *capture.FlowSummary, _ *Env, _ []paramSlot) tri {
			return triOf(cmp(l.any(fl, peer), r.any(fl, peer)))
		}, true
	}
	return nil, false
}

func constNum(v num) flowValue {
	return flowValue{kind: numValue, num: func(*capture.FlowSummary, *capture.FlowSummary, *Env, []paramSlot) (num, bool) {
		return v, true
	}}
}

// flowVal compiles the value n: a literal, a field of the flow, its peer
// or the capture, a param, the peer itself (peer != nil), or + - * of
// numbers.
func (c *flowCompiler) val(n ast.Node) (flowValue, bool) {
	switch n := n.(type) {
	case *ast.IntegerNode:
		// Pushed as the type the checker gave it (an int, or a float64
		// next to one).
		switch t := n.Type(); {
		case t == nil || t.Kind() == reflect.Int:
			return constNum(numI(n.Value)), true
		case t.Kind() == reflect.Float64:
			return constNum(numF(float64(n.Value))), true
		}
	case *ast.FloatNode:
		if t := n.Type(); t == nil || t.Kind() == reflect.Float64 {
			return constNum(numF(n.Value)), true
		}
	case *ast.StringNode:
		v := n.Value
		return flowValue{kind: strValue, str: func(*capture.FlowSummary, *capture.FlowSummary, *Env) (string, bool) { return v, true }}, true
	case *ast.NilNode:
		return flowValue{kind: anyValue, any: func(*capture.FlowSummary, *capture.FlowSummary) any { return nil }}, true
	case *ast.IdentifierNode:
		if n.Value == "peer" {
			// As expr reads it: a *FlowSummary, nil or not.
			return flowValue{kind: anyValue, any: func(_, peer *capture.FlowSummary) any { return peer }}, true
		}
	case *ast.BinaryNode:
		switch n.Operator {
		case "+", "-", "*":
		default:
			return flowValue{}, false
		}
		op := n.Operator
		l, okl := c.val(n.Left)
		r, okr := c.val(n.Right)
		if !okl || !okr || l.kind != numValue || r.kind != numValue {
			return flowValue{}, false
		}
		return flowValue{kind: numValue, num: func(fl, peer *capture.FlowSummary, base *Env, ps []paramSlot) (num, bool) {
			a, ok := l.num(fl, peer, base, ps)
			if !ok {
				return num{}, false
			}
			b, ok := r.num(fl, peer, base, ps)
			if !ok {
				return num{}, false
			}
			return arithNum(op, a, b), true
		}}, true
	case *ast.MemberNode:
		path, ok := memberPath(n)
		if !ok || len(path) < 2 {
			return flowValue{}, false
		}
		field := strings.Join(path[1:], ".")
		switch path[0] {
		case "flow", "peer":
			// The flow is always there, the peer may not be: expr fails.
			ofPeer := path[0] == "peer"
			pick := func(fl, peer *capture.FlowSummary) *capture.FlowSummary {
				if ofPeer {
					return peer
				}
				return fl
			}
			if get := flowNums[field]; get != nil {
				return flowValue{kind: numValue, num: func(fl, peer *capture.FlowSummary, _ *Env, _ []paramSlot) (num, bool) {
					if f := pick(fl, peer); f != nil {
						return get(f), true
					}
					return num{}, false
				}}, true
			}
			if get := flowStrings[field]; get != nil {
				return flowValue{kind: strValue, str: func(fl, peer *capture.FlowSummary, _ *Env) (string, bool) {
					if f := pick(fl, peer); f != nil {
						return get(f), true
					}
					return "", false
				}}, true
			}
		case "wire":
			if get := wireNums[field]; get != nil {
				return flowValue{kind: numValue, num: func(_, _ *capture.FlowSummary, base *Env, _ []paramSlot) (num, bool) {
					if base.Wire == nil {
						return num{}, false
					}
					return get(base.Wire), true
				}}, true
			}
		case "params":
			if len(path) != 2 {
				return flowValue{}, false
			}
			slot := c.slot(path[1])
			return flowValue{kind: numValue, num: func(_, _ *capture.FlowSummary, _ *Env, ps []paramSlot) (num, bool) {
				if p := ps[slot]; p.ok {
					return numF(p.v), true
				}
				return num{}, false // whatever expr makes of it, it runs
			}}, true
		}
	}
	return flowValue{}, false
}

// memberPath reads root.a.b... written with dots or ["a"] (no ?.), false
// for anything else.
func memberPath(n ast.Node) ([]string, bool) {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		return []string{n.Value}, true
	case *ast.MemberNode:
		if n.Optional {
			return nil, false
		}
		prop, ok := n.Property.(*ast.StringNode)
		if !ok {
			return nil, false
		}
		p, ok := memberPath(n.Node)
		if !ok {
			return nil, false
		}
		return append(p, prop.Value), true
	}
	return nil, false
}

// flowNums and flowStrings are the fields of a flow a test reads, by
// expr name, as expr reads them (TestFlowFieldsAreExprs checks every one
// against expr); the pointers (last_ack_credits, vlan, pcp, last_nak_psn)
// and the rest are left to expr.
var flowNums = map[string]func(*capture.FlowSummary) num{
	"id":                            func(f *capture.FlowSummary) num { return numI(f.ID) },
	"dest_qp":                       func(f *capture.FlowSummary) num { return numU(uint64(f.DestQP)) },
	"peer_id":                       func(f *capture.FlowSummary) num { return numI(f.PeerID) },
	"packets":                       func(f *capture.FlowSummary) num { return numU(f.Packets) },
	"bytes":                         func(f *capture.FlowSummary) num { return numU(f.Bytes) },
	"payload_bytes":                 func(f *capture.FlowSummary) num { return numU(f.PayloadBytes) },
	"max_payload":                   func(f *capture.FlowSummary) num { return numI(f.MaxPayload) },
	"requests":                      func(f *capture.FlowSummary) num { return numU(f.Requests) },
	"responses":                     func(f *capture.FlowSummary) num { return numU(f.Responses) },
	"messages":                      func(f *capture.FlowSummary) num { return numU(f.Messages) },
	"psn_gaps":                      func(f *capture.FlowSummary) num { return numU(f.PSNGaps) },
	"missing_psns":                  func(f *capture.FlowSummary) num { return numU(f.MissingPSNs) },
	"retransmitted_packets":         func(f *capture.FlowSummary) num { return numU(f.RetransmittedPackets) },
	"go_back_n":                     func(f *capture.FlowSummary) num { return numU(f.GoBackN) },
	"out_of_order":                  func(f *capture.FlowSummary) num { return numU(f.OutOfOrder) },
	"duplicates":                    func(f *capture.FlowSummary) num { return numU(f.Duplicates) },
	"read_reissues":                 func(f *capture.FlowSummary) num { return numU(f.ReadReissues) },
	"read_reissues_unanswered":      func(f *capture.FlowSummary) num { return numU(f.ReadReissuesUnanswered) },
	"acks":                          func(f *capture.FlowSummary) num { return numU(f.ACKs) },
	"zero_credit_acks":              func(f *capture.FlowSummary) num { return numU(f.ZeroCreditACKs) },
	"repeated_acks":                 func(f *capture.FlowSummary) num { return numU(f.RepeatedACKs) },
	"undone_nak_episodes":           func(f *capture.FlowSummary) num { return numU(f.UndoneNAKEpisodes) },
	"undone_timer_episodes":         func(f *capture.FlowSummary) num { return numU(f.UndoneTimerEpisodes) },
	"resends_after_ack":             func(f *capture.FlowSummary) num { return numU(f.ResendsAfterACK) },
	"cnps":                          func(f *capture.FlowSummary) num { return numU(f.CNPs) },
	"cnps_carried":                  func(f *capture.FlowSummary) num { return numU(f.CNPsCarried) },
	"ecn_ce":                        func(f *capture.FlowSummary) num { return numU(f.ECNCE) },
	"dscp":                          func(f *capture.FlowSummary) num { return numU(uint64(f.DSCP)) },
	"icrc_errors":                   func(f *capture.FlowSummary) num { return numU(f.ICRCErrors) },
	"icrc_unverifiable":             func(f *capture.FlowSummary) num { return numU(f.ICRCUnverifiable) },
	"naks.psn_sequence_error":       func(f *capture.FlowSummary) num { return numU(f.NAKs.PSNSequenceError) },
	"naks.rnr":                      func(f *capture.FlowSummary) num { return numU(f.NAKs.RNR) },
	"naks.invalid_request":          func(f *capture.FlowSummary) num { return numU(f.NAKs.InvalidRequest) },
	"naks.remote_access_error":      func(f *capture.FlowSummary) num { return numU(f.NAKs.RemoteAccessError) },
	"naks.remote_operational_error": func(f *capture.FlowSummary) num { return numU(f.NAKs.RemoteOperationalError) },
	"naks.invalid_rd_request":       func(f *capture.FlowSummary) num { return numU(f.NAKs.InvalidRDRequest) },
	"naks.reserved":                 func(f *capture.FlowSummary) num { return numU(f.NAKs.Reserved) },
	"ecn.not_ect":                   func(f *capture.FlowSummary) num { return numU(f.ECN.NotECT) },
	"ecn.ect1":                      func(f *capture.FlowSummary) num { return numU(f.ECN.ECT1) },
	"ecn.ect0":                      func(f *capture.FlowSummary) num { return numU(f.ECN.ECT0) },
	"ecn.ce":                        func(f *capture.FlowSummary) num { return numU(f.ECN.CE) },
}

var flowStrings = map[string]func(*capture.FlowSummary) string{
	"src":       func(f *capture.FlowSummary) string { return f.Src },
	"dst":       func(f *capture.FlowSummary) string { return f.Dst },
	"encap":     func(f *capture.FlowSummary) string { return f.Encap },
	"transport": func(f *capture.FlowSummary) string { return f.Transport },
}

// wireNums are the capture's numbers a test reads, by expr name.
var wireNums = map[string]func(*WireEnv) num{
	"roce_packets":                   func(w *WireEnv) num { return numU(w.RoCEPackets) },
	"packets":                        func(w *WireEnv) num { return numU(w.Packets) },
	"duration_s":                     func(w *WireEnv) num { return numF(w.DurationSec) },
	"pmtu":                           func(w *WireEnv) num { return numI(w.PMTU) },
	"totals.flows":                   func(w *WireEnv) num { return numU(w.Totals.Flows) },
	"totals.psn_gaps":                func(w *WireEnv) num { return numU(w.Totals.PSNGaps) },
	"totals.missing_psns":            func(w *WireEnv) num { return numU(w.Totals.MissingPSNs) },
	"totals.retransmitted_packets":   func(w *WireEnv) num { return numU(w.Totals.RetransmittedPackets) },
	"totals.go_back_n":               func(w *WireEnv) num { return numU(w.Totals.GoBackN) },
	"totals.out_of_order":            func(w *WireEnv) num { return numU(w.Totals.OutOfOrder) },
	"totals.cnps":                    func(w *WireEnv) num { return numU(w.Totals.CNPs) },
	"totals.ecn_ce":                  func(w *WireEnv) num { return numU(w.Totals.ECNCE) },
	"totals.naks.psn_sequence_error": func(w *WireEnv) num { return numU(w.Totals.NAKs.PSNSequenceError) },
	"totals.naks.rnr":                func(w *WireEnv) num { return numU(w.Totals.NAKs.RNR) },
	"totals.ecn.not_ect":             func(w *WireEnv) num { return numU(w.Totals.ECN.NotECT) },
	"totals.ecn.ect1":                func(w *WireEnv) num { return numU(w.Totals.ECN.ECT1) },
	"totals.ecn.ect0":                func(w *WireEnv) num { return numU(w.Totals.ECN.ECT0) },
	"totals.ecn.ce":                  func(w *WireEnv) num { return numU(w.Totals.ECN.CE) },
}

// A condition can start by reading the host (let dcbs = host.config.dcb;
// ...): without host data (a capture alone) that read fails, for every
// flow alike, before anything of the flow is read. hostLetFails
// recognizes such a condition: it returns the test that the frame makes
// the read fail, nil when the condition does not start that way. The
// engine then runs the condition on the frame's first flow and, when it
// fails, gives every flow of the frame that same error (Engine.run)
// instead of failing 100,000 times. That expr fails to read a field
// through a nil pointer is checked by TestHostLetFails.
func hostLetFails(p *vm.Program) func(base *Env) bool {
	if p == nil {
		return nil
	}
	let, ok := p.Node().(*ast.VariableDeclaratorNode)
	if !ok {
		return nil
	}
	path, ok := memberPath(let.Value)
	if !ok || len(path) < 3 || path[0] != "host" || path[1] != "config" {
		return nil
	}
	return func(base *Env) bool { return base.Host == nil || base.Host.Config == nil }
}

// flowFailure is the error of a condition that fails on every flow of the
// frame (hostLetFails): armed before the first flow, then the answer.
type flowFailure struct {
	armed, have bool
	ans         memoAnswer
}
