package rules

import (
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
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
