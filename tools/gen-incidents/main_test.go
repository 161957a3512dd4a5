package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rdmatop/rdmatop/internal/incidents"
	"github.com/rdmatop/rdmatop/rules"
)

const corpus = "../../testdata/incidents"

// The synthetic recordings in the corpus are what the generator writes
// today, byte for byte, and a second run writes the same bytes.
func TestGoldenAndDeterministic(t *testing.T) {
	fx, err := LoadFixture("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Synthetics {
		t.Run(s.Name, func(t *testing.T) {
			a, err := Generate(fx, s)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Generate(fx, s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Fatal("two runs of the generator differ")
			}
			want, err := os.ReadFile(filepath.Join(corpus, s.Name+".pcapng.gz"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, want) {
				t.Fatalf("%s.pcapng.gz differs from what the generator writes now (%d vs %d bytes): rerun `go run ./tools/gen-incidents` from the repository root and review the change", s.Name, len(want), len(a))
			}
		})
	}
}

// incidents.json: every entry's file exists, its labels are rule ids of
// the built-in pack (or "healthy"), names are unique, and the synthetic
// entries are exactly the generator's scenarios with their labels.
func TestIncidentsJSON(t *testing.T) {
	list, err := incidents.Load(filepath.Join(corpus, "incidents.json"))
	if err != nil {
		t.Fatal(err)
	}
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	known := func(id string) bool { return pack.Rule(id) != nil }
	seen := map[string]bool{}
	syn := map[string]incidents.Incident{}
	for _, e := range list {
		if seen[e.Name] {
			t.Errorf("%s: listed twice", e.Name)
		}
		seen[e.Name] = true
		if _, err := os.Stat(filepath.Join(corpus, e.File)); err != nil {
			t.Errorf("%s: %v", e.Name, err)
		}
		if e.TrueCause != "healthy" && !known(e.TrueCause) {
			t.Errorf("%s: true_cause %q is not a rule of the pack", e.Name, e.TrueCause)
		}
		if e.AlsoAcceptable == nil {
			t.Errorf("%s: also_acceptable must be a list (possibly empty)", e.Name)
		}
		for _, id := range e.AlsoAcceptable {
			if !known(id) || id == e.TrueCause {
				t.Errorf("%s: also_acceptable %q is not another rule of the pack", e.Name, id)
			}
		}
		if e.How == "" {
			t.Errorf("%s: no how", e.Name)
		}
		if e.Synthetic {
			syn[e.Name] = e
		}
	}
	if len(list) < 25 {
		t.Errorf("%d incidents, want at least 25", len(list))
	}
	for _, s := range Synthetics {
		e, ok := syn[s.Name]
		if !ok {
			t.Errorf("%s: not in incidents.json as synthetic", s.Name)
			continue
		}
		delete(syn, s.Name)
		also := s.AlsoAcceptable
		if also == nil {
			also = []string{}
		}
		if e.File != s.Name+".pcapng.gz" || e.TrueCause != s.TrueCause || !slices.Equal(e.AlsoAcceptable, also) || e.How != s.How {
			t.Errorf("%s: incidents.json says %+v, the generator's scenario says true_cause %q, also_acceptable %q, how %q",
				s.Name, e, s.TrueCause, also, s.How)
		}
	}
	for name := range syn {
		t.Errorf("%s: synthetic in incidents.json but not a scenario of the generator", name)
	}
}
