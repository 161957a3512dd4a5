package rules

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/rdmatop/rdmatop/capture"
)

// Rendering a finding's evidence is most of what a finding costs, and an
// incident at fleet size can hold thousands of QPs in ERR, frame after
// frame. When a qp-scope evidence template reads nothing but its QP
// (qpOnlyEvidence), the engine renders it again only when the QP changed
// (entry.evidenceOf): the text is the same otherwise.

// pureTemplateFuncs are the template functions whose result depends only
// on their arguments: text/template's own (not call) and templateFuncs.
var pureTemplateFuncs = map[string]bool{
	"and": true, "or": true, "not": true, "len": true, "index": true, "slice": true,
	"print": true, "printf": true, "println": true, "html": true, "js": true, "urlquery": true,
	"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"num": true, "add": true, "mul": true, "pct": true,
}

// qpOnlyEvidence reports whether t reads only .QP (and what is reachable
// from it) with pure functions: no other field of the Env, no method of
// it (.Rate), no variable, no other template.
func qpOnlyEvidence(t *template.Template) bool {
	if t == nil || t.Tree == nil || len(t.Templates()) > 1 {
		return false
	}
	return qpOnlyNode(t.Tree.Root, false)
}

// qpOnlyNode checks n; inQP says that dot is a value read from the QP
// (inside {{with .QP}} or {{range .QP.Events}}), not the Env.
func qpOnlyNode(n parse.Node, inQP bool) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *parse.ListNode:
		if n == nil {
			return true
		}
		for _, c := range n.Nodes {
			if !qpOnlyNode(c, inQP) {
				return false
			}
		}
		return true
	case *parse.TextNode, *parse.CommentNode, *parse.BreakNode, *parse.ContinueNode:
		return true
	case *parse.ActionNode:
		return qpOnlyPipe(n.Pipe, inQP)
	case *parse.IfNode:
		return qpOnlyPipe(n.Pipe, inQP) && qpOnlyNode(n.List, inQP) && qpOnlyNode(n.ElseList, inQP)
	case *parse.WithNode:
		// The body's dot is the pipeline's value: read from the QP.
		return qpOnlyPipe(n.Pipe, inQP) && qpOnlyNode(n.List, true) && qpOnlyNode(n.ElseList, inQP)
	case *parse.RangeNode:
		return qpOnlyPipe(n.Pipe, inQP) && qpOnlyNode(n.List, true) && qpOnlyNode(n.ElseList, inQP)
	}
	return false // a template call, or a node this check does not know
}

func qpOnlyPipe(p *parse.PipeNode, inQP bool) bool {
	if p == nil {
		return true
	}
	if len(p.Decl) > 0 {
		return false
	}
	for _, c := range p.Cmds {
		for _, a := range c.Args {
			if !qpOnlyArg(a, inQP) {
				return false
			}
		}
	}
	return true
}

func qpOnlyArg(a parse.Node, inQP bool) bool {
	switch a := a.(type) {
	case *parse.FieldNode:
		return inQP || a.Ident[0] == "QP"
	case *parse.DotNode:
		return inQP
	case *parse.ChainNode:
		return qpOnlyArg(a.Node, inQP)
	case *parse.PipeNode:
		return qpOnlyPipe(a, inQP)
	case *parse.IdentifierNode:
		return pureTemplateFuncs[a.Ident]
	case *parse.StringNode, *parse.NumberNode, *parse.BoolNode, *parse.NilNode:
		return true
	}
	return false // variables ($ is the Env), and anything else
}

// setEvidence renders the evidence of v on o into en, unless its
// template reads only the QP and en's text is of the same QP (without
// events).
func (e *Engine) setEvidence(en *entry, r *Rule, v *Variant, o *object) {
	var of evidenceOf
	if v.qpEvidence && o.qp != nil && o.qp.Events == nil {
		of = evidenceOf{v, o.qp.QPFields}
	}
	if of.v != nil && en.evFor == of {
		return
	}
	env := e.load(o, r.Params)
	if v.magnitude != nil {
		// A magnitude that cannot be computed here ranks as none.
		en.f.Magnitude = 0
		if m, err := v.magnitude(env); err == nil {
			en.f.Magnitude, _ = m.(float64)
		}
	}
	en.f.Evidence = render(&e.text, v.evidence, env)
	en.evFor = of
}

// render executes t on env in buf (reused: rendering is most of the cost
// of a finding) and returns the text.
func render(buf *bytes.Buffer, t *template.Template, env *Env) string {
	buf.Reset()
	if err := t.Execute(buf, env); err != nil {
		return fmt.Sprintf("(evidence unavailable: %v)", errors.Unwrap(err))
	}
	return string(bytes.TrimSpace(buf.Bytes()))
}

// templateFuncs are available in evidence templates.
var templateFuncs = template.FuncMap{
	// nccl lists the NCCL log's errors of a kind (and statuses), each
	// distinct one once: {{nccl .Host.Events "nccl_completion_error" 12}}.
	"nccl": ncclEvidence,
	// ncclsockets and ncclgdr say what NCCL chose (its INFO lines) beside
	// the host: {{ncclsockets .Host}}, {{ncclgdr .Host}}.
	"ncclsockets": ncclSockets,
	"ncclgdr":     ncclGDROff,
	"ncclports":   ncclPorts,
	"ncclgraph":   ncclGraphSYS,
	// balance says how the RDMA bytes spread over the ports alike:
	// {{balance .Host.RDMABalance}}.
	"balance": balanceEvidence,
	// gputcp says which GPU processes move bytes over TCP:
	// {{gputcp .Host}}.
	"gputcp": gpuTCPEvidence,
	// num formats a number (or nil) for people: 4 significant digits,
	// never an exponent (20610 pause frames/s, not 2.061e+04).
	"num": func(v any) string {
		switch x := v.(type) {
		case nil:
			return "n/a"
		case float64:
			return humanFloat(x)
		case int:
			return strconv.Itoa(x)
		case uint64:
			return strconv.FormatUint(x, 10)
		case uint32:
			return strconv.FormatUint(uint64(x), 10)
		case *int:
			if x == nil {
				return "n/a"
			}
			return strconv.Itoa(*x)
		case *uint8:
			if x == nil {
				return "n/a"
			}
			return strconv.Itoa(int(*x))
		}
		return fmt.Sprint(v)
	},
	// add sums the numbers present (nil when none is), mul multiplies
	// (nil when any is nil): "about {{num (mul (add (.Rate "rx_packets")
	// (.Rate "tx_packets")) .Wire.DurationSec)}} packets".
	"add": func(vs ...any) any {
		var sum any
		for _, v := range vs {
			if x, ok := toFloat(v); ok {
				s, _ := sum.(float64)
				sum = s + x
			}
		}
		return sum
	},
	"mul": func(vs ...any) any {
		p := 1.0
		for _, v := range vs {
			x, ok := toFloat(v)
			if !ok {
				return nil
			}
			p *= x
		}
		return p
	},
	// pct writes part as a whole percentage of whole ("66%"), "n/a" when
	// either is nil or whole is 0.
	"pct": func(part, whole any) string {
		a, ok1 := toFloat(part)
		b, ok2 := toFloat(whole)
		if !ok1 || !ok2 || b == 0 {
			return "n/a"
		}
		return strconv.Itoa(capture.Percent(a, b)) + "%"
	},
}

// toFloat reads the numbers an Env holds (float64, ints, pointers to them).
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case uint64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case *int:
		if x != nil {
			return float64(*x), true
		}
	case *uint64:
		if x != nil {
			return float64(*x), true
		}
	}
	return 0, false
}

// humanFloat writes x with 4 significant digits and no exponent: whole
// numbers from 10,000 up (a rate of 20610/s), 4 digits below (68.55,
// 0.0005).
func humanFloat(x float64) string {
	if a := math.Abs(x); a >= 1e4 && a < 1e15 {
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	}
	s := strconv.FormatFloat(x, 'g', 4, 64)
	if strings.ContainsRune(s, 'e') {
		// Below 1e-4: still no exponent, 4 significant digits.
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	return s
}
