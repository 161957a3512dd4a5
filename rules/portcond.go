package rules

import (
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	"github.com/rdmatop/rdmatop/probes"
)

// A fleet's frame holds a hundred-odd ports and priorities, and the pack
// runs about a thousand conditions on them every tick, on values that
// change every tick. Through expr a run costs about half a microsecond,
// and a fifth of the runs fail, as the pack means them to, on counters
// the port lacks (nil >= 0: cannot evaluate), which expr reports by
// panicking: five times that. The engine evaluates these conditions
// itself (portCond), on the values of the tick, when they are written
// with what it knows: numbers, strings, nil, counters by constant name,
// params, the port's and the priority's scalar fields, whether there is a
// capture, let, ??, comparisons, arithmetic, &&, ||, !, ?:, in, max, min,
// abs, and any/all/none over the port's events when there are none.
// Anything else (another node, an operand of a type it does not expect)
// leaves the condition to expr, from the start.
//
// A condition that fails does so at one operation on operands of given
// types, and expr's error there is always the same text (the operation's
// place and the operands' types): the first time, expr is run to get it,
// and the engine keeps it (Engine.condErrs), so the Result is the one
// expr gives (TestPortCondMatchesExpr).

// condRoot returns the condition of p as portCond reads it.
func condRoot(p *vm.Program) ast.Node {
	if p == nil {
		return nil
	}
	return p.Node()
}

// cKind is the type of a value of a condition, as expr's errors name it.
type cKind uint8

const (
	cNil cKind = iota
	cInt
	cFloat
	cBool
	cString
)

// cVal is a value of a condition (no allocation, unlike an any).
type cVal struct {
	k cKind
	i int
	f float64
	b bool
	s string
}

func (v cVal) num() bool { return v.k == cInt || v.k == cFloat }

func (v cVal) float() float64 {
	if v.k == cInt {
		return float64(v.i)
	}
	return v.f
}

// condFail is where a condition failed: expr's error there depends on
// nothing else.
type condFail struct {
	at   ast.Node
	l, r cKind
}

// cStatus is how an evaluation ended.
type cStatus uint8

const (
	cDone    cStatus = iota // a value
	cFailed                 // expr fails here (portCond.fail)
	cUnknown                // left to expr
)

// portCond evaluates a port or priority condition on one object.
type portCond struct {
	env    *Env
	params map[string]float64
	vars   []cVar // the lets in scope, innermost last
	fail   condFail
}

type cVar struct {
	name string
	v    cVal
}

// runCond evaluates the condition of v on env; ok is false when it is
// left to expr.
func (e *Engine) runCond(v *Variant, env *Env) (out any, err error, ok bool) {
	c := &e.cond
	c.env, c.params, c.vars = env, env.Params, c.vars[:0]
	val, st := c.eval(v.cond)
	switch {
	case st == cDone && val.k == cBool:
		return val.b, nil, true
	case st != cFailed:
		return nil, nil, false
	}
	if err, ok := e.condErrs[c.fail]; ok {
		return nil, err, true
	}
	out, err = e.machine.Run(v.fast, env)
	if err != nil { // as expected: keep it
		if e.condErrs == nil {
			e.condErrs = map[condFail]error{}
		}
		e.condErrs[c.fail] = err
	}
	return out, err, true
}

func (c *portCond) failed(at ast.Node, l, r cKind) (cVal, cStatus) {
	c.fail = condFail{at, l, r}
	return cVal{}, cFailed
}

func (c *portCond) eval(n ast.Node) (cVal, cStatus) {
	switch n := n.(type) {
	case *ast.NilNode:
		return cVal{}, cDone
	case *ast.IntegerNode:
		return cVal{k: cInt, i: n.Value}, cDone
	case *ast.FloatNode:
		return cVal{k: cFloat, f: n.Value}, cDone
	case *ast.BoolNode:
		return cVal{k: cBool, b: n.Value}, cDone
	case *ast.StringNode:
		return cVal{k: cString, s: n.Value}, cDone
	case *ast.IdentifierNode:
		for i := len(c.vars) - 1; i >= 0; i-- {
			if c.vars[i].name == n.Value {
				return c.vars[i].v, cDone
			}
		}
		if n.Value == "wire" && c.env.Wire == nil {
			return cVal{}, cDone
		}
	case *ast.ChainNode:
		return c.eval(n.Node)
	case *ast.MemberNode:
		return c.member(n)
	case *ast.VariableDeclaratorNode:
		val, st := c.eval(n.Value)
		if st != cDone {
			return val, st
		}
		c.vars = append(c.vars, cVar{n.Name, val})
		val, st = c.eval(n.Expr)
		c.vars = c.vars[:len(c.vars)-1]
		return val, st
	case *ast.CallNode:
		return c.call(n)
	case *ast.ConditionalNode:
		cond, st := c.eval(n.Cond)
		if st != cDone || cond.k != cBool {
			return cond, unknownUnless(st)
		}
		if cond.b {
			return c.eval(n.Exp1)
		}
		return c.eval(n.Exp2)
	case *ast.UnaryNode:
		x, st := c.eval(n.Node)
		if st != cDone {
			return x, st
		}
		switch {
		case (n.Operator == "!" || n.Operator == "not") && x.k == cBool:
			return cVal{k: cBool, b: !x.b}, cDone
		case n.Operator == "-" && x.k == cInt:
			return cVal{k: cInt, i: -x.i}, cDone
		case n.Operator == "-" && x.k == cFloat:
			return cVal{k: cFloat, f: -x.f}, cDone
		}
	case *ast.BinaryNode:
		return c.binary(n)
	case *ast.BuiltinNode:
		return c.builtin(n)
	}
	return cVal{}, cUnknown
}

// unknownUnless keeps a failure, and makes anything else unknown.
func unknownUnless(st cStatus) cStatus {
	if st == cFailed {
		return cFailed
	}
	return cUnknown
}

func (c *portCond) binary(n *ast.BinaryNode) (cVal, cStatus) {
	l, st := c.eval(n.Left)
	if st != cDone {
		return l, st
	}
	switch n.Operator {
	case "&&", "and", "||", "or":
		if l.k != cBool {
			return l, cUnknown
		}
		if l.b == (n.Operator == "||" || n.Operator == "or") {
			return l, cDone // decided by the left side
		}
		r, st := c.eval(n.Right)
		if st == cDone && r.k != cBool {
			st = cUnknown
		}
		return r, st
	case "??":
		if l.k != cNil {
			return l, cDone
		}
		return c.eval(n.Right)
	case "in":
		// The optimizer made the list of constants a set.
		set, _ := n.Right.(*ast.ConstantNode)
		var in, ok bool
		if set != nil && l.k == cString {
			var m map[string]struct{}
			if m, ok = set.Value.(map[string]struct{}); ok {
				_, in = m[l.s]
			}
		}
		if set != nil && l.k == cInt {
			var m map[int]struct{}
			if m, ok = set.Value.(map[int]struct{}); ok {
				_, in = m[l.i]
			}
		}
		if !ok {
			return cVal{}, cUnknown
		}
		return cVal{k: cBool, b: in}, cDone
	}
	r, st := c.eval(n.Right)
	if st != cDone {
		return r, st
	}
	switch n.Operator {
	case "==", "!=":
		return cVal{k: cBool, b: equal(l, r) == (n.Operator == "==")}, cDone
	case "<", ">", "<=", ">=", "+", "-", "*", "/":
	default:
		return cVal{}, cUnknown
	}
	if (l.k == cNil || l.num()) && (r.k == cNil || r.num()) && (l.k == cNil || r.k == cNil) {
		return c.failed(n, l.k, r.k) // invalid operation: <nil> >= int
	}
	if !l.num() || !r.num() {
		return cVal{}, cUnknown
	}
	return arith(n.Operator, l, r), cDone
}

// arith applies a comparison or arithmetic operator to two numbers, as
// expr does: ints stay ints, but for /; an int meeting a float is a float.
func arith(op string, l, r cVal) cVal {
	if l.k == cInt && r.k == cInt && op != "/" {
		return applyOp(op, l.i, r.i, func(v int) cVal { return cVal{k: cInt, i: v} })
	}
	a, b := l.float(), r.float()
	if op == "/" {
		return cVal{k: cFloat, f: a / b}
	}
	return applyOp(op, a, b, func(v float64) cVal { return cVal{k: cFloat, f: v} })
}

// applyOp applies <, >, <=, >=, +, - or * to two numbers of one type: a
// truth, or a number made by num.
func applyOp[T int | float64](op string, a, b T, num func(T) cVal) cVal {
	switch op {
	case "<":
		return cVal{k: cBool, b: a < b}
	case ">":
		return cVal{k: cBool, b: a > b}
	case "<=":
		return cVal{k: cBool, b: a <= b}
	case ">=":
		return cVal{k: cBool, b: a >= b}
	case "+":
		return num(a + b)
	case "-":
		return num(a - b)
	}
	return num(a * b)
}

// equal is expr's ==: numbers by value, nil only to nil, values of other
// kinds never.
func equal(l, r cVal) bool {
	switch {
	case l.num() && r.num():
		if l.k == cInt && r.k == cInt {
			return l.i == r.i
		}
		return l.float() == r.float()
	case l.k != r.k:
		return false
	case l.k == cBool:
		return l.b == r.b
	}
	return l.s == r.s // strings, or nil and nil
}

// member reads params.x, port.x, prio.x.
func (c *portCond) member(n *ast.MemberNode) (cVal, cStatus) {
	id, ok := n.Node.(*ast.IdentifierNode)
	name, ok2 := n.Property.(*ast.StringNode)
	if !ok || !ok2 {
		return cVal{}, cUnknown
	}
	for i := range c.vars {
		if c.vars[i].name == id.Value {
			return cVal{}, cUnknown // a let named as the Env's fields
		}
	}
	switch id.Value {
	case "params":
		if x, ok := c.params[name.Value]; ok {
			return cVal{k: cFloat, f: x}, cDone
		}
	case "port":
		if p := c.env.Port; p != nil {
			return portField(p, name.Value)
		}
	case "prio":
		if p := c.env.Prio; p != nil {
			return prioField(p, name.Value)
		}
	}
	return cVal{}, cUnknown
}

func portField(p *PortEnv, name string) (cVal, cStatus) {
	switch name {
	case "device":
		return cVal{k: cString, s: p.Device}, cDone
	case "port":
		return cVal{k: cInt, i: p.Port}, cDone
	case "netdev":
		return cVal{k: cString, s: p.Netdev}, cDone
	case "state":
		return cVal{k: cString, s: p.State}, cDone
	case "phys_state":
		return cVal{k: cString, s: p.PhysState}, cDone
	case "link_layer":
		return cVal{k: cString, s: p.LinkLayer}, cDone
	case "rate_gbps":
		return cVal{k: cFloat, f: p.RateGbps}, cDone
	case "operstate":
		return cVal{k: cString, s: p.OperState}, cDone
	case "mtu":
		return scalar(p.MTU)
	case "roce_mtu":
		return scalar(p.RoCEMTU)
	case "max_payload_in":
		return scalar(p.MaxPayloadIn)
	}
	return cVal{}, cUnknown
}

func prioField(p *PrioEnv, name string) (cVal, cStatus) {
	switch name {
	case "priority":
		return cVal{k: cInt, i: p.Priority}, cDone
	case "enabled":
		return scalar(p.Enabled)
	case "rx_pause_per_s":
		return scalar(p.RxPausePerSec)
	case "tx_pause_per_s":
		return scalar(p.TxPausePerSec)
	case "rx_paused_pct":
		return scalar(p.RxPausedPct)
	case "tx_paused_pct":
		return scalar(p.TxPausedPct)
	}
	return cVal{}, cUnknown
}

// scalar reads an Env field of type any.
func scalar(x any) (cVal, cStatus) {
	switch x := x.(type) {
	case nil:
		return cVal{}, cDone
	case int:
		return cVal{k: cInt, i: x}, cDone
	case float64:
		return cVal{k: cFloat, f: x}, cDone
	case bool:
		return cVal{k: cBool, b: x}, cDone
	case string:
		return cVal{k: cString, s: x}, cDone
	}
	return cVal{}, cUnknown
}

// call runs Env's counter methods on constant names (Env.Rate and the
// others, without making an any of the value).
func (c *portCond) call(n *ast.CallNode) (cVal, cStatus) {
	id, ok := n.Callee.(*ast.IdentifierNode)
	if !ok || len(n.Arguments) == 0 || (id.Value != "AnyRate" && len(n.Arguments) != 1) {
		return cVal{}, cUnknown
	}
	for i := range c.vars {
		if c.vars[i].name == id.Value {
			return cVal{}, cUnknown
		}
	}
	best := cVal{}
	for _, a := range n.Arguments {
		s, ok := a.(*ast.StringNode)
		if !ok {
			return cVal{}, cUnknown
		}
		if best, ok = counterStep(c.env.counters, id.Value, s.Value, best); !ok {
			return cVal{}, cUnknown
		}
	}
	return best, cDone
}

// counterStep is what Env's counter method returns for name (AnyRate:
// the greater of that and best, the method's value for the names before
// it); false for another method.
func counterStep(cs []probes.Counter, method, name string, best cVal) (cVal, bool) {
	cn := firstCounter(cs, name)
	switch method {
	case "Rate", "AnyRate":
		if cn != nil && cn.Rate != nil && (best.k == cNil || *cn.Rate > best.f) {
			best = cVal{k: cFloat, f: *cn.Rate}
		}
	case "Delta":
		if cn != nil && cn.Delta != nil {
			best = cVal{k: cFloat, f: float64(*cn.Delta)}
		}
	case "Value":
		if cn != nil {
			best = cVal{k: cFloat, f: float64(cn.Value)}
		}
	case "Has":
		best = cVal{k: cBool, b: cn != nil}
	default:
		return cVal{}, false
	}
	return best, true
}

// firstCounter is the counter Env's methods read for name.
func firstCounter(cs []probes.Counter, name string) *probes.Counter {
	for i := range cs {
		if c := &cs[i]; c.Name == name || c.Native == name {
			return c
		}
	}
	return nil
}

// builtin runs max, min, abs on numbers, and any, all, none on the port's
// events when it has none (the predicate is not run).
func (c *portCond) builtin(n *ast.BuiltinNode) (cVal, cStatus) {
	switch n.Name {
	case "any", "all", "none":
		m, ok := n.Arguments[0].(*ast.MemberNode)
		if !ok || len(n.Arguments) != 2 {
			return cVal{}, cUnknown
		}
		id, ok := m.Node.(*ast.IdentifierNode)
		p, ok2 := m.Property.(*ast.StringNode)
		if !ok || !ok2 || id.Value != "port" || p.Value != "events" || c.env.Port == nil || len(c.env.Port.Events) > 0 {
			return cVal{}, cUnknown
		}
		for i := range c.vars {
			if c.vars[i].name == "port" {
				return cVal{}, cUnknown
			}
		}
		return cVal{k: cBool, b: n.Name != "any"}, cDone
	case "abs":
		if len(n.Arguments) != 1 {
			return cVal{}, cUnknown
		}
		x, st := c.eval(n.Arguments[0])
		switch {
		case st != cDone:
			return x, unknownUnless(st)
		case x.k == cInt && x.i < 0:
			x.i = -x.i
		case x.k == cFloat && x.f < 0:
			x.f = -x.f
		case !x.num():
			return cVal{}, cUnknown
		}
		return x, cDone
	case "max", "min":
		// expr keeps the first value unless a later one is greater
		// (max) or less (min), of its own type.
		var best cVal
		for i, a := range n.Arguments {
			x, st := c.eval(a)
			if st != cDone || !x.num() {
				return x, unknownUnless(st)
			}
			var take bool
			if i > 0 {
				op := "<"
				if n.Name == "min" {
					op = ">"
				}
				take = arith(op, best, x).b
			}
			if i == 0 || take {
				best = x
			}
		}
		if len(n.Arguments) == 0 {
			return cVal{}, cUnknown
		}
		return best, cDone
	}
	return cVal{}, cUnknown
}
