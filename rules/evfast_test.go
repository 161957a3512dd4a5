package rules

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/expr-lang/expr/ast"
	"github.com/rdmatop/rdmatop/probes"
)

// TestEvidenceProgramMatchesTemplate renders the evidence of every port
// and priority rule of the built-in pack, and a few written to reach every
// case, on random ports (randomPortEnv, with and without DCB and ECN
// settings) with evProgram and with the template as written: the same
// text, every time.
func TestEvidenceProgramMatchesTemplate(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	extra := []string{
		`{{.Port.Device}} {{.Port.Port}} {{.Port.RateGbps}} {{.Port.MTU}} {{num .Port.RoCEMTU}} {{.Prio.Enabled}} {{.Params.x}} {{.Params.missing}}`,
		`{{if .Prio.Enabled}}on{{else}}off{{end}} {{with .Rate "a"}}{{num .}} {{.}}{{else}}none{{end}} {{pct (.Rate "a") (.Delta "b")}} {{pct .Prio.RxPausedPct 0}}`,
		`{{/* c */}}{{num (.AnyRate "a" "b" "c")}} {{.Has "a"}} {{num (.Value "c")}} {{if .Port.Netdev}}({{.Port.Netdev}}){{end}} {{range .Port.Events}}{{.Kind}}{{end}}`,
	}
	type ev struct {
		name string
		v    *Variant
	}
	var evs []ev
	for _, r := range p.Rules {
		for _, v := range r.variants() {
			if v.evProgram != nil {
				evs = append(evs, ev{r.ID + "/" + string(v.Scope), v})
			}
		}
	}
	if len(evs) < 20 {
		t.Fatalf("%d port and priority templates compiled, want most", len(evs))
	}
	for i, text := range extra {
		r := &Rule{ID: "extra", Scope: ScopePriority, Severity: Info, Title: "t", When: "true", Evidence: text,
			Cause: "c", Confirm: []string{"c"}, Fix: []string{"f"}}
		if err := r.compile(); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if r.variants()[0].evProgram == nil {
			t.Fatalf("extra %d not compiled", i)
		}
		evs = append(evs, ev{text, r.variants()[0]})
	}
	names := map[string]bool{"a": true, "b": true, "c": true}
	for _, r := range p.Rules {
		for _, v := range r.variants() {
			if v.cond != nil {
				ast.Find(v.cond, func(n ast.Node) bool {
					if s, ok := n.(*ast.StringNode); ok {
						names[s.Value] = true
					}
					return false
				})
			}
		}
	}
	rnd := rand.New(rand.NewSource(2))
	var got, want bytes.Buffer
	for range 2000 {
		env := randomPortEnv(rnd, names)
		env.Params = map[string]float64{"x": 1.5, "min_seq_errors_per_s": 1, "min_ratio": 0.001}
		env.Host.Config = &probes.Config{}
		if rnd.Intn(2) == 0 {
			env.Host.Config.DCB = []probes.DCBConfig{{Netdev: "eth0", PFCEnabled: []int{3}, Trust: "dscp"}}
			env.Host.Config.ECN = []probes.ECNConfig{{Netdev: "eth0", RPEnabled: map[int]bool{3: false}}}
		}
		for _, e := range evs {
			g, w := e.v.evProgram.render(&got, env), render(&want, e.v.evidence, env)
			if g != w {
				t.Fatalf("%s:\nprogram  %q\ntemplate %q", e.name, g, w)
			}
		}
	}
}
