package rules

import (
	"github.com/expr-lang/expr"
)

// program is a compiled expression, run on an *Env. It keeps expr's
// program behind a function: this package uses expr through its public
// API (Compile, Run) only.
type program func(env *Env) (any, error)

// compileExpr compiles src with opts.
func compileExpr(src string, opts ...expr.Option) (program, error) {
	p, err := expr.Compile(src, opts...)
	if err != nil {
		return nil, err
	}
	return func(env *Env) (any, error) { return expr.Run(p, env) }, nil
}

// qpOnlyEnv is what a qp-scope condition sees when it reads nothing but
// its QP and params: a condition that compiles against it gives the same
// answer on a QP that has not changed (Variant.qpLocal).
type qpOnlyEnv struct {
	QP        *QPEnv             `expr:"qp"`
	Params    map[string]float64 `expr:"params"`
	KnownFunc func(...any) any   `expr:"known"`
	NeedFunc  func(...any) any   `expr:"need"`
}

// frameOnlyEnv is what a variant's requires may read: the frame, not an
// object.
type frameOnlyEnv struct {
	Host      *HostEnv           `expr:"host"`
	Wire      *WireEnv           `expr:"wire"`
	Params    map[string]float64 `expr:"params"`
	KnownFunc func(...any) any   `expr:"known"`
	NeedFunc  func(...any) any   `expr:"need"`
}
