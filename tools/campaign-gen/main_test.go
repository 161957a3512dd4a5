package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/internal/faultspec"
)

func TestSameSeedSameCampaign(t *testing.T) {
	a, b := drawCampaign(7, 30), drawCampaign(7, 30)
	for i := range a {
		if a[i].spec != b[i].spec {
			t.Fatalf("run %d differs:\n%v\n%v", i, a[i].spec, b[i].spec)
		}
	}
	if c := drawCampaign(8, 30); c[0].spec == a[0].spec && c[1].spec == a[1].spec {
		t.Error("seeds 7 and 8 drew the same runs")
	}
}

// Every family can be drawn, and what a run says it drew is what its
// spec line asks for (faultspec names the spec's families the same way).
func TestDrawsEveryFamilyAsSpecified(t *testing.T) {
	drawn := map[string]bool{}
	names := map[string]bool{}
	for _, d := range drawCampaign(1, 600) {
		s, err := faultspec.Parse(d.spec.String())
		if err != nil {
			t.Fatal(err)
		}
		if names[s.Name] {
			t.Errorf("name %s drawn twice", s.Name)
		}
		names[s.Name] = true
		got := append(faultspec.Families(s.Fwd), faultspec.Families(s.Rev)...)
		for _, f := range d.families {
			drawn[f] = true
			if !slices.Contains(got, f) {
				t.Errorf("%s: drew %s, the spec names %v", s.Name, f, got)
			}
		}
		for _, f := range got {
			if !slices.Contains(d.families, f) {
				t.Errorf("%s: the spec names %s, not drawn", s.Name, f)
			}
		}
		if !strings.HasPrefix(s.Workload, "ib_") {
			t.Errorf("%s: workload %q", s.Name, s.Workload)
		}
	}
	for _, f := range faultspec.AllFamilies {
		if !drawn[f] {
			t.Errorf("family %s never drawn in 600 runs", f)
		}
	}
}

// Runs stay short: bytes bounded by the flat-out budget, UD within one
// MTU, ECN families with ECN-capable packets.
func TestDrawsStayInBounds(t *testing.T) {
	for _, d := range drawCampaign(3, 400) {
		f := strings.Fields(d.spec.Workload)
		arg := func(flag string) int {
			i := slices.Index(f, flag)
			if i < 0 {
				return 0
			}
			n, err := strconv.Atoi(f[i+1])
			if err != nil {
				t.Fatalf("%s: %s %q", d.spec.Name, flag, f[i+1])
			}
			return n
		}
		if d.bytes > budgetFlat && arg("-n") != minIterations {
			t.Errorf("%s: %d bytes", d.spec.Name, d.bytes)
		}
		if d.verb == "ud" && arg("-s") > roceMTU[d.mtu] {
			t.Errorf("%s: UD larger than the MTU: %s", d.spec.Name, d.spec.Workload)
		}
		if slices.Contains(f, "-b") && slices.Contains(f, "ib_send_bw") && slices.Contains(f, "--rate_units=M") {
			t.Errorf("%s: perftest has no rate limit for a bidirectional SEND: %s", d.spec.Name, d.spec.Workload)
		}
		ecn := slices.Contains(d.families, "ecn-netem") || slices.Contains(d.families, "red-ecn")
		if ecn != strings.Contains(d.spec.Extra, "--tclass=2") {
			t.Errorf("%s: ECN %v, extra %q", d.spec.Name, ecn, d.spec.Extra)
		}
	}
}

// One netem holds one loss model and one delay, and a chain one tbf:
// tc would refuse a second.
func TestDrawsMakeValidQdiscs(t *testing.T) {
	for _, d := range drawCampaign(5, 600) {
		for _, col := range []string{d.spec.Fwd, d.spec.Rev} {
			for _, part := range strings.Split(col, ";") {
				f := strings.Fields(part)
				for _, w := range []string{"loss", "delay", "slot", "tbf", "red"} {
					if n := strings.Count(" "+strings.Join(f, " ")+" ", " "+w+" "); n > 1 {
						t.Errorf("%s: %q has %d %s", d.spec.Name, part, n, w)
					}
				}
			}
			if strings.Count(col, "tbf ") > 1 {
				t.Errorf("%s: two tbf in %q", d.spec.Name, col)
			}
		}
	}
}
