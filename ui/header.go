package ui

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
)

func (m Model) header() []string {
	f := m.frame
	if f == nil {
		return m.loadingHeader()
	}
	l2 := m.deviceLine(f.Snapshot)
	if l2 != "" {
		l2 += "  │ "
	}
	l2 += wireLine(f)
	return []string{
		m.paint(m.styles.Title, clipKeeping(m.modeLine(f), m.stateMarks(), m.width)),
		m.paint(m.styles.Header, clip(l2, m.width)),
		m.paint(m.styles.Dim, clip(probeLine(f.Snapshot), m.width)),
	}
}

// loadingHeader is the header before the first Frame: what is being read
// and how far.
func (m Model) loadingHeader() []string {
	status := ""
	if l := m.loading; l != nil {
		status = "reading " + termtext.Sanitize(l.Label)
		if l.Total > 0 {
			status += " " + progressBar(l.Done, l.Total, 30) + " " + strconv.FormatInt(l.Done*100/l.Total, 10) + "%"
		}
	}
	return []string{m.paint(m.styles.Title, "rdmatop") + "  " + string(m.opts.Mode), status, ""}
}

// modeLine is the first line: rdmatop, the host, and where the run is
// (live and its interval, a replay's position, a demo's phase).
func (m Model) modeLine(f *monitor.Frame) string {
	var l1 strings.Builder
	l1.WriteString("rdmatop")
	host := ""
	if s := f.Snapshot; s != nil {
		host = "  host " + orDash(termtext.Sanitize(s.Host.Hostname)) + "  kernel " + orDash(termtext.Sanitize(s.Host.Kernel))
	}
	if f.Mode != monitor.ModeReplay {
		l1.WriteString(host)
	}
	switch f.Mode {
	case monitor.ModeReplay:
		// Where the replay is comes first: at 80 columns the host and
		// the file give way to it.
		l1.WriteString("  REPLAY " + position(f))
		if !f.Time.IsZero() {
			l1.WriteString(" @" + f.Time.UTC().Format("15:04:05"))
		}
		if m.speed > 0 {
			l1.WriteString(" ×" + strconv.FormatFloat(m.speed, 'g', 3, 64))
		}
		if f.LateS > 0 || f.Skipped > 0 {
			// The recorded run's sample overran: say so, as live does.
			l1.WriteString(" (tick late " + secs(f.LateS) + ", " + strconv.Itoa(f.Skipped) + " lost)")
		}
		l1.WriteString(host)
		if f.Source != "" {
			l1.WriteString(" " + termtext.Sanitize(f.Source))
		}
	case monitor.ModeDemo:
		l1.WriteString("  DEMO " + timeline(f.Seq, f.Total, 12) + " " + strconv.Itoa(f.Seq+1) + "/" + strconv.Itoa(f.Total))
		if f.Phase != "" {
			l1.WriteString(" phase: " + termtext.Sanitize(f.Phase))
		}
	default:
		l1.WriteString("  LIVE")
		if m.interval > 0 {
			l1.WriteString(" every " + m.interval.String())
		}
		if f.LateS > 0 {
			// A sample overran the interval: say so, and by how much.
			l1.WriteString(" (late " + secs(f.LateS) + ", sample " + secs(f.SampleS) + ")")
		}
	}
	return l1.String()
}

// stateMarks are the markers that never drop off the first line: the
// rest of it gives way to them.
func (m Model) stateMarks() string {
	var marks strings.Builder
	if l := m.loading; l != nil && l.Total > 0 {
		marks.WriteString("  reading " + strconv.FormatInt(l.Done*100/l.Total, 10) + "%")
	}
	if m.paused {
		marks.WriteString("  [PAUSED]")
	}
	if m.flight != "" {
		marks.WriteString("  [" + termtext.Sanitize(m.flight) + "]")
	}
	if m.done {
		marks.WriteString("  [END]")
	}
	return marks.String()
}

// deviceLine is the second line's start: the devices (four at most) and
// the selected port's link; "" without host data.
func (m Model) deviceLine(s *probes.Snapshot) string {
	if s == nil {
		return ""
	}
	var l2 strings.Builder
	l2.WriteString("dev")
	seen := map[string]bool{}
	for i := range s.Ports {
		p := &s.Ports[i]
		k := portKey(p)
		if seen[k] {
			continue
		}
		seen[k] = true
		l2.WriteString(" " + termtext.Sanitize(k))
		if p.Netdev != "" {
			l2.WriteString("(" + termtext.Sanitize(p.Netdev) + ")")
		}
		if len(seen) == 4 && len(s.Ports) > 4 {
			l2.WriteString(" +" + strconv.Itoa(len(s.Ports)-4))
			break
		}
	}
	if p := m.selectedPort(); p != nil {
		l2.WriteString("  │ " + termtext.Sanitize(portKey(p)) + " " + orDash(p.LinkLayer) + " " + orDash(p.State))
		if p.StaleS != nil {
			// No source that reads the port's state answered: this is
			// what the last one said.
			l2.WriteString(" (stale " + probes.Age(*p.StaleS) + ")")
		}
		if p.SpeedMbps != nil {
			l2.WriteString(" " + strconv.Itoa(*p.SpeedMbps/1000) + " Gb/s")
		} else if p.Rate != "" {
			l2.WriteString(" " + termtext.Sanitize(p.Rate))
		}
		l2.WriteString(" MTU " + optI(p.MTU) + "/" + optI(p.RoCEMTU))
	}
	return l2.String()
}

// probeLine is the third line: the probes' health.
func probeLine(s *probes.Snapshot) string {
	if s == nil {
		return "probes: no host data (capture only)"
	}
	if h := probeHealth(s.Status); h != "" {
		return "probes: " + h
	}
	return "probes: all ok"
}

// position is a replay's place: a bar and tick/total when the total is
// known, tick/? while the recording is still being read.
func position(f *monitor.Frame) string {
	if f.Total <= 0 {
		return strconv.Itoa(f.Seq+1) + "/?"
	}
	return timeline(f.Seq, f.Total, 12) + " " + strconv.Itoa(f.Seq+1) + "/" + strconv.Itoa(f.Total)
}

// wireLine says what the capture sees now, or why there is none.
func wireLine(f *monitor.Frame) string {
	if st := f.WireStatus; st != nil && st.State == probes.StateLinkDown {
		return "wire blind: " + termtext.Sanitize(st.Detail)
	}
	if st := f.WireStatus; st != nil && st.State != probes.StateOK {
		why := string(st.State)
		if st.State == probes.StatePermissionDenied {
			why = "no permission (needs CAP_NET_RAW: run as root or setcap cap_net_raw+ep)"
		} else if st.Detail != "" {
			why += ": " + termtext.Sanitize(st.Detail)
		}
		if f.Wire == nil {
			return "wire unavailable: " + why
		}
		return "wire stopped: " + why
	}
	w, iv := f.Wire, f.Interval
	if w == nil {
		if f.Mode == monitor.ModeLive {
			return "wire off (-i IFACE captures it)"
		}
		return "no capture"
	}
	s := "wire " + strconv.FormatUint(w.RoCEPackets, 10) + " RoCE pkts"
	if iv != nil && iv.BlindS > 0 && f.WireStatus == nil {
		// A recording's interval in which the link was down.
		s = "wire blind " + secs(iv.BlindS) + " (link down) " + strconv.FormatUint(w.RoCEPackets, 10) + " RoCE pkts"
	}
	if st := f.WireStatus; st != nil && st.Detail != "" {
		// The link came back: say so before the rates, which it explains.
		s = "wire (" + termtext.Sanitize(st.Detail) + ") " + strconv.FormatUint(w.RoCEPackets, 10) + " RoCE pkts"
	}
	if f.Mode == monitor.ModeDemo && w.File != "" {
		// The demo captures one QP's mirror beside ports that carry far
		// more: say so, or its rate reads as a contradiction.
		s = "wire (" + termtext.Sanitize(w.File) + ") " + strconv.FormatUint(w.RoCEPackets, 10) + " RoCE pkts"
	}
	if iv != nil && iv.DurationSec > 0 {
		s += " (" + trim(float64(iv.RoCEPackets)/iv.DurationSec) + "/s, " +
			strconv.FormatFloat(float64(iv.Bytes)*8/iv.DurationSec/1e9, 'f', 2, 64) + " Gb/s)"
	}
	if w.KernelDrops != nil {
		s += " drops " + optU(w.KernelDrops)
		if len(w.RingDrops) > 1 {
			// Per ring (--workers): one ring dropping is one slow worker
			// or one heavy host pair.
			rings := make([]string, len(w.RingDrops))
			for i, d := range w.RingDrops {
				rings[i] = strconv.FormatUint(d, 10)
			}
			s += " (rings " + strings.Join(rings, "+") + ")"
		}
	}
	return s
}

func secs(s float64) string { return strconv.FormatFloat(s, 'f', 1, 64) + "s" }

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
		var pending []string
		if m.frame != nil {
			for _, r := range m.frame.Rules {
				switch r.State {
				case "ok":
					ok++
				case "cannot_evaluate":
					ce++
				case "pending":
					pending = append(pending, r.Rule)
				}
			}
		}
		counts := strconv.Itoa(ok) + " rules ok, " + strconv.Itoa(ce) + " cannot evaluate here"
		if len(pending) > 0 {
			// A condition that holds but not yet as long as its rule asks
			// (for: 30s): no check mark while it may be about to fire.
			asks := " holding, not yet for as long as the rule asks ("
			if len(pending) > 1 {
				asks = " holding, not yet for as long as their rules ask ("
			}
			return []string{m.paint(m.styles.Info, clip("… no active findings yet: "+strings.Join(pending, ", ")+asks+counts+")", m.width))}
		}
		return []string{m.paint(m.styles.OK, clip("✓ no active findings ("+counts+")", m.width))}
	}
	rows := m.stripRows(n)
	out := make([]string, 0, n)
	for k, i := range rows {
		f := &m.active[i]
		cur := "  "
		if m.focusStrip && i == m.findingSel {
			cur = "▶ "
		}
		more := ""
		if k == len(rows)-1 && len(m.active) > i+1 {
			more = " (+" + strconv.Itoa(len(m.active)-i-1) + " more)"
		}
		title := termtext.Sanitize(f.Title)
		if f.Resolved {
			title += " (resolved)" // before what a narrow screen cuts
		}
		if m.frame != nil && m.frame.Mode == monitor.ModeReplay && m.width >= 120 && !f.FirstSeen.IsZero() {
			// A replay tells when: the finding's span in the file.
			title = f.FirstSeen.UTC().Format("15:04:05") + "–" + f.LastSeen.UTC().Format("15:04:05") + " " + title
		}
		line := cur + sevWord(string(f.Severity)) + " " + title + " — " + objects(f.Objects)
		if d := m.depth[i]; d > 0 {
			// a symptom of the cause above it, indented by its depth
			line = cur + strings.Repeat("  ", d-1) + " ↳ " + sevWord(string(f.Severity)) + " " + title + " — " + objects(f.Objects)
		} else if len(f.Explains) > 0 {
			line += " — explains " + ExplainsSummary(f.Explains)
		}
		line += more
		line = fit(line, m.width)
		if m.focusStrip && i == m.findingSel && !m.opts.NoColor {
			out = append(out, m.styles.Selected.Inherit(m.sevStyle(string(f.Severity))).Render(line))
		} else {
			out = append(out, m.paint(m.sevStyle(string(f.Severity)), line))
		}
	}
	return out
}

// stripRows are the findings the strip shows in its n lines: a window
// that keeps the selected one (its last line once scrolled) in view, its
// first line the root cause when the window would begin with a symptom
// whose cause is scrolled away (a symptom never stands without it).
func (m Model) stripRows(n int) []int {
	start := 0
	if m.findingSel >= n {
		start = m.findingSel - n + 1
	}
	rows := make([]int, 0, n)
	for i := start; i < start+n && i < len(m.active); i++ {
		rows = append(rows, i)
	}
	if n < 2 || len(rows) < 2 || m.parent[rows[0]] < 0 {
		return rows
	}
	// The window begins with a symptom (its cause above it, scrolled
	// away): its first line becomes the root cause of that symptom.
	root := rows[0]
	for m.parent[root] >= 0 {
		root = m.parent[root]
	}
	rows[0] = root
	return rows
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

// timeline draws the position of tick seq of total in w cells: [===>----].
func timeline(seq, total, w int) string {
	if total <= 1 {
		return ""
	}
	// The last Frame fills the bar: the marker ends in the last cell.
	at := min(w-1, seq*(w-1)/(total-1))
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

// probeHealth says what is wrong with the probes, hung sources first:
// which, since when, how old what is shown of them is, and the likely
// reason ("" when every source answered). A hung source's values are
// still on the screen, carried forward: the age says how far to trust
// them.
func probeHealth(sts []probes.Status) string {
	var hung, other []string
	for _, st := range sts {
		switch {
		case st.Hung():
			h := "HUNG " + termtext.Sanitize(st.Source)
			if st.State == probes.StatePartial {
				h += " (" + strconv.Itoa(len(st.Stuck)) + " file"
				if len(st.Stuck) != 1 {
					h += "s"
				}
				if len(st.Stuck) > 0 {
					h += ": " + termtext.Sanitize(shortPath(st.Stuck[0]))
					if len(st.Stuck) > 1 {
						h += ", …"
					}
				}
				h += ")"
			}
			if st.Since != nil {
				h += " since " + st.Since.Format("15:04:05")
			}
			if st.StaleS != nil {
				h += ", values " + probes.Age(*st.StaleS) + " old"
			}
			hung = append(hung, h)
		case st.State != probes.StateOK:
			other = append(other, termtext.Sanitize(st.Source)+": "+string(st.State))
		}
	}
	out := strings.Join(append(hung, other...), "; ")
	if len(hung) > 0 {
		out += " — " + termtext.Sanitize(probes.ShortCause(sts))
	}
	return out
}

// shortPath keeps the part of a sysfs path that names the file:
// mlx5_0/ports/1/hw_counters/np_cnp_sent.
func shortPath(p string) string {
	if i := strings.Index(p, "infiniband/"); i >= 0 {
		return p[i+len("infiniband/"):]
	}
	if i := strings.Index(p, "class/net/"); i >= 0 {
		return p[i+len("class/net/"):]
	}
	return p
}
