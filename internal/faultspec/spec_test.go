package faultspec

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParseOldAndNewColumns(t *testing.T) {
	s, err := Parse("loss1-write-u18   | write      | loss 1%    | -   | -u 18")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "loss1-write-u18" || s.Fwd != "loss 1%" || s.Rev != "-" || s.Extra != "-u 18" ||
		s.AtFwd != Mid || s.AtRev != Mid || s.Net != "v4" {
		t.Errorf("old line: %+v", s)
	}
	s, err = Parse("x | ib_write_bw -s 64 -n 10 | loss 2% | - | --tclass=2 | src | v6-vlan")
	if err != nil {
		t.Fatal(err)
	}
	if s.AtFwd != Src || s.AtRev != Src || s.Net != "v6-vlan" {
		t.Errorf("one word for both: %+v", s)
	}
	back, err := Parse(s.String())
	if err != nil || back != s {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	if _, err := Parse("a | b"); err == nil {
		t.Error("a two-column line parsed")
	}
}

func TestFamilies(t *testing.T) {
	for fault, want := range map[string]string{
		"-":                                     "",
		"loss 1%":                               "loss",
		"loss 2% 25%":                           "loss-corr",
		"loss gemodel 1% 30% 70% 0.1%":          "loss-gemodel",
		"loss 10% ecn":                          "ecn-netem",
		"delay 2ms 2ms":                         "jitter",
		"delay 2ms 1ms 20% duplicate 5%":        "jitter duplicate",
		"delay 3ms 1ms reorder 10%":             "jitter-reorder",
		"delay 2ms reorder 25% 50%":             "reorder",
		"delay 100ms":                           "delay",
		"loss 2% duplicate 5%":                  "loss duplicate",
		"slot 2ms 5ms packets 8":                "slot",
		"rate 20mbit":                           "rate",
		"tbf rate 20mbit burst 3044 limit 6088": "tbf",
		"tbf rate 20mbit burst 3044 limit 9999 ; red limit 9 min 1 max 3 avpkt 1500 burst 2 probability 0.1 bandwidth 20mbit ecn": "red-ecn",
		"netem delay 2ms reorder 5% ; tbf rate 17mbit burst 9044 limit 9044":                                                      "reorder tbf",
	} {
		if got := strings.Join(Families(fault), " "); got != want {
			t.Errorf("Families(%q) = %q, want %q", fault, got, want)
		}
	}
}

// Every fault of the committed campaign has a family name.
func TestFamiliesOfCommittedSpecs(t *testing.T) {
	for _, f := range []string{"../../test/lab/twopoint/specs.txt", "../../test/lab/twopoint/specs-4096.txt"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
				continue
			}
			s, err := Parse(l)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []string{s.Fwd, s.Rev} {
				fams := Families(c)
				if c != "-" && len(fams) == 0 {
					t.Errorf("%s: %q names no family", s.Name, c)
				}
				for _, fam := range fams {
					if !slices.Contains(AllFamilies, fam) && fam != "delay" {
						t.Errorf("%s: family %q unknown", s.Name, fam)
					}
				}
			}
		}
	}
}
