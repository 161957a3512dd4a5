package rules

import (
	"fmt"
	"reflect"
	"text/template"
	"text/template/parse"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// expr calls a method of the environment (Rate("cnp_sent")) by
// reflection: it binds the method value and calls it with reflect.Call,
// about a microsecond and four allocations per call, and a port rule makes
// dozens of such calls. The engine runs a second compilation of each
// condition instead, where the calls to Env's methods are calls to plain
// expr functions that are given the environment ($env) as their first
// argument. Loading still checks the condition as written (its errors
// name Rate, not the function), so only the speed differs.

// envFuncs are the Env methods a condition can call, by name, as expr
// functions taking the Env first, with the methods' types.
var envFuncs = map[string]struct {
	name string
	fn   func(e *Env, args []any) (any, error)
	typ  any
}{
	"Rate": {"Rate$env", func(e *Env, a []any) (any, error) {
		return withName(a, e.Rate)
	}, new(func(Env, string) any)},
	"Delta": {"Delta$env", func(e *Env, a []any) (any, error) {
		return withName(a, e.Delta)
	}, new(func(Env, string) any)},
	"Value": {"Value$env", func(e *Env, a []any) (any, error) {
		return withName(a, e.Value)
	}, new(func(Env, string) any)},
	"Has": {"Has$env", func(e *Env, a []any) (any, error) {
		return withName(a, func(n string) any { return e.Has(n) })
	}, new(func(Env, string) bool)},
	"AnyRate": {"AnyRate$env", func(e *Env, a []any) (any, error) {
		names := make([]string, len(a))
		for i, v := range a {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("AnyRate: argument %d is %T, not a string", i+1, v)
			}
			names[i] = s
		}
		return e.AnyRate(names...), nil
	}, new(func(Env, ...string) any)},
}

func withName(a []any, f func(string) any) (any, error) {
	if len(a) != 1 {
		return nil, fmt.Errorf("want one counter name, have %d arguments", len(a))
	}
	s, ok := a[0].(string)
	if !ok {
		return nil, fmt.Errorf("counter name is %T, not a string", a[0])
	}
	return f(s), nil
}

// envFuncOptions are the compile options of the fast compilation: the
// functions and the patch that calls them.
var envFuncOptions = func() []expr.Option {
	opts := []expr.Option{expr.Patch(envCalls{})}
	for _, f := range envFuncs {
		fn := f.fn
		opts = append(opts, expr.Function(f.name, func(p ...any) (any, error) {
			var e *Env
			switch v := p[0].(type) {
			case *Env:
				e = v
			case Env:
				e = &v
			default:
				return nil, fmt.Errorf("environment is %T", p[0])
			}
			return fn(e, p[1:])
		}, f.typ))
	}
	return opts
}()

// envCalls rewrites Rate(x) to Rate$env($env, x), and so on.
type envCalls struct{}

func (envCalls) Visit(node *ast.Node) {
	call, ok := (*node).(*ast.CallNode)
	if !ok {
		return
	}
	id, ok := call.Callee.(*ast.IdentifierNode)
	if !ok {
		return
	}
	f, ok := envFuncs[id.Value]
	if !ok {
		return
	}
	args := append([]ast.Node{&ast.IdentifierNode{Value: "$env"}}, call.Arguments...)
	ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: f.name}, Arguments: args})
}

// text/template calls a method of its data ({{.Rate "x"}}) by reflection
// too, looking it up by name at each call; a function it finds in a map.
// fastEvidence is the evidence template with, where dot is the Env (not
// inside a with or range), {{.Rate "x"}} written {{_Rate . "x"}}.

// envTemplateFuncs are Env's methods as template functions, by the name
// of the method.
var envTemplateFuncs = template.FuncMap{
	"Rate":    func(e Env, name string) any { return e.Rate(name) },
	"Delta":   func(e Env, name string) any { return e.Delta(name) },
	"Value":   func(e Env, name string) any { return e.Value(name) },
	"Has":     func(e Env, name string) bool { return e.Has(name) },
	"AnyRate": func(e Env, names ...string) any { return e.AnyRate(names...) },
}

// arity reports whether Env's method name takes n arguments.
func arity(name string, n int) bool {
	f := envTemplateFuncs[name]
	if f == nil {
		return false
	}
	t := reflect.TypeOf(f)
	if t.IsVariadic() {
		return n >= t.NumIn()-2
	}
	return n == t.NumIn()-1
}

// fastEvidenceFuncs are the functions of fastEvidence's templates:
// templateFuncs, and Env's methods named with a _.
var fastEvidenceFuncs = func() template.FuncMap {
	funcs := template.FuncMap{}
	for k, f := range templateFuncs {
		funcs[k] = f
	}
	for k, f := range envTemplateFuncs {
		funcs["_"+k] = f
	}
	return funcs
}()

// fastEvidence parses evidence again and rewrites its calls of Env's
// methods; nil when there is none to rewrite (or it cannot be parsed).
func fastEvidence(id, evidence string) *template.Template {
	t, err := template.New(id).Option("missingkey=error").Funcs(fastEvidenceFuncs).Parse(evidence)
	if err != nil || len(t.Templates()) > 1 || t.Tree == nil {
		return nil
	}
	if !rewriteEnvCalls(t.Tree.Root, true) {
		return nil
	}
	return t
}

// rewriteEnvCalls rewrites the calls of Env's methods under n, where atEnv
// says that dot is the Env; it reports whether it rewrote any.
func rewriteEnvCalls(n parse.Node, atEnv bool) bool {
	done := false
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return false
		}
		for _, c := range n.Nodes {
			done = rewriteEnvCalls(c, atEnv) || done
		}
	case *parse.ActionNode:
		done = rewritePipe(n.Pipe, atEnv)
	case *parse.IfNode:
		done = rewritePipe(n.Pipe, atEnv)
		done = rewriteEnvCalls(n.List, atEnv) || done
		done = rewriteEnvCalls(n.ElseList, atEnv) || done
	case *parse.WithNode: // the body's dot is the pipeline's value
		done = rewritePipe(n.Pipe, atEnv)
		done = rewriteEnvCalls(n.List, false) || done
		done = rewriteEnvCalls(n.ElseList, atEnv) || done
	case *parse.RangeNode:
		done = rewritePipe(n.Pipe, atEnv)
		done = rewriteEnvCalls(n.List, false) || done
		done = rewriteEnvCalls(n.ElseList, atEnv) || done
	}
	return done
}

func rewritePipe(p *parse.PipeNode, atEnv bool) bool {
	if p == nil {
		return false
	}
	done := false
	for i, c := range p.Cmds {
		// Only calls with as many arguments as the method takes (a command
		// after the first also gets the previous one's value): a wrong
		// call fails as written, with the method's name.
		args := len(c.Args) - 1
		if i > 0 {
			args++
		}
		if f, ok := c.Args[0].(*parse.FieldNode); ok && atEnv && len(f.Ident) == 1 && arity(f.Ident[0], args) {
			fn := parse.NewIdentifier("_" + f.Ident[0]).SetPos(f.Pos)
			dot := &parse.DotNode{NodeType: parse.NodeDot, Pos: f.Pos}
			c.Args = append([]parse.Node{fn, dot}, c.Args[1:]...)
			done = true
		}
		for _, a := range c.Args {
			switch a := a.(type) {
			case *parse.PipeNode: // (.Rate "x"): the same dot
				done = rewritePipe(a, atEnv) || done
			case *parse.ChainNode:
				if pn, ok := a.Node.(*parse.PipeNode); ok {
					done = rewritePipe(pn, atEnv) || done
				}
			}
		}
	}
	return done
}
