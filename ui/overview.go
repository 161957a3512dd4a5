package ui

import (
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/probes"
)

func (m Model) overview(h int) []string {
	s := m.frame.Snapshot
	w := m.width
	var out []string
	switch {
	case s != nil && len(s.Ports) > 0:
		out = m.portsPanel(s)
	case s != nil:
		// A sample without ports: its sources timed out or failed (the
		// probes line says which), or the selection matches nothing.
		out = append(out, "  no RDMA port in this sample: see the probes line above")
	default:
		out = append(out, "  no host counters in this run (capture only)")
	}
	out = append(out, m.wireLines()...)
	if s != nil {
		out = m.withTopErrors(out, s, h)
	}
	if len(out) > h {
		out = out[:h]
	}
	for i := range out {
		if m.opts.NoColor {
			out[i] = clip(out[i], w)
		}
	}
	return out
}

// portsPanel is the ports' rates with their sparklines, and the selected
// port's PFC and congestion panels.
func (m Model) portsPanel(s *probes.Snapshot) []string {
	w := m.width
	sparkW := max(8, min(historyLen, w-74))
	out := []string{m.paint(m.styles.ColumnHeader, fit("  PORT         NETDEV   STATE    RX Gb/s  TX Gb/s   RX pps   TX pps  "+fit("RX+TX (last "+strconv.Itoa(sparkW)+")", sparkW), w))}
	for i := range s.Ports {
		p := &s.Ports[i]
		cur := "  "
		if i == m.port {
			cur = "▸ "
		}
		line := cur + fit(termtext.Sanitize(portKey(p)), 12) + " " + fit(termtext.Sanitize(p.Netdev), 8) + " " + fit(p.State, 7) + " " +
			fitRight(gbps(p.Traffic.RxBytesPerSec), 8) + " " + fitRight(gbps(p.Traffic.TxBytesPerSec), 8) + " " +
			fitRight(optF(p.Traffic.RxPacketsPerSec), 8) + " " + fitRight(optF(p.Traffic.TxPacketsPerSec), 8) + "  "
		line = fit(line, 73)
		out = append(out, line+m.paint(m.styles.Spark, sparkline(m.history[portKey(p)], min(sparkW, w-73))))
	}
	if l := m.balanceLine(s.RDMABalance); l != "" {
		out = append(out, l)
	}
	if p := m.selectedPort(); p != nil {
		out = append(out, "")
		out = append(out, m.pfcPanel(p)...)
		out = append(out, "")
		out = append(out, m.congestionPanel(s)...)
	}
	return out
}

// wireLines are the capture's totals since the start and over the last
// tick, when the run captures.
func (m Model) wireLines() []string {
	wire := m.frame.Wire
	if wire == nil {
		return nil
	}
	w := m.width
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	t := &wire.Totals
	out := []string{"", clip("  WIRE  flows "+u(t.Flows)+"  PSN gaps "+u(t.PSNGaps)+
		"  retx "+u(t.RetransmittedPackets)+"  NAKs "+u(t.NAKs.Total())+
		"  CNPs "+u(t.CNPs)+"  ECN CE "+u(t.ECNCE)+
		"  duration "+strconv.FormatFloat(wire.DurationSec, 'f', 2, 64)+"s", w)}
	if iv := m.frame.Interval; iv != nil && iv.DurationSec > 0 {
		// The last tick: what is happening now, not since the start.
		t := &iv.Totals
		line := "  NOW   flows " + u(t.Flows) + "  " + trim(float64(iv.RoCEPackets)/iv.DurationSec) + " pkts/s  " +
			strconv.FormatFloat(float64(iv.Bytes)*8/iv.DurationSec/1e9, 'f', 2, 64) + " Gb/s  gaps +" + u(t.PSNGaps) +
			"  retx +" + u(t.RetransmittedPackets) + "  NAKs +" + u(t.NAKs.Total()) + "  CNPs +" + u(t.CNPs) +
			"  CE +" + u(t.ECNCE)
		if iv.KernelDrops != nil && *iv.KernelDrops > 0 {
			line += "  capture drops +" + u(*iv.KernelDrops)
		}
		st := m.styles.Header
		if t.PSNGaps+t.NAKs.Total()+t.ICRCErrors > 0 {
			st = m.styles.Warning
		}
		out = append(out, m.paint(st, clip(line, w)))
	}
	return out
}

// withTopErrors appends the top error rates to out, fitting h lines.
func (m Model) withTopErrors(out []string, s *probes.Snapshot, h int) []string {
	errs := topErrors(s, 5)
	if len(errs) == 0 {
		return out
	}
	// On a short screen (80×24) the panels above fill the height: the
	// blank lines between them give way first, then the last lines
	// above, so that the error rates keep their heading and at least two
	// rows (a heading over nothing told nothing).
	keep := min(len(errs), 2)
	if over := len(out) + 2 + len(errs) - h; over > 0 {
		out = dropBlankLines(out, over)
	}
	sep := []string{""}
	if len(out)+1+keep > h {
		sep = nil
	}
	if room := h - len(sep) - 1 - keep; len(out) > room && room >= 0 {
		out = out[:room]
	}
	out = append(out, sep...)
	out = append(out, m.paint(m.styles.ColumnHeader, fit("  TOP ERROR RATES", m.width)))
	return append(out, errs...)
}

func (m Model) pfcPanel(p *probes.Port) []string {
	out := []string{m.paint(m.styles.ColumnHeader, fit("  PFC "+termtext.Sanitize(portKey(p))+"  PRIO  LOSSLESS  RX pause/s  TX pause/s  RX paused  TX paused", m.width))}
	if len(p.PFC) == 0 {
		return append(out, "  no per-priority pause counters on this port")
	}
	for _, q := range p.PFC {
		en := "?"
		if q.Enabled != nil {
			en = "no"
			if *q.Enabled {
				en = "yes *"
			}
		}
		line := "  " + fit("", len(termtext.Sanitize(portKey(p)))+4) + fitRight(strconv.Itoa(q.Priority), 6) + "  " + fit(en, 8) + "  " +
			fitRight(optF(q.RxPausePerSec), 10) + "  " + fitRight(optF(q.TxPausePerSec), 10) + "  " +
			fitRight(pct(q.RxPausedPercent), 9) + "  " + fitRight(pct(q.TxPausedPercent), 9)
		busy := (q.RxPausePerSec != nil && *q.RxPausePerSec > 0) || (q.TxPausePerSec != nil && *q.TxPausePerSec > 0)
		if busy {
			line = m.paint(m.styles.Warning, line)
		}
		out = append(out, clip(line, m.width))
	}
	c := p.Congestion
	if c.PauseStormWarning != nil || c.PauseStormError != nil {
		line := "  pause storm events: warning " + optU(c.PauseStormWarning) + "  error " + optU(c.PauseStormError)
		st := m.styles.Dim
		if (c.PauseStormWarning != nil && *c.PauseStormWarning > 0) || (c.PauseStormError != nil && *c.PauseStormError > 0) {
			st = m.styles.Critical
		}
		out = append(out, m.paint(st, clip(line, m.width)))
	}
	return out
}

func (m Model) congestionPanel(s *probes.Snapshot) []string {
	out := []string{m.paint(m.styles.ColumnHeader, fit("  CONGESTION   PORT         CNP sent/s  handled/s  ignored/s  ECN-marked/s", m.width))}
	for i := range s.Ports {
		p := &s.Ports[i]
		c := p.Congestion
		out = append(out, clip("               "+fit(termtext.Sanitize(portKey(p)), 12)+" "+fitRight(optF(c.CNPSentPerSec), 10)+" "+
			fitRight(optF(c.CNPHandledPerSec), 10)+" "+fitRight(optF(c.CNPIgnoredPerSec), 10)+" "+
			fitRight(optF(c.ECNMarkedPerSec), 13), m.width))
	}
	return out
}

var errorWords = []string{"err", "discard", "drop", "out_of_sequence", "retry", "timeout", "nak", "oos", "out_of_buffer", "dup", "local_ack", "implied", "resp_", "req_"}

func isErrorCounter(name string) bool {
	for _, w := range errorWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

func topErrors(s *probes.Snapshot, n int) []string {
	type e struct {
		name string
		rate float64
	}
	var es []e
	for i := range s.Ports {
		p := &s.Ports[i]
		for j := range p.Counters {
			c := &p.Counters[j]
			if c.Rate != nil && *c.Rate > 0 && isErrorCounter(c.Name) {
				es = append(es, e{portKey(p) + " " + c.Name, *c.Rate})
			}
		}
	}
	sort.SliceStable(es, func(a, b int) bool {
		if es[a].rate != es[b].rate {
			return es[a].rate > es[b].rate
		}
		return es[a].name < es[b].name
	})
	var out []string
	for i := 0; i < len(es) && i < n; i++ {
		out = append(out, "  "+fit(termtext.Sanitize(es[i].name), 50)+fitRight(num(es[i].rate), 9)+"/s")
	}
	return out
}

// dropBlankLines removes up to n empty lines of out, the last first.
func dropBlankLines(out []string, n int) []string {
	for i := len(out) - 1; i >= 0 && n > 0; i-- {
		if out[i] == "" {
			out = append(out[:i], out[i+1:]...)
			n--
		}
	}
	return out
}

// balanceLine says how the RDMA bytes spread over the ACTIVE ports alike,
// when there are two or more: the busiest port's share of them and the
// idle ports, as many as fit, never a name cut. It is a warning while
// rdma-traffic-on-one-nic is pending or firing.
func (m Model) balanceLine(b *probes.RDMABalance) string {
	if b == nil || b.Ports < 2 {
		return ""
	}
	total := b.BytesPerSec
	line := "  RDMA, " + strconv.Itoa(b.Ports) + " ports alike: "
	switch {
	case total == 0:
		line += "nothing moves"
	default:
		line += termtext.Sanitize(b.Busiest) + " carries " + trim(100*b.Share) + " % of " + trim(total*8/1e9) + " Gb/s"
	}
	if n := len(b.Idle); n > 0 {
		line += " · idle " + strconv.Itoa(n) + ":"
		for i, name := range b.Idle {
			name = termtext.Sanitize(name)
			more := ""
			if rest := n - i - 1; rest > 0 {
				more = " +" + strconv.Itoa(rest)
			}
			if ansi.StringWidth(line+" "+name+more) > m.width {
				line += " +" + strconv.Itoa(n-i)
				break
			}
			line += " " + name
		}
	}
	st := m.styles.Header
	if m.ruleHolds("rdma-traffic-on-one-nic") {
		st = m.styles.Warning
	}
	return m.paint(st, clip(line, m.width))
}

// ruleHolds: the frame's rule is pending or firing.
func (m Model) ruleHolds(rule string) bool {
	if m.frame == nil {
		return false
	}
	for _, r := range m.frame.Rules {
		if r.Rule == rule {
			return r.State == "pending" || r.State == "firing"
		}
	}
	return false
}
