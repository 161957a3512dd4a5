package ui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/qos"
	"github.com/rdmatop/rdmatop/rules"
)

// The text of the detail panes: a finding and the host configuration.

// findingDetail is a finding's detail pane: its facts, evidence and
// cause as prose, the commands that confirm it as commands (never
// wrapped, see layoutPane), the fix and the docs as prose.
func findingDetail(f rules.Finding) []paneLine {
	var l []paneLine
	l = append(l, prose("severity  "+sevWord(string(f.Severity))+"    rule  "+termtext.Sanitize(f.Rule))...)
	if len(f.Objects) > 0 {
		l = append(l, prose("objects   "+objects(f.Objects))...)
	}
	if !f.FirstSeen.IsZero() {
		l = append(l, prose("since     "+f.FirstSeen.UTC().Format("2006-01-02 15:04:05")+"  last "+f.LastSeen.UTC().Format("15:04:05"))...)
		if f.Occurrences > 1 {
			l = append(l, prose(fmt.Sprintf("          %d separate times, the latest from %s", f.Occurrences, f.LatestSince.UTC().Format("15:04:05")))...)
		}
	}
	if c := f.ExplainedBy; c != nil && c.Via != "" {
		l = append(l, prose("cause     "+termtext.Sanitize(c.Rule)+" ("+termtext.Sanitize(c.Via)+")")...)
	}
	l = append(l, prose("", "EVIDENCE")...)
	l = append(l, prose(indent(f.Evidence)...)...)
	l = append(l, prose("", "LIKELY CAUSE")...)
	l = append(l, prose(indent(f.Cause)...)...)
	l = append(l, prose("", "HOW TO CONFIRM")...)
	for _, c := range f.Confirm {
		for _, ln := range indent("$ " + c) {
			l = append(l, paneLine{text: ln, cmd: true})
		}
	}
	l = append(l, prose("", "FIX")...)
	for _, c := range f.Fix {
		l = append(l, prose(indent("• "+c)...)...)
	}
	if len(f.Docs) > 0 {
		l = append(l, prose("", "DOCS")...)
		for _, c := range f.Docs {
			l = append(l, prose(indent(c)...)...)
		}
	}
	return l
}

// indent sanitises s and indents each of its lines by two spaces.
func indent(s string) []string {
	var out []string
	for _, ln := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, "  "+termtext.Sanitize(ln))
	}
	return out
}

func objects(o map[string]string) string {
	ks := make([]string, 0, len(o))
	for k := range o {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(termtext.Sanitize(k) + "=" + termtext.Sanitize(o[k]))
	}
	return b.String()
}

func configLines(f *monitor.Frame) []string {
	s := f.Snapshot
	if s == nil {
		return append([]string{"no host configuration in this run (a capture alone has none)", ""}, qosLines(f.QoS)...)
	}
	var l []string
	// Verdicts: what the configuration rules say about this host.
	l = append(l, "VERDICTS")
	// One line a rule, the first finding's evidence (findings come worst
	// first within a rule) and how many more objects it is on: the same
	// verdict on six flows is one verdict.
	n := 0
	more := map[string]int{}
	var order []*rules.Finding
	for i := range f.Findings {
		fd := &f.Findings[i]
		if fd.Resolved || !configRules[fd.Rule] {
			continue
		}
		n++
		if _, seen := more[fd.Rule]; !seen {
			order = append(order, fd)
		}
		more[fd.Rule]++
	}
	for _, fd := range order {
		count := "" // before the title, which a narrow screen cuts
		if k := more[fd.Rule]; k > 1 {
			count = strconv.Itoa(k) + "× "
		}
		l = append(l, "  "+strings.ToUpper(string(fd.Severity))+" "+count+termtext.Sanitize(fd.Title)+" ["+fd.Rule+"] "+termtext.Sanitize(fd.Evidence))
	}
	if n == 0 {
		l = append(l, "  no configuration rule fires (MTU, PFC, ECN/DCQCN, GIDs, memory)")
	}
	l = append(l, "", "PORTS")
	for i := range s.Ports {
		p := &s.Ports[i]
		l = append(l, "  "+termtext.Sanitize(p.Device)+"/"+strconv.Itoa(p.Port)+"  netdev "+orDash(termtext.Sanitize(p.Netdev))+
			"  "+orDash(p.State)+"  "+orDash(p.LinkLayer)+"  rate "+orDash(termtext.Sanitize(p.Rate))+
			"  MTU "+optI(p.MTU)+"  RoCE MTU "+optI(p.RoCEMTU))
	}
	l = append(l, "", "GIDS")
	if len(s.Config.GIDs) == 0 {
		l = append(l, "  none")
	}
	for _, g := range s.Config.GIDs {
		l = append(l, "  "+fit(termtext.Sanitize(g.Device)+"/"+strconv.Itoa(g.Port)+" ["+strconv.Itoa(g.Index)+"]", 16)+
			fit(termtext.Sanitize(g.GID), 40)+" "+fit(termtext.Sanitize(g.Type), 11)+" "+termtext.Sanitize(g.Netdev))
	}
	l = append(l, "")
	l = append(l, qosLines(f.QoS)...)
	l = append(l, "", "ECN / DCQCN")
	if len(s.Config.ECN) == 0 {
		l = append(l, "  unknown (no ecn/ or cc_params on this host)")
	}
	for _, e := range s.Config.ECN {
		l = append(l, "  "+orDash(termtext.Sanitize(e.Netdev+e.Device))+"  NP(CNP gen) "+prioBools(e.NPEnabled)+
			"  RP(rate cut) "+prioBools(e.RPEnabled)+"  ["+termtext.Sanitize(e.Source)+"]")
		ks := make([]string, 0, len(e.Params))
		for k := range e.Params {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			l = append(l, "    "+termtext.Sanitize(k)+" = "+termtext.Sanitize(e.Params[k]))
		}
	}
	l = append(l, "", "MEMORY")
	if mc := s.Config.Memory; mc != nil {
		l = append(l, "  hugepages "+optU(mc.HugePagesFree)+" free of "+optU(mc.HugePagesTotal)+
			" ("+optU(mc.HugePageSizeKB)+" kB)  MemAvailable "+optU(mc.MemAvailableKB)+" kB  free ≥2MiB blocks "+
			optU(mc.HighOrderFreeKB)+" kB")
	} else {
		l = append(l, "  unknown")
	}
	return l
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func prioBools(m map[int]bool) string {
	if len(m) == 0 {
		return "-"
	}
	var on []string
	for p := 0; p < 8; p++ {
		if m[p] {
			on = append(on, strconv.Itoa(p))
		}
	}
	if len(on) == 0 {
		return "off"
	}
	return "on prio " + strings.Join(on, ",")
}

// configRules are the rules whose verdicts belong on the Config view.
var configRules = map[string]bool{
	"roce-mtu-too-small": true, "mtu-mismatch": true, "pfc-not-enabled-roce-prio": true,
	"ecn-marked-no-cnp": true, "cnp-ignored": true, "dcqcn-misconfigured": true, "ecn-not-capable": true,
	"memory-registration-risk": true, "roce-v1-gid-routed": true, "tcp-on-roce-priority": true,
	"ib-port-not-active": true, "running-unprivileged": true,
	"qos-direction-mismatch": true, "qos-direction-unprotected": true, "cnp-data-same-class": true,
	"cnp-class-not-strict": true, "ecn-disabled-roce-prio": true,
}

// qosLines is the Frame's QoS table: the host's settings per priority
// beside the classes the captured traffic rides.
func qosLines(t qos.Table) []string {
	if t.Empty() {
		return []string{"QOS", "  unknown (no DCB or ECN settings, no captured traffic)"}
	}
	var b strings.Builder
	t.Write(&b)
	return append([]string{"QOS (settings per priority; the classes the captured traffic rides)"}, strings.Split(strings.TrimRight(b.String(), "\n"), "\n")...)
}
