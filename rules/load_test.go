package rules

import (
	"flag"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

const goodRule = `
- id: demo-rule
  title: Demo
  severity: warning
  scope: port
  when: Rate("cnp_sent") > 1
  evidence: "{{num (.Rate \"cnp_sent\")}} CNP/s"
  cause: demo
  confirm: ["rdma statistic show"]
  fix: ["nothing"]
  docs: ["docs/troubleshooting.md#demo-rule"]
`

// flowRule is goodRule on flows, with an on list.
func flowRule(on string) string {
	r := strings.Replace(goodRule, "scope: port", "scope: flow", 1)
	r = strings.Replace(r, `Rate("cnp_sent") > 1`, "flow.psn_gaps > 0", 1)
	return strings.Replace(r, "  cause: demo", "  on: "+on+"\n  cause: demo", 1)
}

func loadOne(content string) error {
	_, err := Load(fstest.MapFS{"r/a.yaml": {Data: []byte(content)}}, "r")
	return err
}

// Bad rule files are rejected at load with file:line and the reason.
func TestBadRuleFiles(t *testing.T) {
	if err := loadOne(goodRule); err != nil {
		t.Fatalf("good rule rejected: %v", err)
	}
	if err := loadOne(flowRule("[psn_gaps, peer.naks.rnr, encap=rocev1, troubled, dscp!=peer.dscp, pcp!=peer.pcp]")); err != nil {
		t.Fatalf("good flow rule rejected: %v", err)
	}
	for _, c := range []struct {
		name, content, want string
	}{
		{"yaml syntax", "- id: x\n  title: [unclosed\n", "r/a.yaml"},
		{"unknown variable", strings.Replace(goodRule, `Rate("cnp_sent") > 1`, "port.no_such_field > 1", 1), "r/a.yaml:6: rule \"demo-rule\": when: type rules.PortEnv has no field no_such_field"},
		{"wrong type", strings.Replace(goodRule, `Rate("cnp_sent") > 1`, `port.device > 1`, 1), "invalid operation"},
		{"not a boolean", strings.Replace(goodRule, `Rate("cnp_sent") > 1`, `port.port + 1`, 1), "expected bool"},
		{"unknown key", strings.Replace(goodRule, "  cause: demo", "  cause: demo\n  severty: info", 1), "field severty not found"},
		{"bad severity", strings.Replace(goodRule, "severity: warning", "severity: urgent", 1), `severity "urgent"`},
		{"bad id", strings.Replace(goodRule, "id: demo-rule", "id: Demo_Rule", 1), "kebab-case"},
		{"no fix", strings.Replace(goodRule, `  fix: ["nothing"]`, "", 1), "cause, confirm and fix"},
		{"undefined param", strings.Replace(goodRule, `Rate("cnp_sent") > 1`, `Rate("cnp_sent") > params.limit`, 1), "params.limit"},
		{"bad template", strings.Replace(goodRule, `{{num (.Rate \"cnp_sent\")}}`, `{{.Nope`, 1), "evidence"},
		{"duplicate id", goodRule + strings.TrimPrefix(goodRule, "\n"), "duplicate rule id \"demo-rule\""},
		{"requires names an object", strings.Replace(goodRule, "  cause: demo", "  requires: port.mtu != nil\n  cause: demo", 1), "requires (host, wire and params only)"},
		{"requires not a boolean", strings.Replace(goodRule, "  cause: demo", "  requires: host.qps\n  cause: demo", 1), "requires"},
		{"on outside scope flow", strings.Replace(goodRule, "  cause: demo", "  on: [psn_gaps]\n  cause: demo", 1), "on: only a flow-scope condition"},
		{"on unknown field", flowRule("[naks.nope]"), `flow has no nope`},
		{"on not a number", flowRule("[src]"), "not a number"},
		{"on value of a number", flowRule("[psn_gaps=3]"), "field=value tests a text field"},
		{"on a pointer", flowRule("[pcp]"), "not a number"},
		{"on != another field", flowRule("[dscp!=peer.pcp]"), "the peer's same field"},
		{"on != the other way", flowRule("[peer.dscp!=dscp]"), "the peer's same field"},
		{"on != not the peer", flowRule("[dscp!=dscp]"), "the peer's same field"},
		{"on != a list", flowRule("[opcodes!=peer.opcodes]"), "!= compares numbers"},
	} {
		err := loadOne(c.content)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// --rules DIR overrides a built-in rule by id and adds new ones.
func TestOverride(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/x.yaml", []byte(strings.Replace(strings.Replace(goodRule, "id: demo-rule", "id: packet-loss", 1),
		"docs/troubleshooting.md#demo-rule", "local", 1)+strings.TrimPrefix(goodRule, "\n")), 0o644)
	p, err := WithDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Rule("packet-loss"); r == nil || r.Title != "Demo" || p.Rule("demo-rule") == nil {
		t.Errorf("override: %+v", r)
	}
	n := 0
	for _, r := range p.Rules {
		if r.ID == "packet-loss" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d packet-loss rules after override", n)
	}
}

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/rules.md from the built-in pack")

// docs/rules.md is generated from the pack; it must not be stale.
// Regenerate with `go run ./cmd/rdmatop rules --markdown > docs/rules.md`
// or, without building the CLI, `go test ./rules -run TestRulesDocUpToDate -update-docs`.
func TestRulesDocUpToDate(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	want := Markdown(p)
	if *updateDocs {
		if err := os.WriteFile("../docs/rules.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("../docs/rules.md")
	if err != nil || string(got) != want {
		t.Errorf("docs/rules.md is stale: regenerate with `go run ./cmd/rdmatop rules --markdown > docs/rules.md` or `go test ./rules -run TestRulesDocUpToDate -update-docs`")
	}
}

// Every rule links a section of docs/troubleshooting.md that exists.
func TestRulesHaveTroubleshootingSections(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/troubleshooting.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Rules {
		if !strings.Contains(string(doc), "\n## "+r.ID+"\n") {
			t.Errorf("docs/troubleshooting.md has no section \"## %s\"", r.ID)
		}
		want := "docs/troubleshooting.md#" + r.ID
		if len(r.Docs) == 0 || r.Docs[0] != want {
			t.Errorf("%s: first docs link %v, want %s", r.ID, r.Docs, want)
		}
	}
}
