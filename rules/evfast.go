package rules

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"text/template"
	"text/template/parse"
)

// A busy host's ports fire a hundred-odd findings every tick with values
// that changed, and text/template renders each by reflection: a few
// microseconds a finding. evProgram renders the evidence of a port or a
// priority in Go instead, node by node: text, and actions, ifs and withs
// that print or test the port's and priority's fields, params, counters
// by constant name (.Rate "x") and num or pct of them. A node it does not
// know (a range, a variable, .Host) is executed by text/template on its
// own, as it is in the whole template; and when anything fails (a param
// missing, a type it does not expect, an error in such a node) the whole
// template is rendered by text/template, so the text, errors included, is
// the template's (TestEvidenceProgramMatchesTemplate).

// evProgram is an evidence template as the engine renders it.
type evProgram struct {
	parts []evPart
	tmpl  *template.Template // the whole template, when a part fails
}

// evPart is one node of the template's top level: compiled (run), or
// executed by text/template on its own (tmpl).
type evPart struct {
	run  evNode
	tmpl *template.Template
}

// evNode writes a node with dot the Env (dot is nil) or a value read from
// it; false when it cannot.
type evNode func(w *bytes.Buffer, env *Env, dot *cVal) bool

// evValue reads a value.
type evValue func(env *Env, dot *cVal) (cVal, bool)

// evProgramOf compiles t (a template of fastEvidence); nil when no node
// of its top level compiles.
func evProgramOf(t *template.Template) *evProgram {
	if t == nil || t.Tree == nil || t.Root == nil {
		return nil
	}
	p := &evProgram{tmpl: t}
	compiled := false
	for _, n := range t.Root.Nodes {
		if run := evNodeOf(n, true); run != nil {
			p.parts = append(p.parts, evPart{run: run})
			compiled = true
			continue
		}
		one := template.New(t.Name()).Option("missingkey=error").Funcs(fastEvidenceFuncs)
		tree := &parse.Tree{Name: t.Name(), ParseName: t.ParseName, Root: &parse.ListNode{NodeType: parse.NodeList, Nodes: []parse.Node{n}}}
		if _, err := one.AddParseTree(t.Name(), tree); err != nil {
			return nil
		}
		p.parts = append(p.parts, evPart{tmpl: one})
	}
	if !compiled {
		return nil
	}
	return p
}

// render writes the evidence of env in buf and returns it, as render
// does with the template.
func (p *evProgram) render(buf *bytes.Buffer, env *Env) string {
	buf.Reset()
	for _, part := range p.parts {
		ok := true
		if part.run != nil {
			ok = part.run(buf, env, nil)
		} else {
			ok = part.tmpl.Execute(buf, env) == nil
		}
		if !ok {
			return render(buf, p.tmpl, env)
		}
	}
	return string(bytes.TrimSpace(buf.Bytes()))
}

// evNodeOf compiles n; atEnv says that dot is the Env.
func evNodeOf(n parse.Node, atEnv bool) evNode {
	switch n := n.(type) {
	case *parse.CommentNode:
		return func(*bytes.Buffer, *Env, *cVal) bool { return true }
	case *parse.TextNode:
		text := n.Text
		return func(w *bytes.Buffer, _ *Env, _ *cVal) bool { w.Write(text); return true }
	case *parse.ActionNode:
		val := evPipeOf(n.Pipe, atEnv)
		if val == nil {
			return nil
		}
		return func(w *bytes.Buffer, env *Env, dot *cVal) bool {
			v, ok := val(env, dot)
			return ok && printVal(w, v)
		}
	case *parse.IfNode:
		return evBranchOf(n.Pipe, n.List, n.ElseList, atEnv, false)
	case *parse.WithNode:
		return evBranchOf(n.Pipe, n.List, n.ElseList, atEnv, true)
	case *parse.ListNode:
		if n == nil {
			return func(*bytes.Buffer, *Env, *cVal) bool { return true }
		}
		var nodes []evNode
		for _, c := range n.Nodes {
			run := evNodeOf(c, atEnv)
			if run == nil {
				return nil
			}
			nodes = append(nodes, run)
		}
		return func(w *bytes.Buffer, env *Env, dot *cVal) bool {
			for _, run := range nodes {
				if !run(w, env, dot) {
					return false
				}
			}
			return true
		}
	}
	return nil
}

// evBranchOf compiles an if (with: false) or a with.
func evBranchOf(pipe *parse.PipeNode, list, elseList *parse.ListNode, atEnv, with bool) evNode {
	cond := evPipeOf(pipe, atEnv)
	then := evNodeOf(list, atEnv && !with)
	otherwise := evNodeOf(elseList, atEnv)
	if cond == nil || then == nil || otherwise == nil {
		return nil
	}
	return func(w *bytes.Buffer, env *Env, dot *cVal) bool {
		v, ok := cond(env, dot)
		if !ok {
			return false
		}
		switch {
		case !truth(v):
			return otherwise(w, env, dot)
		case with:
			return then(w, env, &v)
		}
		return then(w, env, dot)
	}
}

// truth is text/template's: nil, 0, "" and false are false.
func truth(v cVal) bool {
	switch v.k {
	case cInt:
		return v.i != 0
	case cFloat:
		return v.f != 0
	case cBool:
		return v.b
	case cString:
		return v.s != ""
	}
	return false
}

// printVal writes v as text/template prints it.
func printVal(w *bytes.Buffer, v cVal) bool {
	switch v.k {
	case cString:
		w.WriteString(v.s)
	case cInt:
		w.WriteString(strconv.Itoa(v.i))
	case cFloat:
		fmt.Fprint(w, v.f)
	case cBool:
		w.WriteString(strconv.FormatBool(v.b))
	default:
		return false // <no value>: left to the template
	}
	return true
}

// evPipeOf compiles a pipeline of one command, without variables.
func evPipeOf(p *parse.PipeNode, atEnv bool) evValue {
	if p == nil || len(p.Decl) > 0 || len(p.Cmds) != 1 {
		return nil
	}
	args := p.Cmds[0].Args
	switch a := args[0].(type) {
	case *parse.IdentifierNode:
		return evCallOf(a.Ident, args[1:], atEnv)
	case *parse.FieldNode, *parse.DotNode, *parse.PipeNode:
		if len(args) == 1 {
			return evArgOf(a, atEnv)
		}
	}
	return nil
}

// evArgOf compiles an argument: a field of the port, the priority or the
// params; dot inside a with; a parenthesized pipeline.
func evArgOf(a parse.Node, atEnv bool) evValue {
	switch a := a.(type) {
	case *parse.DotNode:
		if atEnv {
			return nil
		}
		return func(_ *Env, dot *cVal) (cVal, bool) { return *dot, true }
	case *parse.PipeNode:
		return evPipeOf(a, atEnv)
	case *parse.FieldNode:
		if !atEnv || len(a.Ident) != 2 {
			return nil
		}
		name := a.Ident[1]
		switch a.Ident[0] {
		case "Port":
			tag := exprTags[reflect.TypeFor[PortEnv]()][name]
			return func(env *Env, _ *cVal) (cVal, bool) {
				if env.Port == nil {
					return cVal{}, false
				}
				v, st := portField(env.Port, tag)
				return v, st == cDone
			}
		case "Prio":
			tag := exprTags[reflect.TypeFor[PrioEnv]()][name]
			return func(env *Env, _ *cVal) (cVal, bool) {
				if env.Prio == nil {
					return cVal{}, false
				}
				v, st := prioField(env.Prio, tag)
				return v, st == cDone
			}
		case "Params":
			return func(env *Env, _ *cVal) (cVal, bool) {
				x, ok := env.Params[name]
				return cVal{k: cFloat, f: x}, ok
			}
		}
	}
	return nil
}

// evCallOf compiles a call of num, pct, or a counter method (fastEvidence
// wrote .Rate "x" as _Rate . "x").
func evCallOf(fn string, args []parse.Node, atEnv bool) evValue {
	switch fn {
	case "num":
		if len(args) != 1 {
			return nil
		}
		x := evArgOf(args[0], atEnv)
		if x == nil {
			return nil
		}
		return func(env *Env, dot *cVal) (cVal, bool) {
			v, ok := x(env, dot)
			return cVal{k: cString, s: numText(v)}, ok
		}
	case "pct":
		if len(args) != 2 {
			return nil
		}
		part, whole := evArgOf(args[0], atEnv), evArgOf(args[1], atEnv)
		if part == nil || whole == nil {
			return nil
		}
		return func(env *Env, dot *cVal) (cVal, bool) {
			a, ok1 := part(env, dot)
			b, ok2 := whole(env, dot)
			if !a.num() || !b.num() || b.float() == 0 {
				return cVal{k: cString, s: "n/a"}, ok1 && ok2
			}
			return cVal{k: cString, s: strconv.FormatFloat(100*a.float()/b.float(), 'f', 0, 64) + "%"}, ok1 && ok2
		}
	case "_Rate", "_Delta", "_Value", "_Has", "_AnyRate":
		if !atEnv || len(args) < 2 || (fn != "_AnyRate" && len(args) != 2) {
			return nil
		}
		if _, ok := args[0].(*parse.DotNode); !ok {
			return nil
		}
		method, names := fn[1:], []string{}
		for _, a := range args[1:] {
			s, ok := a.(*parse.StringNode)
			if !ok {
				return nil
			}
			names = append(names, s.Text)
		}
		return func(env *Env, _ *cVal) (cVal, bool) {
			var v cVal
			for _, n := range names {
				v, _ = counterStep(env.counters, method, n, v)
			}
			return v, true
		}
	}
	return nil
}

// exprTags are the expr names of PortEnv's and PrioEnv's fields, by Go
// name: what a template names .Port.RateGbps, a condition port.rate_gbps.
var exprTags = func() map[reflect.Type]map[string]string {
	m := map[reflect.Type]map[string]string{}
	for _, t := range []reflect.Type{reflect.TypeFor[PortEnv](), reflect.TypeFor[PrioEnv]()} {
		m[t] = map[string]string{}
		for i := range t.NumField() {
			m[t][t.Field(i).Name] = t.Field(i).Tag.Get("expr")
		}
	}
	return m
}()

// numText is templateFuncs' num of v.
func numText(v cVal) string {
	switch v.k {
	case cNil:
		return "n/a"
	case cFloat:
		return humanFloat(v.f)
	case cInt:
		return strconv.Itoa(v.i)
	case cBool:
		return strconv.FormatBool(v.b)
	}
	return v.s
}
