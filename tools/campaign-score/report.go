package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/rdmatop/rdmatop/internal/faultspec"
	"github.com/rdmatop/rdmatop/internal/wiretruth"
)

// tally counts right of judged.
type tally struct{ right, total int }

func (t tally) String() string {
	if t.total == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d", t.right, t.total)
}

// pctOf is the share right, to a tenth of a per cent rounded down: held
// against a bar (97 %), 1434/1479 is 96.9 %, not the 97.0 % rounding
// would print.
func pctOf(t tally) string {
	if t.total == 0 {
		return "–"
	}
	tenths := 1000 * t.right / t.total
	return fmt.Sprintf("%d.%d %%", tenths/10, tenths%10)
}

// report writes the markdown report of a scored campaign.
func report(w io.Writer, title, which string, runs []runResult, broken []string, missesOnly bool) {
	if title == "" {
		title = "a randomized two-point campaign"
	}
	fmt.Fprintf(w, "### Score: %s\n\n", title)
	var all, counts tally
	uncompared := 0
	for _, r := range runs {
		for _, p := range r.points {
			uncompared += p.uncompared
			all.total++
			if p.right {
				all.right++
			}
			for _, c := range p.checks {
				counts.total++
				if c.Agrees() {
					counts.right++
				}
			}
		}
	}
	fmt.Fprintf(w, "%d runs with a truth, %d captures judged (%s captures); first finding right by `networkDid` on **%s (%s)**; counts within tolerance on **%s (%s)**.\n",
		len(runs), all.total, which, all, pctOf(all), counts, pctOf(counts))
	if uncompared > 0 {
		fmt.Fprintf(w, "Not compared: %d flow observations whose sender's own egress carried the impairment, before its capture point (the truth is what happened between the points; what was dropped, delayed or reordered before both it cannot place).\n", uncompared)
	}
	if len(broken) > 0 {
		fmt.Fprintf(w, "Runs not judged (no truth: captures missing or the truth tool failed; or a capture dropped packets, which the truth would call lost): %s.\n", strings.Join(broken, ", "))
	}
	var plumbing []string
	for _, r := range runs {
		if r.exits != "client exit 0, server exit 0" {
			plumbing = append(plumbing, fmt.Sprintf("%s (%s)", r.name, r.exits))
		}
	}
	if len(plumbing) > 0 {
		fmt.Fprintf(w, "Runs whose workload or captures failed (judged all the same, by their truth): %s.\n", strings.Join(plumbing, "; "))
	}
	w.Write([]byte("\n"))
	familyTable(w, runs)
	networkTable(w, runs)
	confusion(w, runs)
	countTable(w, runs)
	beforeCapture(w, runs)
	everyCapture(w, runs, missesOnly)
}

// familyTable: per fault family and where it sat, the runs, the first
// finding right at each capture point, the captures where the truth shows
// nothing visible (and how many of them stayed silent) and the counts.
func familyTable(w io.Writer, runs []runResult) {
	type row struct {
		runs           int
		at             map[string]*tally
		hidden, counts tally
		nothing, quiet int
	}
	rows := map[string]*row{}
	for _, r := range runs {
		for _, key := range append(slices.Clone(r.rows), "all") {
			x := rows[key]
			if x == nil {
				x = &row{at: map[string]*tally{}}
				rows[key] = x
			}
			x.runs++
			for _, p := range r.points {
				t := x.at[p.point]
				if t == nil {
					t = &tally{}
					x.at[p.point] = t
				}
				t.total++
				if p.right {
					t.right++
				}
				if len(p.did) == 0 || p.hidden {
					x.hidden.total++
					if p.warnings == 0 {
						x.hidden.right++
					}
				}
				for _, c := range p.checks {
					x.counts.total++
					if c.Agrees() {
						x.counts.right++
					}
				}
			}
		}
	}
	keys := slices.Sorted(maps.Keys(rows))
	keys = slices.DeleteFunc(keys, func(k string) bool { return k == "all" })
	keys = append(keys, "all")
	fmt.Fprintln(w, "#### First finding right, per fault family")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "A run is filed under each family its spec drew (@mid: between the capture points; @src: at the")
	fmt.Fprintln(w, "sender's own egress, before its capture point). *Nothing visible*: captures where the truth shows")
	fmt.Fprintln(w, "nothing the network did, or nothing of it visible at that point, and of them those with no warning.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| family | runs | right at veth0 (A) | right at veth1 (B) | nothing visible: silent | counts agree |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, k := range keys {
		x := rows[k]
		at := func(p string) string {
			if t := x.at[p]; t != nil {
				return t.String()
			}
			return "–"
		}
		name := k
		if k == "all" {
			name = "**all**"
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", name, x.runs, at("veth0"), at("veth1"), x.hidden, x.counts)
	}
	fmt.Fprintln(w)
}

// networkTable: the same by network and RoCE MTU. IPv6 has no
// identification: rdmatop (and the truth) lose the sender's order there,
// as with hardware NICs' IPv4 ID 0.
func networkTable(w io.Writer, runs []runResult) {
	type row struct {
		runs   int
		at     map[string]*tally
		counts tally
	}
	rows := map[string]*row{}
	for _, r := range runs {
		for _, key := range []string{"network " + r.spec.Net, "RoCE MTU " + r.mtu} {
			x := rows[key]
			if x == nil {
				x = &row{at: map[string]*tally{"veth0": {}, "veth1": {}}}
				rows[key] = x
			}
			x.runs++
			for _, p := range r.points {
				if t := x.at[p.point]; t != nil {
					t.total++
					if p.right {
						t.right++
					}
				}
				for _, c := range p.checks {
					x.counts.total++
					if c.Agrees() {
						x.counts.right++
					}
				}
			}
		}
	}
	fmt.Fprintln(w, "#### By network and MTU")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| | runs | right at veth0 (A) | right at veth1 (B) | counts agree |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, k := range slices.Sorted(maps.Keys(rows)) {
		x := rows[k]
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s |\n", k, x.runs, x.at["veth0"], x.at["veth1"], x.counts)
	}
	fmt.Fprintln(w)
}

// confusion: what the network did by the truth (rows) against what
// rdmatop said first (columns), in captures.
func confusion(w io.Writer, runs []runResult) {
	m := map[string]map[string]int{}
	colN := map[string]int{}
	for _, r := range runs {
		for _, p := range r.points {
			l := p.label()
			if m[l] == nil {
				m[l] = map[string]int{}
			}
			m[l][p.first]++
			colN[p.first]++
		}
	}
	cols := slices.SortedFunc(maps.Keys(colN), func(a, b string) int {
		return cmp.Or(cmp.Compare(colN[b], colN[a]), cmp.Compare(a, b))
	})
	fmt.Fprintln(w, "#### Confusion: what the network did (truth, rows) vs rdmatop's first finding (columns), captures")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| network did \\ said | %s |\n", strings.Join(cols, " | "))
	fmt.Fprintf(w, "|---|%s\n", strings.Repeat("---|", len(cols)))
	for _, l := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(w, "| %s |", l)
		for _, c := range cols {
			if n := m[l][c]; n > 0 {
				fmt.Fprintf(w, " %d |", n)
			} else {
				fmt.Fprint(w, " · |")
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// countTable: per count, the flow observations within tolerance.
func countTable(w io.Writer, runs []runResult) {
	by := map[string]*tally{}
	var bad []string
	for _, r := range runs {
		for _, p := range r.points {
			for _, c := range p.checks {
				t := by[c.Name]
				if t == nil {
					t = &tally{}
					by[c.Name] = t
				}
				t.total++
				if c.Agrees() {
					t.right++
				} else {
					bad = append(bad, fmt.Sprintf("%s at %s: %s %d, truth %d%s (tolerance %d; %s)", r.name, p.point, c.Name, c.Got, c.Want, unclear(c), c.Tolerance, c.Flow))
				}
			}
		}
	}
	fmt.Fprintln(w, "#### Count agreements (as CAMPAIGN.md: within `FlowTruth.Compare`'s tolerances)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| count | within tolerance |")
	fmt.Fprintln(w, "|---|---|")
	for _, n := range append(slices.Clone(wiretruth.CountNames), "flow-missing") {
		if t := by[n]; t != nil {
			fmt.Fprintf(w, "| %s | %s |\n", n, t)
		}
	}
	if len(bad) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Beyond tolerance:")
		fmt.Fprintln(w)
		for _, b := range bad {
			fmt.Fprintln(w, "- "+b)
		}
	}
	fmt.Fprintln(w)
}

// beforeCapture lists the runs with a fault at the sender's own egress:
// both captures sit downstream of it, so the two-point truth cannot see
// what it did; the qdisc's own counters are shown beside the truth's.
func beforeCapture(w io.Writer, runs []runResult) {
	var lines []string
	for _, r := range runs {
		var parts []string
		if r.spec.Fwd != "-" && r.spec.AtFwd == faultspec.Src {
			parts = append(parts, "A→B at veth0: "+orNone(r.qdiscs["fwd"]))
		}
		if r.spec.Rev != "-" && r.spec.AtRev == faultspec.Src {
			parts = append(parts, "B→A at veth1: "+orNone(r.qdiscs["rev"]))
		}
		if len(parts) == 0 {
			continue
		}
		_, why := wiretruth.NetworkDid(&r.truth.Truth, r.points[0].point)
		lines = append(lines, fmt.Sprintf("| %s | %s | %s |", r.name, strings.Join(parts, "; "), why))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "#### Faults before the capture point: what the qdisc counted vs the truth")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "A fault on the sender's own egress acts before both capture points: the byte matching")
	fmt.Fprintln(w, "(between veth0 and veth1) cannot see what it did. The qdisc's counters (tc -s) can: the judge")
	fmt.Fprintln(w, "counts the drops the transport lost as loss (wiretruth.SourceDrops), and the truth below includes them.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| run | qdisc before the capture (tc -s) | truth between the captures |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
}

func orNone(s string) string {
	if s == "" {
		return "no counters"
	}
	return s
}

// everyCapture: one row a capture, misses in bold (or the misses only).
func everyCapture(w io.Writer, runs []runResult, missesOnly bool) {
	if missesOnly {
		fmt.Fprintln(w, "#### The captures judged wrong")
	} else {
		fmt.Fprintln(w, "#### Every capture")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| run | fault A→B / B→A (where) | workload | net | capture | network did (truth) | truth | first finding | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range runs {
		for _, p := range r.points {
			if missesOnly && p.right {
				continue
			}
			verdict := "right"
			if !p.right {
				verdict = "**wrong**"
			}
			did := "nothing"
			if len(p.did) > 0 {
				did = strings.Join(p.did, ", ")
			}
			if p.hidden {
				did += " (nothing of it visible here)"
			}
			fault := fmt.Sprintf("%s (%s) / %s (%s)", r.spec.Fwd, r.spec.AtFwd, r.spec.Rev, r.spec.AtRev)
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.name, esc(fault), esc(r.spec.Workload),
				r.spec.Net, p.point, did, p.why, p.first, verdict)
		}
	}
	fmt.Fprintln(w)
}

// esc keeps a cell's text out of the table's syntax.
func esc(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// unclear names the range a point without IPv4 IDs could not narrow.
func unclear(c wiretruth.CountCheck) string {
	if c.Below == 0 && c.Above == 0 {
		return ""
	}
	return fmt.Sprintf(" (-%d/+%d unclear without IPv4 IDs)", c.Below, c.Above)
}
