package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/rdmatop/rdmatop/internal/faultspec"
)

// draw is one run as drawn: its spec and what it was drawn from.
type draw struct {
	spec     faultspec.Spec
	mtu      int // the veth MTU the VM boots with: 1500 (RoCE 1024) or 4500 (4096)
	families []string
	verb     string
	bytes    int64 // the run's payload bytes, both directions
}

// RoCE MTUs by veth MTU (rxe takes the largest IB MTU that fits).
var roceMTU = map[int]int{1500: 1024, 4500: 4096}

// Bytes a run may carry. The lab is QEMU TCG emulation: Soft-RoCE moves
// about 10 MB/s there, and a run has ~8 s of fixed cost (captures up,
// server up, drain). 12 MB flat out is ~1–2 s of traffic on a clean path;
// a fault that costs recovery (loss: a NAK round trip or a 67 ms timer
// per episode; shallow queues) gets a quarter of that, and a bottleneck
// (a rate limit, tbf, red) at most 6 s of its rate, so that one run stays
// within ~15–30 s.
const (
	budgetFlat    = 12 << 20
	budgetSecs    = 6
	maxMessages   = 20000 // of all QPs: the packet rate, not bytes, bounds small messages
	minIterations = 10
)

// drawRun draws run i of a seed.
func drawRun(r *rand.Rand, seed uint64, i int) draw {
	d := draw{mtu: []int{1500, 4500}[r.IntN(2)]}
	frame := d.mtu + 18 + 4 // Ethernet header, FCS-less, a VLAN tag
	// One fault (two in three) or two at once.
	nf := 1
	if r.IntN(3) == 0 {
		nf = 2
	}
	var fwd, rev []fault
	dirOf := func() int { return []int{0, 0, 0, 1, 1, 2}[r.IntN(6)] } // A→B, B→A, both
	for len(d.families) < nf {
		f := drawFault(r, faultspec.AllFamilies[r.IntN(len(faultspec.AllFamilies))], frame)
		dir := dirOf()
		fits := func(col []fault) bool {
			for _, g := range col {
				if !compatible(f, g) {
					return false
				}
			}
			return true
		}
		if (dir != 1 && !fits(fwd)) || (dir != 0 && !fits(rev)) {
			continue // redraw: this one cannot share the direction
		}
		if dir != 1 {
			fwd = append(fwd, f)
		}
		if dir != 0 {
			rev = append(rev, f)
		}
		d.families = append(d.families, f.family)
	}
	d.spec.Fwd, d.spec.Rev = column(fwd), column(rev)
	// Where: between the captures, or (one in three) at the sender's own
	// egress, before its capture point.
	at := func() string {
		if r.IntN(3) == 0 {
			return faultspec.Src
		}
		return faultspec.Mid
	}
	d.spec.AtFwd, d.spec.AtRev = at(), at()
	if d.spec.Fwd == "-" {
		d.spec.AtFwd = faultspec.Mid // no fault there: nothing to place
	}
	if d.spec.Rev == "-" {
		d.spec.AtRev = faultspec.Mid
	}
	d.spec.Net = []string{"v4", "v4", "v6", "v4-vlan", "v6-vlan"}[r.IntN(5)]
	d.spec.Workload, d.verb, d.bytes = drawWorkload(r, d.mtu, slices.Concat(fwd, rev))
	var extra []string
	if slices.ContainsFunc(slices.Concat(fwd, rev), func(f fault) bool { return f.ecn }) {
		extra = append(extra, "--tclass=2") // ECT(0): rxe copies the GRH traffic class into the IP header
	}
	d.spec.Extra = strings.Join(extra, " ")
	d.spec.Name = fmt.Sprintf("s%d-%02d-%s-%s", seed, i, strings.Join(d.families, "+"), d.verb)
	return d
}

// drawWorkload draws a perftest command bounded to the run's budget.
func drawWorkload(r *rand.Rand, mtu int, faults []fault) (cmd, verb string, bytes int64) {
	verb = []string{"write", "write", "read", "read", "send", "send", "atomic", "ud"}[r.IntN(8)]
	qps := 1
	if r.IntN(2) == 0 {
		qps = 2 + r.IntN(7)
	}
	bidir := verb != "atomic" && r.IntN(4) == 0
	// Sizes log-uniform over 64 B–1 MiB; UD carries one MTU at most.
	size := 64 << r.IntN(15)
	if verb == "ud" {
		size = min(size, roceMTU[mtu])
	}
	budget := float64(budgetFlat)
	var rateLimit float64
	if verb != "atomic" && r.IntN(10) < 3 {
		rateLimit = float64(2 + r.IntN(7)) // MB/s, perftest's software limiter
		// perftest refuses its limiter on a bidirectional SEND ("SW Rate
		// limiter cann't be executed on ... bidirectional SEND tests"):
		// drawn all the same, so that the draws after it stay the seed's.
		if bidir && (verb == "send" || verb == "ud") {
			rateLimit = 0
		} else {
			budget = min(budget, rateLimit*budgetSecs*(1<<20))
		}
	}
	for _, f := range faults {
		if f.slow {
			budget = min(budget, budgetFlat/4)
		}
		if f.rate > 0 {
			budget = min(budget, f.rate*budgetSecs*(1<<20))
		}
	}
	dirs := 1
	if bidir {
		dirs = 2
	}
	var args []string
	switch verb {
	case "write":
		args = []string{"ib_write_bw"}
	case "read":
		args = []string{"ib_read_bw", "-o", fmt.Sprint(1 + r.IntN(16))}
	case "send":
		args = []string{"ib_send_bw"}
	case "ud":
		args = []string{"ib_send_bw", "-c", "UD"}
	case "atomic":
		args = []string{"ib_atomic_bw", "-A", []string{"FETCH_AND_ADD", "CMP_AND_SWAP"}[r.IntN(2)]}
		size = 8
	}
	per := int64(size) * int64(qps*dirs)
	n := int(budget / float64(per))
	for verb != "atomic" && n < minIterations && size > 64 {
		size /= 2 // a big message on many QPs: fewer bytes each, not fewer messages than perftest needs
		per = int64(size) * int64(qps*dirs)
		n = int(budget / float64(per))
	}
	n = max(minIterations, min(n, maxMessages/(qps*dirs)))
	if verb == "atomic" {
		n = min(n, 1000+r.IntN(1000))
	}
	if verb != "atomic" {
		args = append(args, "-s", fmt.Sprint(size))
	}
	args = append(args, "-n", fmt.Sprint(n))
	if qps > 1 {
		args = append(args, "-q", fmt.Sprint(qps))
	}
	if bidir {
		args = append(args, "-b")
	}
	if rateLimit > 0 {
		args = append(args, fmt.Sprintf("--rate_limit=%g", rateLimit), "--rate_units=M", "--rate_limit_type=SW")
	}
	return strings.Join(args, " "), verb, int64(n) * per
}
