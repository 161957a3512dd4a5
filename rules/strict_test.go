package rules

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// knownFieldsDecode is yaml's own strict decoding of one rule node: the
// node encoded again and decoded with KnownFields. decodeStrict must
// answer as it does.
func knownFieldsDecode(n *yaml.Node, r *Rule) error {
	var buf bytes.Buffer
	if err := yaml.NewEncoder(&buf).Encode(n); err != nil {
		return err
	}
	dec := yaml.NewDecoder(&buf)
	dec.KnownFields(true)
	return dec.Decode(r)
}

// decodeStrict refuses the keys yaml's KnownFields refuses, at any depth,
// with the same error, and decodes the same rule otherwise: on every rule
// of the built-in pack and on rules with typos.
func TestDecodeStrictAsKnownFields(t *testing.T) {
	docs := []string{
		"- id: a\n  title: t\n  severty: info\n  also:\n    - scope: port\n      whne: x\n      for: 3s\n",
		"- id: a\n  params: {x: 1}\n  also: [{scope: port, evidence: e, bogus: 1}]\n  confirm: [a, b]\n",
		"- id: a\n  also: {scope: port}\n",
		"- id: a\n  for: 30s\n  severity: [x]\n",
		"- id: a\n  Source: x\n",
		"- id: a\n  explains: [b]\n  docs: [x]\n  fix: [y]\n",
	}
	names, err := fs.Glob(packFS, "pack/*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatalf("pack files: %v %v", names, err)
	}
	for _, name := range names {
		b, err := packFS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	rules := 0
	for _, d := range docs {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(d), &doc); err != nil {
			t.Fatal(err)
		}
		for _, n := range doc.Content[0].Content {
			var want, got Rule
			werr, gerr := knownFieldsDecode(n, &want), decodeStrict(n, &got)
			if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
				t.Errorf("rule at line %d:\nKnownFields %v\ndecodeStrict %v", n.Line, werr, gerr)
				continue
			}
			if werr == nil {
				rules++
				// Encoding a folded scalar again adds blank lines to it:
				// the texts are compared word by word.
				if want.ID != got.ID || strings.Join(strings.Fields(want.When), " ") != strings.Join(strings.Fields(got.When), " ") ||
					len(want.Also) != len(got.Also) || want.For != got.For {
					t.Errorf("rule at line %d decoded differently", n.Line)
				}
			}
		}
	}
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if rules < len(p.Rules) {
		t.Errorf("%d rules decoded, the pack has %d", rules, len(p.Rules))
	}
}

// Keys yaml's own strict decoding cannot take: an alias of another rule
// (encoding the node again loses its anchor) and the name of the Rule's
// unexported embedded struct (yaml.v3 panics on it). Both decode here.
func TestDecodeStrictBeyondKnownFields(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("- &x {id: a, title: t}\n- *x\n- {id: b, compiled: y}\n"), &doc); err != nil {
		t.Fatal(err)
	}
	var r Rule
	if err := decodeStrict(doc.Content[0].Content[1], &r); err != nil || r.ID != "a" {
		t.Errorf("alias: %v, id %q", err, r.ID)
	}
	err := decodeStrict(doc.Content[0].Content[2], &r)
	if err == nil || err.Error() != "yaml: unmarshal errors:\n  line 3: field compiled not found in type rules.Rule" {
		t.Errorf("embedded struct's name as a key: %v", err)
	}
}
