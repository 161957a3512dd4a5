package ui

import (
	"sort"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
)

// View renders the screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "rdmatop"
	return v
}

// Render is the screen as a string (View's content).
func (m Model) Render() string {
	w, h := m.width, m.height
	if w < MinWidth || h < MinHeight {
		return clip("terminal too small: need at least "+strconv.Itoa(MinWidth)+"×"+strconv.Itoa(MinHeight)+
			" (now "+strconv.Itoa(w)+"×"+strconv.Itoa(h)+")", w) + "\n" + clip("resize, or press q to quit", w)
	}
	lines := make([]string, 0, h)
	lines = append(lines, m.header()...)
	if m.frame != nil && m.noDevices() {
		lines = append(lines, m.noDevicesScreen()...)
		return m.finish(lines, h)
	}
	lines = append(lines, m.strip()...)
	lines = append(lines, m.tabs())
	body := m.bodyHeight()
	var b []string
	switch {
	case m.frame == nil:
		b = []string{"", "  waiting for the first frame…"}
	case m.showHelp:
		b = m.helpScreen(body)
	case m.pktFlow != 0:
		b = m.packetsScreen(body)
	case m.detail != nil:
		b = m.detailScreen(body)
	default:
		b = m.body(body)
	}
	if len(b) > body {
		b = b[:body]
	}
	for len(b) < body {
		b = append(b, "")
	}
	lines = append(lines, b...)
	lines = append(lines, m.footer())
	return m.finish(lines, h)
}

func (m Model) finish(lines []string, h int) string {
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

func (m Model) paint(st lipgloss.Style, s string) string {
	if m.opts.NoColor || s == "" {
		return s
	}
	return st.Render(s)
}

func (m Model) stripHeight() int {
	n := len(m.active)
	switch {
	case n == 0:
		return 1
	case m.height >= 40:
		return min(n, 5)
	case m.height >= 24:
		return min(n, 3)
	}
	return 1
}

func (m Model) bodyHeight() int { return max(1, m.height-3-m.stripHeight()-1-1) }

func (m Model) tableHeight() int {
	h := m.bodyHeight() - 1
	if m.filtering || m.filterOf() != "" {
		h--
	}
	return max(1, h)
}

func (m Model) noDevices() bool {
	s := m.frame.Snapshot
	return s != nil && len(s.Ports) == 0 && m.frame.Wire == nil
}

func (m Model) header() []string {
	w := m.width
	f := m.frame
	var l1 strings.Builder
	l1.WriteString("rdmatop")
	if f == nil {
		status := ""
		if l := m.loading; l != nil {
			status = "reading " + Sanitize(l.Label)
			if l.Total > 0 {
				status += " " + progressBar(l.Done, l.Total, 30) + " " + strconv.FormatInt(l.Done*100/l.Total, 10) + "%"
			}
		}
		return []string{m.paint(m.styles.Title, "rdmatop") + "  " + string(m.opts.Mode), status, ""}
	}
	s := f.Snapshot
	if s != nil {
		l1.WriteString("  host " + orDash(Sanitize(s.Host.Hostname)) + "  kernel " + orDash(Sanitize(s.Host.Kernel)))
	}
	switch f.Mode {
	case monitor.ModeReplay:
		l1.WriteString("  REPLAY " + timeline(f.Seq, f.Total, 12) + " " + strconv.Itoa(f.Seq+1) + "/" + strconv.Itoa(f.Total))
		if !f.Time.IsZero() {
			l1.WriteString(" @" + f.Time.UTC().Format("15:04:05"))
		}
		if m.speed > 0 {
			l1.WriteString(" ×" + strconv.FormatFloat(m.speed, 'g', 3, 64))
		}
		if f.Source != "" {
			l1.WriteString(" " + Sanitize(f.Source))
		}
	case monitor.ModeDemo:
		l1.WriteString("  DEMO " + timeline(f.Seq, f.Total, 12) + " " + strconv.Itoa(f.Seq+1) + "/" + strconv.Itoa(f.Total))
		if f.Phase != "" {
			l1.WriteString(" phase: " + Sanitize(f.Phase))
		}
	default:
		l1.WriteString("  LIVE")
		if m.interval > 0 {
			l1.WriteString(" every " + m.interval.String())
		}
	}
	if m.paused {
		l1.WriteString("  [PAUSED]")
	}
	if m.done {
		l1.WriteString("  [END]")
	}
	// Line 2: devices, link.
	var l2 strings.Builder
	if s != nil {
		l2.WriteString("dev")
		seen := map[string]bool{}
		for i := range s.Ports {
			p := &s.Ports[i]
			k := portKey(p)
			if seen[k] {
				continue
			}
			seen[k] = true
			l2.WriteString(" " + Sanitize(k))
			if p.Netdev != "" {
				l2.WriteString("(" + Sanitize(p.Netdev) + ")")
			}
			if len(seen) == 4 && len(s.Ports) > 4 {
				l2.WriteString(" +" + strconv.Itoa(len(s.Ports)-4))
				break
			}
		}
		if p := m.selectedPort(); p != nil {
			l2.WriteString("  │ " + Sanitize(portKey(p)) + " " + orDash(p.LinkLayer) + " " + orDash(p.State))
			if p.SpeedMbps != nil {
				l2.WriteString(" " + strconv.Itoa(*p.SpeedMbps/1000) + " Gb/s")
			} else if p.Rate != "" {
				l2.WriteString(" " + Sanitize(p.Rate))
			}
			l2.WriteString(" MTU " + optI(p.MTU) + "/" + optI(p.RoCEMTU))
		}
	}
	if wire := f.Wire; wire != nil {
		l2.WriteString("  │ wire " + strconv.FormatUint(wire.Packets, 10) + " pkts " + strconv.FormatUint(wire.RoCEPackets, 10) + " RoCE")
		if wire.KernelDrops != nil {
			l2.WriteString(" drops " + optU(wire.KernelDrops))
		}
	} else if f.Mode == monitor.ModeLive {
		l2.WriteString("  │ no capture (capture blind)")
	}
	// Line 3: probe health.
	var bad []string
	if s != nil {
		for _, st := range s.Status {
			if st.State != probes.StateOK {
				bad = append(bad, Sanitize(st.Source)+": "+string(st.State))
			}
		}
	}
	l3 := "probes: all ok"
	if s == nil {
		l3 = "probes: no host data (capture only)"
	} else if len(bad) > 0 {
		l3 = "probes: " + strings.Join(bad, "; ")
	}
	return []string{
		m.paint(m.styles.Title, clip(l1.String(), w)),
		m.paint(m.styles.Header, clip(l2.String(), w)),
		m.paint(m.styles.Dim, clip(l3, w)),
	}
}

func (m Model) sevStyle(sev string) lipgloss.Style {
	switch sev {
	case "critical":
		return m.styles.Critical
	case "warning":
		return m.styles.Warning
	case "info":
		return m.styles.Info
	}
	return m.styles.Header
}

func (m Model) strip() []string {
	n := m.stripHeight()
	if len(m.active) == 0 {
		ok, ce := 0, 0
		if m.frame != nil {
			for _, r := range m.frame.Rules {
				switch r.State {
				case "ok":
					ok++
				case "cannot_evaluate":
					ce++
				}
			}
		}
		return []string{m.paint(m.styles.OK, clip("✓ no active findings ("+strconv.Itoa(ok)+" rules ok, "+
			strconv.Itoa(ce)+" cannot evaluate here)", m.width))}
	}
	start := 0
	if m.findingSel >= n {
		start = m.findingSel - n + 1
	}
	out := make([]string, 0, n)
	for i := start; i < start+n && i < len(m.active); i++ {
		f := &m.active[i]
		cur := "  "
		if m.focusStrip && i == m.findingSel {
			cur = "▶ "
		}
		more := ""
		if i == start+n-1 && len(m.active) > start+n {
			more = " (+" + strconv.Itoa(len(m.active)-start-n) + " more)"
		}
		line := cur + sevWord(string(f.Severity)) + " " + Sanitize(f.Title) + " — " + objects(f.Objects) + more
		line = fit(line, m.width)
		if m.focusStrip && i == m.findingSel && !m.opts.NoColor {
			out = append(out, m.styles.Selected.Inherit(m.sevStyle(string(f.Severity))).Render(line))
		} else {
			out = append(out, m.paint(m.sevStyle(string(f.Severity)), line))
		}
	}
	return out
}

func (m Model) tabs() string {
	var b strings.Builder
	for i, n := range viewNames {
		if i == ViewEvents && m.evSev > 0 {
			n += " (" + evSevNames[m.evSev] + ")"
		}
		t := " " + strconv.Itoa(i+1) + " " + n + " "
		if i == m.view {
			if m.opts.NoColor {
				t = "[" + strconv.Itoa(i+1) + " " + n + "]"
			}
			b.WriteString(m.paint(m.styles.TabActive, t))
		} else {
			b.WriteString(m.paint(m.styles.TabInactive, t))
		}
	}
	return b.String()
}

func (m Model) footer() string {
	if m.filtering {
		return clip(m.input.View(), m.width)
	}
	return clip(m.help.ShortHelpView(m.keys.ShortHelp()), m.width)
}

func (m Model) body(h int) []string {
	switch m.view {
	case ViewOverview:
		return m.overview(h)
	case ViewConfig:
		off := min(m.cfgOff, max(0, len(m.configOf)-1))
		out := make([]string, 0, h)
		for _, l := range m.configOf[off:] {
			if len(out) == h {
				break
			}
			out = append(out, clip(l, m.width))
		}
		return out
	}
	t := m.tables[m.view]
	var out []string
	if m.view == ViewCounters {
		if p := m.selectedPort(); p != nil {
			out = append(out, clip("port "+Sanitize(portKey(p))+" ("+orDash(Sanitize(p.Netdev))+")  "+
				strconv.Itoa(len(t.View))+"/"+strconv.Itoa(len(t.Rows))+" counters   [ ] change port", m.width))
			h--
		}
	}
	return append(out, m.renderTable(t, h)...)
}

func (m Model) renderTable(t *table, h int) []string {
	out := make([]string, 0, h)
	out = append(out, m.paint(m.styles.ColumnHeader, t.headerLine(m.width)))
	if t.Filter != "" && !m.filtering {
		out = append(out, clip("filter: "+t.Filter+"  ("+strconv.Itoa(len(t.View))+" of "+strconv.Itoa(len(t.Rows))+", esc clears)", m.width))
	}
	rows := h - len(out)
	if len(t.View) == 0 {
		msg := "  nothing to show"
		switch {
		case t.Filter != "":
			msg = "  no row matches the filter"
		case m.view == ViewEvents && m.evSev > 0:
			msg = "  no " + evSevNames[m.evSev] + " event (v cycles the severity filter)"
		case m.view == ViewFlows:
			msg = "  no capture in this run: flows need a capture (-i NETDEV live, or rdmatop replay FILE)"
		case m.view == ViewQPs:
			msg = "  no QPs (or the RDMA netlink QP dump is unavailable: see probes above)"
		}
		return append(out, msg)
	}
	off := t.Offset
	if t.Cursor >= off+rows {
		off = t.Cursor - rows + 1
	}
	if off < 0 {
		off = 0
	}
	for i := off; i < len(t.View) && len(out) < h; i++ {
		r := &t.Rows[t.View[i]]
		cur := i == t.Cursor && !m.focusStrip
		line := t.line(r, cur, m.width)
		switch {
		case m.opts.NoColor:
		case cur:
			line = m.styles.Selected.Render(line)
		case r.Class != "":
			line = m.classStyle(r.Class).Render(line)
		}
		out = append(out, line)
	}
	return out
}

func (m Model) classStyle(c string) lipgloss.Style {
	if strings.HasPrefix(c, "qp:") {
		switch c[3:] {
		case "RTS":
			return m.styles.OK
		case "ERR":
			return m.styles.Critical
		case "SQE", "SQD":
			return m.styles.Warning
		}
		return m.styles.Dim
	}
	return m.sevStyle(c)
}

func (m Model) overview(h int) []string {
	s := m.frame.Snapshot
	w := m.width
	var out []string
	if s != nil && len(s.Ports) > 0 {
		sparkW := max(8, min(historyLen, w-74))
		out = append(out, m.paint(m.styles.ColumnHeader, fit("  PORT         NETDEV   STATE    RX Gb/s  TX Gb/s   RX pps   TX pps  "+fit("RX+TX (last "+strconv.Itoa(sparkW)+")", sparkW), w)))
		for i := range s.Ports {
			p := &s.Ports[i]
			cur := "  "
			if i == m.port {
				cur = "▸ "
			}
			line := cur + fit(Sanitize(portKey(p)), 12) + " " + fit(Sanitize(p.Netdev), 8) + " " + fit(p.State, 7) + " " +
				fitRight(gbps(p.Traffic.RxBytesPerSec), 8) + " " + fitRight(gbps(p.Traffic.TxBytesPerSec), 8) + " " +
				fitRight(optF(p.Traffic.RxPacketsPerSec), 8) + " " + fitRight(optF(p.Traffic.TxPacketsPerSec), 8) + "  "
			line = fit(line, 73)
			out = append(out, line+m.paint(m.styles.Spark, sparkline(m.history[portKey(p)], min(sparkW, w-73))))
		}
		if p := m.selectedPort(); p != nil {
			out = append(out, "")
			out = append(out, m.pfcPanel(p)...)
			out = append(out, "")
			out = append(out, m.congestionPanel(s)...)
		}
	} else {
		out = append(out, "  no host counters in this run (capture only)")
	}
	if wire := m.frame.Wire; wire != nil {
		t := &wire.Totals
		out = append(out, "", clip("  WIRE  flows "+strconv.FormatUint(t.Flows, 10)+"  PSN gaps "+strconv.FormatUint(t.PSNGaps, 10)+
			"  retx "+strconv.FormatUint(t.RetransmittedPackets, 10)+"  NAKs "+strconv.FormatUint(t.NAKs.Total(), 10)+
			"  CNPs "+strconv.FormatUint(t.CNPs, 10)+"  ECN CE "+strconv.FormatUint(t.ECNCE, 10)+
			"  duration "+strconv.FormatFloat(wire.DurationSec, 'f', 2, 64)+"s", w))
	}
	if s != nil {
		if errs := topErrors(s, 5); len(errs) > 0 {
			out = append(out, "", m.paint(m.styles.ColumnHeader, fit("  TOP ERROR RATES", w)))
			out = append(out, errs...)
		}
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

func (m Model) pfcPanel(p *probes.Port) []string {
	out := []string{m.paint(m.styles.ColumnHeader, fit("  PFC "+Sanitize(portKey(p))+"  PRIO  LOSSLESS  RX pause/s  TX pause/s  RX paused  TX paused", m.width))}
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
		line := "  " + fit("", len(Sanitize(portKey(p)))+4) + fitRight(strconv.Itoa(q.Priority), 6) + "  " + fit(en, 8) + "  " +
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
		out = append(out, clip("               "+fit(Sanitize(portKey(p)), 12)+" "+fitRight(optF(c.CNPSentPerSec), 10)+" "+
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
		out = append(out, "  "+fit(Sanitize(es[i].name), 50)+fitRight(num(es[i].rate), 9)+"/s")
	}
	return out
}

func (m Model) detailScreen(h int) []string {
	out := []string{m.paint(m.styles.Title, clip(m.detailTitle+"   (esc back, ↑/↓ scroll)", m.width))}
	lines := wrapAll(m.detail, m.width)
	off := min(m.detailOff, max(0, len(lines)-1))
	for _, l := range lines[off:] {
		if len(out) == h {
			break
		}
		out = append(out, l)
	}
	return out
}

func (m Model) helpScreen(h int) []string {
	out := []string{m.paint(m.styles.Title, "Keys   (esc or ? to close)")}
	for _, g := range m.keys.FullHelp() {
		for _, b := range g {
			if !b.Enabled() {
				continue
			}
			out = append(out, clip("  "+fit(b.Help().Key, 10)+b.Help().Desc, m.width))
		}
	}
	if len(out) > h && m.width >= 80 {
		// Two columns when it does not fit.
		half := (len(out) - 1 + 1) / 2
		cols := make([]string, 0, half+1)
		cols = append(cols, out[0])
		for i := 0; i < half; i++ {
			l := fit(out[1+i], 40)
			if 1+half+i < len(out) {
				l += out[1+half+i]
			}
			cols = append(cols, clip(l, m.width))
		}
		out = cols
	}
	return out
}

// wrapAll wraps plain lines at width, keeping the indentation.
func wrapAll(ls []string, w int) []string {
	var out []string
	for _, l := range ls {
		r := []rune(l)
		if len(r) <= w {
			out = append(out, l)
			continue
		}
		ind := 0
		for ind < len(r) && r[ind] == ' ' {
			ind++
		}
		pad := strings.Repeat(" ", min(ind+2, w/2))
		first := true
		for len(r) > 0 {
			lim := w
			if !first {
				lim = w - len(pad)
			}
			if len(r) <= lim {
				if first {
					out = append(out, string(r))
				} else {
					out = append(out, pad+string(r))
				}
				break
			}
			cut := lim
			for i := lim; i > lim/2; i-- {
				if r[i] == ' ' {
					cut = i
					break
				}
			}
			seg := strings.TrimRight(string(r[:cut]), " ")
			if first {
				out = append(out, seg)
			} else {
				out = append(out, pad+seg)
			}
			r = []rune(strings.TrimLeft(string(r[cut:]), " "))
			first = false
		}
	}
	return out
}

func (m Model) noDevicesScreen() []string {
	s := m.frame.Snapshot
	out := []string{"", m.paint(m.styles.Warning, "  No RDMA devices found on this host."), ""}
	for _, st := range s.Status {
		if st.Source == "sysfs" || st.State != probes.StateOK {
			out = append(out, clip("    "+Sanitize(st.Source)+": "+string(st.State)+" "+Sanitize(st.Detail), m.width))
		}
	}
	out = append(out, "",
		"  rdmatop reads /sys/class/infiniband and RDMA netlink; neither shows a device here.",
		"  Load a driver (e.g. mlx5_ib, or Soft-RoCE: rdma link add rxe0 type rxe netdev eth0),",
		"  or try rdmatop without hardware:",
		"",
		"    rdmatop demo            a built-in scenario that shows every view and finding",
		"    rdmatop replay FILE     a pcap/pcapng capture or a recorded bundle",
		"",
		"  q quits.")
	for i := range out {
		out[i] = clip(out[i], m.width)
	}
	return out
}

// timeline draws the position of tick seq of total in w cells: [===>----].
func timeline(seq, total, w int) string {
	if total <= 1 {
		return ""
	}
	at := min(w-1, seq*w/total)
	return "[" + strings.Repeat("=", at) + ">" + strings.Repeat("-", w-1-at) + "]"
}

// progressBar draws done/total in w cells.
func progressBar(done, total int64, w int) string {
	if total <= 0 {
		return ""
	}
	n := int(min(done, total) * int64(w) / total)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", w-n) + "]"
}
