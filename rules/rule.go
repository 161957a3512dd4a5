package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/expr-lang/expr"
	"go.yaml.in/yaml/v3"
)

// Severity of a rule.
type Severity string

// Severities, in order.
const (
	Info     Severity = "info"
	Warning  Severity = "warning"
	Critical Severity = "critical"
)

// Rank orders severities: info 1, warning 2, critical 3, anything else 0.
func (s Severity) Rank() int {
	switch s {
	case Info:
		return 1
	case Warning:
		return 2
	case Critical:
		return 3
	}
	return 0
}

// Scope is what a rule is evaluated over: once per host, or once per
// port, priority (of a port), QP or capture flow.
type Scope string

// Scopes.
const (
	ScopeHost     Scope = "host"
	ScopePort     Scope = "port"
	ScopePriority Scope = "priority"
	ScopeQP       Scope = "qp"
	ScopeFlow     Scope = "flow"
)

// Rule is one rule as written in a pack file.
type Rule struct {
	ID       string             `yaml:"id" json:"id"`
	Title    string             `yaml:"title" json:"title"`
	Severity Severity           `yaml:"severity" json:"severity"`
	Scope    Scope              `yaml:"scope" json:"scope"`
	When     string             `yaml:"when" json:"when"`
	For      Duration           `yaml:"for" json:"for,omitempty"`
	Params   map[string]float64 `yaml:"params" json:"params,omitempty"`
	Evidence string             `yaml:"evidence" json:"evidence"`
	// Requires and On, optional, say where the condition is evaluated at
	// all (see Variant).
	Requires string   `yaml:"requires" json:"requires,omitempty"`
	On       []string `yaml:"on" json:"on,omitempty"`
	// Vars, optional, give confirm and fix placeholders (PCI_ADDR, IFACE, …)
	// values that the rule's data knows and its objects do not: an
	// expression each, on the same names as when (an address a kernel log
	// line named). One that yields nothing or fails leaves the placeholder.
	Vars map[string]string `yaml:"vars" json:"vars,omitempty"`
	// Magnitude, optional, is how much of the symptom one finding shows
	// (the PSNs a flow lost, the packets it resent), a number that ranks
	// the findings of this variant among themselves: the flow that lost
	// the most comes first, whatever fired last.
	Magnitude string   `yaml:"magnitude" json:"magnitude,omitempty"`
	Cause     string   `yaml:"cause" json:"cause"`
	Confirm   []string `yaml:"confirm" json:"confirm"`
	Fix       []string `yaml:"fix" json:"fix"`
	Docs      []string `yaml:"docs" json:"docs"`
	// Also lists the same symptom seen in other data: e.g. packet loss in
	// a capture's flows (scope flow) and in a port's counters (scope port).
	Also []Variant `yaml:"also" json:"also,omitempty"`
	// Explains lists the rules whose findings this rule's findings explain
	// when both hold on related objects (a link flap explains the
	// retransmissions it causes): the cause ranks first and the symptoms
	// are shown under it (group.go).
	Explains []string `yaml:"explains" json:"explains,omitempty"`
	// ExplainsShare, optional, bounds an explanation by size: a finding
	// of this rule explains one of the named rule only when its Magnitude
	// is at least this share (or multiple) of the other's (both counting
	// packets; either unknown decides nothing). A cause that could account
	// for a tenth of a symptom does not explain it.
	ExplainsShare map[string]float64 `yaml:"explains_share" json:"explains_share,omitempty"`
	// vars are Vars compiled.
	vars map[string]program
	// Source is file:line where the rule is defined.
	Source string `yaml:"-" json:"source"`

	compiled
	all []*Variant // the primary condition and Also, built at load
}

// compiled is a variant's expressions and evidence template, compiled.
type compiled struct {
	program   program
	evidence  *template.Template
	magnitude program // nil without one
	requires  program // nil without one
	// qpLocal says the condition reads nothing but its QP and params (it
	// compiles against qpOnlyEnv): its answer on a QP that did not
	// change since the previous frame is the answer it had there.
	qpLocal bool
	// on is On resolved against the flow summary (flowindex.go).
	on []flowPred
}

// Variant is another scope and condition of the same rule.
type Variant struct {
	Scope    Scope  `yaml:"scope" json:"scope"`
	When     string `yaml:"when" json:"when"`
	Evidence string `yaml:"evidence" json:"evidence"`
	// Magnitude ranks this variant's findings (see Rule.Magnitude).
	Magnitude string `yaml:"magnitude" json:"magnitude,omitempty"`
	// For overrides the rule's `for` for this variant: the same symptom
	// can be an event in one kind of data (a dropped frame) and a level
	// in another (a share of packets over an interval). Nil: the rule's.
	For *Duration `yaml:"for" json:"for,omitempty"`
	// Requires is a condition on the frame alone (host, wire, params: no
	// object), evaluated once per frame before any object: where it does
	// not hold, the variant cannot be evaluated in this frame and says
	// so. It states what data the rule needs ("DCB settings were read").
	Requires string `yaml:"requires" json:"requires,omitempty"`
	// On, for scope flow, lists the flow's numbers (naks.rnr, or
	// peer.naks.rnr for its peer's) of which at least one must be
	// non-zero, field=value tests (encap=rocev1), or field!=peer.field
	// tests (dscp!=peer.dscp: the flow's and its peer's differ), for the
	// condition to be evaluated on a flow: elsewhere it is false. It is part of the
	// condition's meaning, which an index checks without running it: a
	// capture holds 100,000 calm flows and a rule is about a symptom.
	On []string `yaml:"on" json:"on,omitempty"`

	compiled
	// key prefixes the engine's keys of this variant: "rule|scope".
	key string
	// wait is how long the condition must hold: For, or the rule's for.
	wait time.Duration
	// qpEvidence says that the evidence reads only the QP (evidence.go).
	qpEvidence bool
}

// variants returns the rule's primary condition and its Also list.
func (r *Rule) variants() []*Variant {
	if r.all == nil { // a Rule built by hand, not by Load
		r.all = r.buildVariants()
	}
	return r.all
}

func (r *Rule) buildVariants() []*Variant {
	out := []*Variant{{Scope: r.Scope, When: r.When, Evidence: r.Evidence, Requires: r.Requires, On: r.On, compiled: r.compiled}}
	for i := range r.Also {
		out = append(out, &r.Also[i])
	}
	for _, v := range out {
		v.key = r.ID + "|" + string(v.Scope)
		v.wait = time.Duration(r.For)
		if v.For != nil {
			v.wait = time.Duration(*v.For)
		}
		if v.Scope == ScopeQP {
			v.qpEvidence = qpOnlyEvidence(v.evidence)
		}
	}
	return out
}

// Duration is a time.Duration written like "30s" in YAML.
type Duration time.Duration

// UnmarshalYAML parses "30s", "2m", "0".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: for %q: %v", n.Line, n.Value, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as text.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Pack is a set of rules by id.
type Pack struct {
	Rules []*Rule
}

// Rule returns the rule with id.
func (p *Pack) Rule(id string) *Rule {
	for _, r := range p.Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

var idPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// LoadError names the file and line of a bad rule.
type LoadError struct {
	File string
	Line int
	Msg  string
}

func (e *LoadError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Load reads every *.yaml file of fsys (a directory of rule files, each a
// YAML list of rules), in name order. Rules in later packs override earlier
// ones by id (see Merge); within one pack a duplicate id is an error.
func Load(fsys fs.FS, dir string) (*Pack, error) {
	files, err := fs.Glob(fsys, path.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	p := &Pack{}
	seen := map[string]string{}
	var errs []error
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		rules, err := parseFile(f, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, r := range rules {
			if where, dup := seen[r.ID]; dup {
				errs = append(errs, fmt.Errorf("%s: duplicate rule id %q (first defined at %s)", r.Source, r.ID, where))
				continue
			}
			seen[r.ID] = r.Source
			p.Rules = append(p.Rules, r)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// Merge returns base with extra's rules added, replacing those with the
// same id (--rules DIR).
func Merge(base, extra *Pack) *Pack {
	out := &Pack{}
	for _, r := range base.Rules {
		if extra.Rule(r.ID) == nil {
			out.Rules = append(out.Rules, r)
		}
	}
	out.Rules = append(out.Rules, extra.Rules...)
	return out
}

func parseFile(name string, data []byte) ([]*Rule, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, &LoadError{name, list.Line, "a rule file is a YAML list of rules"}
	}
	var out []*Rule
	var errs []error
	for _, n := range list.Content {
		var r Rule
		if err := decodeStrict(n, &r); err != nil {
			errs = append(errs, &LoadError{name, n.Line, err.Error()})
			continue
		}
		r.Source = fmt.Sprintf("%s:%d", path.Base(name), n.Line)
		if err := r.compile(); err != nil {
			errs = append(errs, &LoadError{name, lineOf(n, "when", n.Line), fmt.Sprintf("rule %q: %v", r.ID, err)})
			continue
		}
		out = append(out, &r)
	}
	return out, errors.Join(errs...)
}

func lineOf(n *yaml.Node, key string, def int) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1].Line
		}
	}
	return def
}

// compile checks the rule and compiles its expression and evidence
// template; an unknown variable, a wrong type or a bad template is an
// error here, at load, not when the rule would fire.
func (r *Rule) compile() error {
	switch {
	case !idPattern.MatchString(r.ID):
		return fmt.Errorf("id %q: must be kebab-case (a-z, 0-9, -)", r.ID)
	case r.Title == "":
		return errors.New("no title")
	case r.Severity.Rank() == 0:
		return fmt.Errorf("severity %q: must be info, warning or critical", r.Severity)
	case !slices.Contains([]Scope{ScopeHost, ScopePort, ScopePriority, ScopeQP, ScopeFlow}, r.Scope):
		return fmt.Errorf("scope %q: must be host, port, priority, qp or flow", r.Scope)
	case strings.TrimSpace(r.When) == "":
		return errors.New("no when expression")
	case r.Cause == "" || len(r.Fix) == 0 || len(r.Confirm) == 0:
		return errors.New("cause, confirm and fix are all required: a finding must say what to do")
	}
	c, err := compileVariant(r.ID, r.Scope, r.When, r.Evidence, r.Magnitude, r.Requires, r.On, r.Params)
	if err != nil {
		return err
	}
	r.compiled = c
	r.vars = map[string]program{}
	for name, src := range r.Vars {
		if placeholder.FindString(name) != name {
			return fmt.Errorf("vars: %q is not a placeholder of confirm and fix (%s)", name, placeholder)
		}
		p, err := compileExpr(src, expr.Env(Env{}))
		if err != nil {
			return fmt.Errorf("vars.%s: %v", name, err)
		}
		r.vars[name] = p
	}
	for i := range r.Also {
		v := &r.Also[i]
		if !slices.Contains([]Scope{ScopeHost, ScopePort, ScopePriority, ScopeQP, ScopeFlow}, v.Scope) {
			return fmt.Errorf("also[%d]: scope %q: must be host, port, priority, qp or flow", i, v.Scope)
		}
		if v.compiled, err = compileVariant(r.ID, v.Scope, v.When, v.Evidence, v.Magnitude, v.Requires, v.On, r.Params); err != nil {
			return fmt.Errorf("also[%d]: %v", i, err)
		}
	}
	r.all = r.buildVariants()
	return nil
}

// compileVariant compiles a variant's condition, evidence template,
// magnitude and requires, and resolves its on list.
func compileVariant(id string, scope Scope, when, evidence, magnitude, requires string, on []string, params map[string]float64) (compiled, error) {
	var c compiled
	if strings.TrimSpace(when) == "" {
		return c, errors.New("no when expression")
	}
	var err error
	// Compiled against the struct, not a pointer to it (the engine runs
	// it on a *Env): then expr loads fields by index, where with a pointer
	// it looks every name up by reflection at each run.
	if c.program, err = compileExpr(when, expr.Env(Env{}), expr.AsBool()); err != nil {
		return c, fmt.Errorf("when: %v", err)
	}
	for _, src := range []string{when, requires, magnitude} {
		for _, p := range paramRefs(src) {
			if _, ok := params[p]; !ok {
				return c, fmt.Errorf("uses params.%s, which the rule does not define", p)
			}
		}
	}
	if c.evidence, err = template.New(id).Option("missingkey=error").Funcs(templateFuncs).Parse(evidence); err != nil {
		return c, fmt.Errorf("evidence: %v", err)
	}
	if strings.TrimSpace(magnitude) != "" {
		if c.magnitude, err = compileExpr(magnitude, expr.Env(Env{}), expr.AsFloat64()); err != nil {
			return c, fmt.Errorf("magnitude: %v", err)
		}
	}
	if strings.TrimSpace(requires) != "" {
		// Checked against the frame alone: naming an object is an error.
		if _, err := expr.Compile(requires, expr.Env(frameOnlyEnv{}), expr.AsBool()); err != nil {
			return c, fmt.Errorf("requires (host, wire and params only): %v", err)
		}
		if c.requires, err = compileExpr(requires, expr.Env(Env{}), expr.AsBool()); err != nil {
			return c, fmt.Errorf("requires: %v", err)
		}
	}
	if len(on) > 0 {
		if scope != ScopeFlow {
			return c, fmt.Errorf("on: only a flow-scope condition has one, not scope %s", scope)
		}
		if c.on, err = flowPreds(on); err != nil {
			return c, fmt.Errorf("on: %v", err)
		}
	}
	if scope == ScopeQP {
		_, err := expr.Compile(when, expr.Env(qpOnlyEnv{}), expr.AsBool())
		c.qpLocal = err == nil
	}
	return c, nil
}

var paramRef = regexp.MustCompile(`params\.([a-z_][a-z0-9_]*)`)

func paramRefs(src string) []string {
	var out []string
	for _, m := range paramRef.FindAllStringSubmatch(src, -1) {
		out = append(out, m[1])
	}
	return out
}
