// Command campaign-gen draws a randomized two-point wire-truth campaign
// (test/lab/twopoint, issue 32) from a seed: K runs, each a fault family
// or two with drawn parameters, on A→B, B→A or both, between the capture
// points or at the sender's own egress, and a perftest workload (WRITE,
// READ with 1–16 outstanding, SEND, atomics, UD; 64 B–1 MiB; 1–8 QPs;
// bidirectional or not; rate-limited or flat out) over IPv4 or IPv6 GIDs,
// untagged or on a VLAN, at RoCE MTU 1024 or 4096. The same seed draws
// the same campaign (math/rand/v2 PCG). It writes one specs file per MTU
// (one VM boot each) and prints the families drawn (also in DIR/draw.txt):
//
//	go run ./tools/campaign-gen -seed 1 -runs 24 -out /tmp/campaign-1
//
// The spec line's columns are documented in docs/wiretruth.md.
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rdmatop/rdmatop/internal/faultspec"
)

func main() {
	seed := flag.Uint64("seed", 0, "the campaign's seed")
	runs := flag.Int("runs", 24, "how many runs to draw")
	out := flag.String("out", "", "directory for specs-mtu1500.txt and specs-mtu4500.txt")
	flag.Parse()
	if *out == "" || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: campaign-gen -seed N -runs K -out DIR")
		os.Exit(2)
	}
	draws := drawCampaign(*seed, *runs)
	if err := writeSpecs(*out, *seed, draws); err != nil {
		fmt.Fprintln(os.Stderr, "campaign-gen:", err)
		os.Exit(1)
	}
	var b strings.Builder
	summary(&b, *seed, draws)
	fmt.Print(b.String())
	if err := os.WriteFile(filepath.Join(*out, "draw.txt"), []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "campaign-gen:", err)
		os.Exit(1)
	}
}

// drawCampaign draws a seed's runs; the second PCG word is fixed so that
// the seed alone names the campaign.
func drawCampaign(seed uint64, runs int) []draw {
	r := rand.New(rand.NewPCG(seed, 0x7770_0032))
	draws := make([]draw, runs)
	for i := range draws {
		draws[i] = drawRun(r, seed, i+1)
	}
	return draws
}

// writeSpecs writes DIR/specs-mtuM.txt for each MTU drawn.
func writeSpecs(dir string, seed uint64, draws []draw) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, mtu := range []int{1500, 4500} {
		var b strings.Builder
		fmt.Fprintf(&b, "# Randomized two-point campaign, seed %d, veth MTU %d (RoCE MTU %d): tools/campaign-gen.\n", seed, mtu, roceMTU[mtu])
		b.WriteString("# name | workload | A->B fault | B->A fault | perftest args | where (A->B B->A) | network\n")
		n := 0
		for _, d := range draws {
			if d.mtu == mtu {
				b.WriteString(d.spec.String() + "\n")
				n++
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("specs-mtu%d.txt", mtu))
		if n == 0 {
			os.Remove(path)
			continue
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// summary prints what the seed drew: families, directions, placements,
// workloads, networks and MTUs.
func summary(w io.Writer, seed uint64, draws []draw) {
	count := func(key func(d draw) []string) string {
		m := map[string]int{}
		for _, d := range draws {
			for _, k := range key(d) {
				m[k]++
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
		return strings.Join(parts, ", ")
	}
	fmt.Fprintf(w, "seed %d: %d runs\n", seed, len(draws))
	fmt.Fprintf(w, "families: %s\n", count(func(d draw) []string { return d.families }))
	var missing []string
	for _, f := range faultspec.AllFamilies {
		if !slices.ContainsFunc(draws, func(d draw) bool { return slices.Contains(d.families, f) }) {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "families not drawn: %s\n", strings.Join(missing, ", "))
	}
	fmt.Fprintf(w, "directions: %s\n", count(func(d draw) []string {
		var s []string
		if d.spec.Fwd != "-" {
			s = append(s, "A→B@"+d.spec.AtFwd)
		}
		if d.spec.Rev != "-" {
			s = append(s, "B→A@"+d.spec.AtRev)
		}
		return s
	}))
	fmt.Fprintf(w, "workloads: %s\n", count(func(d draw) []string { return []string{d.verb} }))
	fmt.Fprintf(w, "networks: %s\n", count(func(d draw) []string { return []string{d.spec.Net} }))
	fmt.Fprintf(w, "MTUs: %s\n", count(func(d draw) []string { return []string{fmt.Sprint(roceMTU[d.mtu])} }))
	var total int64
	for _, d := range draws {
		total += d.bytes
	}
	fmt.Fprintf(w, "payload: %.0f MB in all\n", float64(total)/1e6)
}
