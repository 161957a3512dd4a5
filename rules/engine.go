package rules

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/expr-lang/expr/vm"
)

// Finding is a rule that fired, on one object.
type Finding struct {
	Rule      string            `json:"rule"`
	Severity  Severity          `json:"severity"`
	Title     string            `json:"title"`
	Evidence  string            `json:"evidence"`
	Cause     string            `json:"cause"`
	Confirm   []string          `json:"confirm"`
	Fix       []string          `json:"fix"`
	Docs      []string          `json:"docs"`
	Objects   map[string]string `json:"objects"`
	FirstSeen time.Time         `json:"first_seen"`
	LastSeen  time.Time         `json:"last_seen"`
	// Resolved is set once the condition cleared; the finding is kept so
	// that a replay or a check of a recording reports what happened.
	Resolved bool `json:"resolved,omitempty"`
}

// RuleState is how one rule fared on a frame.
type RuleState struct {
	Rule   string `json:"rule"`
	State  string `json:"state"` // ok, firing, pending, cannot_evaluate
	Detail string `json:"detail,omitempty"`
}

// Result is the engine's answer for one frame.
type Result struct {
	Findings []Finding   `json:"findings"` // active and resolved, most severe first
	Rules    []RuleState `json:"rules"`
}

// Engine evaluates a pack frame after frame, remembering what has held
// for how long. Not safe for concurrent use.
type Engine struct {
	pack *Pack
	// IgnoreFor makes every rule fire as soon as its condition holds: for
	// one-shot checks, where the sampling interval is the only history.
	IgnoreFor bool
	since     map[string]time.Time // condition true since (rule|object)
	machine   vm.VM                // reused: one allocation less per evaluation
	found     map[string]*Finding
	order     []string
}

// NewEngine returns an engine for pack.
func NewEngine(p *Pack) *Engine {
	return &Engine{pack: p, since: map[string]time.Time{}, found: map[string]*Finding{}}
}

// object is one thing a rule is evaluated on. Its identity (id) and
// description (keys) are built only when a finding needs them: a frame
// can hold 10,000 QPs.
type object struct {
	env  Env
	id   func() string
	keys func() map[string]string
}

// Evaluate runs every rule on f.
func (e *Engine) Evaluate(f Frame) Result {
	hostv := hostEnv(f)
	host := &hostv
	wire := wireEnv(f)
	res := Result{}
	seenNow := map[string]bool{}
	type scoped struct {
		objs []object
		why  string
	}
	byScope := map[Scope]scoped{}
	for _, r := range e.pack.Rules {
		state := RuleState{Rule: r.ID, State: "cannot_evaluate"}
		var whys []string
		for _, v := range r.variants() {
			sc, ok := byScope[v.Scope]
			if !ok {
				sc.objs, sc.why = objects(f, v.Scope, host, wire)
				byScope[v.Scope] = sc
			}
			objs, why := sc.objs, sc.why
			if why != "" {
				whys = append(whys, string(v.Scope)+": "+why)
				continue
			}
			evaluated := 0
			var lastErr error
			for i := range objs {
				o := &objs[i]
				o.env.Params = r.Params
				out, err := e.machine.Run(v.program, &o.env)
				if err != nil {
					lastErr = err
					continue
				}
				evaluated++
				if out != true && len(e.since) == 0 {
					continue
				}
				k := r.ID + "|" + string(v.Scope) + "|" + o.id()
				if out != true {
					delete(e.since, k)
					continue
				}
				t0, ok := e.since[k]
				if !ok {
					t0 = f.Time
					e.since[k] = t0
				}
				if !e.IgnoreFor && f.Time.Sub(t0) < time.Duration(r.For) {
					if state.State != "firing" {
						state.State = "pending"
					}
					continue
				}
				state.State = "firing"
				seenNow[k] = true
				fd := e.found[k]
				if fd == nil || fd.Resolved {
					fd = &Finding{Rule: r.ID, Severity: r.Severity, Title: r.Title, Cause: r.Cause, Confirm: r.Confirm,
						Fix: r.Fix, Docs: r.Docs, Objects: o.keys(), FirstSeen: f.Time}
					if e.found[k] == nil {
						e.order = append(e.order, k)
					}
					e.found[k] = fd
				}
				fd.LastSeen = f.Time
				fd.Evidence = render(v.evidence, o.env)
			}
			switch {
			case evaluated > 0 && state.State == "cannot_evaluate":
				state.State = "ok"
			case evaluated == 0 && len(objs) > 0:
				whys = append(whys, string(v.Scope)+": "+missingData(lastErr))
			}
		}
		if state.State == "cannot_evaluate" {
			state.Detail = strings.Join(whys, "; ")
		}
		res.Rules = append(res.Rules, state)
	}
	for k, fd := range e.found {
		if !seenNow[k] && !fd.Resolved {
			fd.Resolved = true
		}
	}
	for _, k := range e.order {
		res.Findings = append(res.Findings, *e.found[k])
	}
	sort.SliceStable(res.Findings, func(i, j int) bool {
		a, b := res.Findings[i], res.Findings[j]
		if a.Resolved != b.Resolved {
			return !a.Resolved
		}
		return a.Severity.rank() > b.Severity.rank()
	})
	return res
}

// missingData turns an evaluation error into words: nearly always a
// counter or setting this host does not have.
func missingData(err error) string {
	if err == nil {
		return "no data"
	}
	msg := err.Error()
	if strings.Contains(msg, "nil") {
		return "the data this rule needs is not available here (a counter, setting or source this host lacks)"
	}
	return msg
}

func render(t *template.Template, env Env) string {
	var b strings.Builder
	if err := t.Execute(&b, env); err != nil {
		return fmt.Sprintf("(evidence unavailable: %v)", errors.Unwrap(err))
	}
	return strings.TrimSpace(b.String())
}

// templateFuncs are available in evidence templates.
var templateFuncs = template.FuncMap{
	// num formats a number (or nil) for people: 3 significant digits.
	"num": func(v any) string {
		switch x := v.(type) {
		case nil:
			return "n/a"
		case float64:
			return strconv.FormatFloat(x, 'g', 4, 64)
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
		}
		return fmt.Sprint(v)
	},
}

// Worst returns the highest severity among the findings (also resolved
// ones: a recording that showed a fault shows a fault), "" when none.
func Worst(fs []Finding) Severity {
	var w Severity
	for _, f := range fs {
		if f.Severity.rank() > w.rank() {
			w = f.Severity
		}
	}
	return w
}

// AtLeastWarning reports whether any finding is warning or critical.
func AtLeastWarning(fs []Finding) bool { return Worst(fs).rank() >= Warning.rank() }
