package rules

import (
	"slices"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
	"github.com/rdmatop/rdmatop/probes"
)

// A frame can hold 10,000 QPs that nearly all look alike to a rule (RTS,
// no events, the same few owners): the engine runs a qp-scope condition
// once per distinct value of the QP fields it reads, and reuses the answer
// for the other QPs of the frame. This is exact because, within a frame,
// everything else a condition sees (host, wire, params) is the same for
// every QP, and the condition is pure (qpReadsOf refuses now() and any use
// of qp other than reading one of its fields).

// qpField is a set of QPEnv fields, by their expr names.
type qpField uint16

const (
	qpDevice qpField = 1 << iota
	qpLQPN
	qpType
	qpState
	qpPID
	qpComm
	qpMemlockBytes
	qpMemlockUnlimited
	qpEvents
	// qpMemoizable marks a condition whose answer depends only on the
	// fields in its set (which may be empty: a condition on the host).
	qpMemoizable
	// qpAll is everything a QP is (with no events).
	qpAll = qpMemoizable<<1 - 1
)

var qpFieldNames = map[string]qpField{
	"device": qpDevice, "lqpn": qpLQPN, "type": qpType, "state": qpState, "pid": qpPID, "comm": qpComm,
	"memlock_bytes": qpMemlockBytes, "memlock_unlimited": qpMemlockUnlimited, "events": qpEvents,
}

// qpReadsOf returns the QP fields the program reads, with qpMemoizable,
// or 0 when its answer may depend on anything else: qp used other than
// as qp.<field> (qp itself, qp[name], $env), a variable shadowing qp, or
// an impure builtin (now, date: date("now") is the clock). A condition
// reading qp.lqpn is not memoized either: nearly every QP would be a key
// of its own.
func qpReadsOf(p *vm.Program) qpField {
	if p == nil {
		return 0
	}
	v := visitQP(p)
	if v.impure || v.shadowed || v.idents != v.fields || v.reads&qpLQPN != 0 {
		return 0
	}
	return v.reads | qpMemoizable
}

type qpVisitor struct {
	reads          qpField
	idents, fields int // references to qp, and those that read a field
	impure         bool
	shadowed       bool // a variable named qp
}

func visitQP(p *vm.Program) *qpVisitor {
	v := &qpVisitor{}
	root := p.Node()
	ast.Walk(&root, v)
	return v
}

func (v *qpVisitor) Visit(n *ast.Node) {
	switch n := (*n).(type) {
	case *ast.IdentifierNode:
		switch n.Value {
		case "qp":
			v.idents++
		case "$env", "now", "date":
			v.impure = true
		}
	case *ast.MemberNode:
		id, ok1 := n.Node.(*ast.IdentifierNode)
		prop, ok2 := n.Property.(*ast.StringNode)
		if ok1 && ok2 && id.Value == "qp" {
			if f, ok := qpFieldNames[prop.Value]; ok {
				v.reads |= f
				v.fields++
			}
		}
	case *ast.BuiltinNode:
		if n.Name == "now" || n.Name == "date" {
			v.impure = true
		}
	case *ast.VariableDeclaratorNode:
		if n.Name == "qp" {
			v.shadowed = true
		}
	}
}

// qpMemoKey is what a condition reading the fields of reads sees of a QP
// (the other fields are left zero). Events are not in it: a QP with
// events is evaluated, not memoized, by a condition that reads them.
type qpMemoKey struct {
	device, typ, state, comm string
	lqpn                     uint32
	pid                      int
	memlock                  uint64
	hasPID, hasMemlock       bool
	unlimited                bool
}

// memoKey returns the key of o for a condition reading reads, false when
// o cannot share an answer with another QP (it has events the condition
// reads, or it is a QP gone from the snapshot).
func (o *object) memoKey(reads qpField) (qpMemoKey, bool) {
	q := o.qp
	if q == nil || reads&qpMemoizable == 0 || (reads&qpEvents != 0 && len(o.events) > 0) {
		return qpMemoKey{}, false
	}
	var k qpMemoKey
	if reads&qpDevice != 0 {
		k.device = q.Device
	}
	if reads&qpLQPN != 0 {
		k.lqpn = q.LQPN
	}
	if reads&qpType != 0 {
		k.typ = q.Type
	}
	if reads&qpState != 0 {
		k.state = q.State
	}
	if reads&qpPID != 0 && q.PID != nil {
		k.pid, k.hasPID = *q.PID, true
	}
	if reads&qpComm != 0 {
		k.comm = q.Comm
	}
	if reads&qpMemlockBytes != 0 && q.MemlockSoft != nil {
		k.memlock, k.hasMemlock = *q.MemlockSoft, true
	}
	if reads&qpMemlockUnlimited != 0 {
		k.unlimited = q.MemlockUnlimited
	}
	return k, true
}

// memoAnswer is a condition's answer on a QP: its value, or the error
// that kept it from being evaluated.
type memoAnswer struct {
	out any
	err error
}

// qpMemo holds the answers of one condition in one frame: the last one
// (QPs of one owner are listed together) and all the others by key.
type qpMemo struct {
	last    qpMemoKey
	lastAns memoAnswer
	hasLast bool
	byKey   map[qpMemoKey]memoAnswer
}

// reset empties the memo for the next condition, keeping its map's room.
func (m *qpMemo) reset() {
	m.hasLast = false
	if len(m.byKey) > 0 {
		clear(m.byKey)
	}
}

func (m *qpMemo) get(k qpMemoKey) (memoAnswer, bool) {
	if m.hasLast && m.last == k {
		return m.lastAns, true
	}
	a, ok := m.byKey[k]
	if ok {
		m.last, m.lastAns, m.hasLast = k, a, true
	}
	return a, ok
}

func (m *qpMemo) put(k qpMemoKey, a memoAnswer) {
	if m.byKey == nil {
		m.byKey = map[qpMemoKey]memoAnswer{}
	}
	m.byKey[k] = a
	m.last, m.lastAns, m.hasLast = k, a, true
}

// qpEnvOf builds the QPEnv of a snapshot QP with its events.
func qpEnvOf(q *probes.QP, events []probes.Event) *QPEnv {
	qe := &QPEnv{Device: q.Device, LQPN: int(q.LQPN), Type: q.Type, State: q.State, Comm: q.Comm,
		MemlockBytes: u64(q.MemlockSoft), MemlockUnlimited: q.MemlockUnlimited, Events: events}
	if q.PID != nil {
		qe.PID = *q.PID
	}
	return qe
}

// A QP whose answer needs no run at all: most conditions on QPs start with
// plain tests of its fields (qp.state in [...], !qp.memlock_unlimited,
// qp.pid != nil) that settle the answer for nearly every QP. quickTest is
// such a condition compiled to Go, in three values: yes, no, or unknown
// (run the program). It only decides what cannot fail, in the order expr
// evaluates it (left to right, && and || short-circuiting), so a decided
// answer is the one the program gives, and never hides an error.
type quickTest func(q *probes.QP, events []probes.Event) tri

type tri int8

const (
	unknown tri = iota
	no
	yes
)

func unknownTest(*probes.QP, []probes.Event) tri { return unknown }

// quickTestOf compiles what it can of a qp-scope condition; nil when it
// can never decide.
func quickTestOf(p *vm.Program) quickTest {
	if p == nil || visitQP(p).shadowed {
		return nil
	}
	t, ok := quick(p.Node())
	if !ok {
		return nil
	}
	return t
}

// quick compiles n, false when n is not a form it knows (the test would
// always answer unknown).
func quick(n ast.Node) (quickTest, bool) {
	switch n := n.(type) {
	case *ast.UnaryNode:
		if n.Operator != "!" && n.Operator != "not" {
			return nil, false
		}
		t, ok := quick(n.Node)
		if !ok {
			return nil, false
		}
		return func(q *probes.QP, evs []probes.Event) tri { return not(t(q, evs)) }, true
	case *ast.BinaryNode:
		switch n.Operator {
		case "&&", "and", "||", "or":
			l, okl := quick(n.Left)
			if !okl {
				return nil, false // unknown left: the right is never enough
			}
			r, okr := quick(n.Right)
			if !okr {
				r = unknownTest
			}
			// stop is the left answer that decides alone.
			stop := no
			if n.Operator == "||" || n.Operator == "or" {
				stop = yes
			}
			return func(q *probes.QP, evs []probes.Event) tri {
				switch a := l(q, evs); a {
				case stop, unknown:
					return a
				}
				return r(q, evs)
			}, true
		case "==", "!=":
			t, ok := quickEqual(n.Left, n.Right)
			if !ok {
				t, ok = quickEqual(n.Right, n.Left)
			}
			if !ok {
				return nil, false
			}
			if n.Operator == "!=" {
				return func(q *probes.QP, evs []probes.Event) tri { return not(t(q, evs)) }, true
			}
			return t, true
		case "in":
			get := qpString(n.Left)
			set, ok := stringSet(n.Right)
			if get == nil || !ok {
				return nil, false
			}
			return func(q *probes.QP, _ []probes.Event) tri { return triOf(slices.Contains(set, get(q))) }, true
		}
	case *ast.MemberNode:
		if qpFieldName(n) == "memlock_unlimited" {
			return func(q *probes.QP, _ []probes.Event) tri { return triOf(q.MemlockUnlimited) }, true
		}
	case *ast.BuiltinNode:
		// A predicate over no events: any and one are false, all and none
		// true, without running the predicate.
		if len(n.Arguments) != 2 || qpFieldName(n.Arguments[0]) != "events" {
			return nil, false
		}
		var empty tri
		switch n.Name {
		case "any", "one":
			empty = no
		case "all", "none":
			empty = yes
		default:
			return nil, false
		}
		return func(_ *probes.QP, evs []probes.Event) tri {
			if len(evs) == 0 {
				return empty
			}
			return unknown
		}, true
	}
	return nil, false
}

// quickEqual compiles field == value: a string field and a string, or a
// field that may be nil (pid, memlock_bytes) and nil.
func quickEqual(field, value ast.Node) (quickTest, bool) {
	switch v := value.(type) {
	case *ast.StringNode:
		if get := qpString(field); get != nil {
			return func(q *probes.QP, _ []probes.Event) tri { return triOf(get(q) == v.Value) }, true
		}
	case *ast.NilNode:
		switch qpFieldName(field) {
		case "pid":
			return func(q *probes.QP, _ []probes.Event) tri { return triOf(q.PID == nil) }, true
		case "memlock_bytes":
			return func(q *probes.QP, _ []probes.Event) tri { return triOf(q.MemlockSoft == nil) }, true
		}
	}
	return nil, false
}

// qpFieldName is the name of the QP field n reads (qp.name), or "".
func qpFieldName(n ast.Node) string {
	m, ok := n.(*ast.MemberNode)
	if !ok || m.Optional {
		return ""
	}
	id, ok1 := m.Node.(*ast.IdentifierNode)
	prop, ok2 := m.Property.(*ast.StringNode)
	if !ok1 || !ok2 || id.Value != "qp" {
		return ""
	}
	return prop.Value
}

// qpString returns the getter of the QP's string field n reads, or nil.
func qpString(n ast.Node) func(*probes.QP) string {
	switch qpFieldName(n) {
	case "device":
		return func(q *probes.QP) string { return q.Device }
	case "type":
		return func(q *probes.QP) string { return q.Type }
	case "state":
		return func(q *probes.QP) string { return q.State }
	case "comm":
		return func(q *probes.QP) string { return q.Comm }
	}
	return nil
}

// stringSet reads a list of strings: as written, or as expr's optimizer
// folds it (a constant set). A list, not a map: a handful of states,
// compared faster than hashed.
func stringSet(n ast.Node) ([]string, bool) {
	var set []string
	switch n := n.(type) {
	case *ast.ConstantNode:
		m, ok := n.Value.(map[string]struct{})
		if !ok {
			return nil, false
		}
		for s := range m {
			set = append(set, s)
		}
	case *ast.ArrayNode:
		for _, e := range n.Nodes {
			s, ok := e.(*ast.StringNode)
			if !ok {
				return nil, false
			}
			set = append(set, s.Value)
		}
	default:
		return nil, false
	}
	return set, true
}

func triOf(b bool) tri {
	if b {
		return yes
	}
	return no
}

func not(t tri) tri {
	switch t {
	case yes:
		return no
	case no:
		return yes
	}
	return unknown
}
