package qos

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/internal/termtext"
)

// Write prints the table for people: each netdev's settings per
// priority, then the classes on the wire with what this host gives
// them. "?" is a setting the host did not report.
func (t Table) Write(w io.Writer) {
	if len(t.Netdevs) == 0 {
		fmt.Fprintln(w, "  host settings: none read (no DCB or ECN settings): priorities unknown")
	}
	for i := range t.Netdevs {
		n := &t.Netdevs[i]
		fmt.Fprintf(w, "  %s: trust %s; PFC on %s%s\n", termtext.Sanitize(n.Name), orQ(n.Trust), prios(n.PFC), cnpClass(n))
		fmt.Fprintln(w, "    prio  pfc  tc  tsa        dcqcn np/rp  dscp")
		for p := range 8 {
			tc, tsa := "?", "?"
			if p < len(n.PrioToTC) {
				tc = strconv.Itoa(n.PrioToTC[p])
			}
			if s, ok := n.TSA(p); ok {
				tsa = s
			}
			fmt.Fprintf(w, "    %4d  %-3s  %2s  %-9s  %-11s  %s\n", p, onOff(n.PFCOn(p)), tc, termtext.Sanitize(tsa),
				onOff(n.NPOn(p))+"/"+onOff(n.RPOn(p)), dscpsOf(n, p))
		}
	}
	if len(t.Classes) == 0 {
		return
	}
	// What the host gives a class first: a narrow screen cuts the right.
	fmt.Fprintln(w, "  on the wire                            prio  pfc  np/rp    packets  flows  ECN")
	for _, c := range t.Classes {
		cls := "DSCP " + strconv.Itoa(int(c.DSCP))
		if c.PCP != nil {
			cls += " PCP " + strconv.Itoa(int(*c.PCP))
		}
		prio := "?"
		if c.Priority != nil {
			prio = strconv.Itoa(*c.Priority)
		}
		role := c.Role
		if c.Dir != "" {
			role = c.Dir + " " + role
		}
		fmt.Fprintf(w, "    %-23s %-13s %-4s  %-3s  %-7s %8d  %5d  %s\n", role, cls, prio, onOffPtr(c.PFC),
			onOffPtr(c.NP)+"/"+onOffPtr(c.RP), c.Packets, c.Flows, ecnMix(c.ECN))
	}
}

func cnpClass(n *Netdev) string {
	var parts []string
	if n.CNPDSCP >= 0 {
		parts = append(parts, "DSCP "+strconv.Itoa(n.CNPDSCP))
	}
	if n.CNPPCP >= 0 {
		parts = append(parts, "PCP "+strconv.Itoa(n.CNPPCP))
	}
	if len(parts) == 0 {
		return ""
	}
	s := "; CNPs sent on " + strings.Join(parts, ", ")
	if p, ok := n.CNPPriority(); ok {
		s += " (priority " + strconv.Itoa(p) + ")"
	}
	return s
}

func orQ(s string) string {
	if s == "" {
		return "?"
	}
	return termtext.Sanitize(s)
}

func prios(ps []int) string {
	switch {
	case ps == nil:
		return "?"
	case len(ps) == 0:
		return "none"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}

func onOff(on, known bool) string {
	switch {
	case !known:
		return "?"
	case on:
		return "on"
	}
	return "off"
}

func onOffPtr(b *bool) string {
	if b == nil {
		return "?"
	}
	return onOff(*b, true)
}

// dscpsOf lists the DSCPs the netdev maps to priority p, as ranges.
func dscpsOf(n *Netdev, p int) string {
	if n.DSCPToPrio == nil {
		return "?"
	}
	var ds []int
	for d, q := range n.DSCPToPrio {
		if q == p {
			ds = append(ds, d)
		}
	}
	slices.Sort(ds)
	var out []string
	for i := 0; i < len(ds); {
		j := i
		for j+1 < len(ds) && ds[j+1] == ds[j]+1 {
			j++
		}
		if j > i {
			out = append(out, fmt.Sprintf("%d-%d", ds[i], ds[j]))
		} else {
			out = append(out, strconv.Itoa(ds[i]))
		}
		i = j + 1
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ",")
}

// ecnMix is the codepoints' shares, the largest first ("-" for CNPs,
// whose codepoints their flow counts with its own).
func ecnMix(e *capture.ECNCounts) string {
	if e == nil {
		return "-"
	}
	total := e.NotECT + e.ECT0 + e.ECT1 + e.CE
	if total == 0 {
		return "-"
	}
	type share struct {
		name string
		n    uint64
	}
	ss := []share{{"Not-ECT", e.NotECT}, {"ECT(0)", e.ECT0}, {"ECT(1)", e.ECT1}, {"CE", e.CE}}
	slices.SortStableFunc(ss, func(a, b share) int { return cmp.Compare(b.n, a.n) })
	var out []string
	for _, s := range ss[:2] {
		if s.n > 0 {
			out = append(out, fmt.Sprintf("%s %d%%", s.name, (s.n*100+total/2)/total))
		}
	}
	return strings.Join(out, ", ")
}
