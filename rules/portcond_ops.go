package rules

import "github.com/expr-lang/expr/ast"

// The operators and builtins of port and priority conditions (portcond.go),
// computed as expr computes them.

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
