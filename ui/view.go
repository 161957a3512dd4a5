package ui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/rdmatop/rdmatop/internal/termtext"
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
		// Short lines, so that even a very small terminal shows them whole.
		return strings.Join([]string{
			clip("terminal too small", w),
			clip("need "+strconv.Itoa(MinWidth)+"×"+strconv.Itoa(MinHeight)+",", w),
			clip("now "+strconv.Itoa(w)+"×"+strconv.Itoa(h), w),
			clip("resize, or press q", w),
		}, "\n")
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
	if s := m.frame.Snapshot; m.view == ViewQPs && s != nil && s.NCCLRAS != nil && h > 2 {
		line, bad := rasLine(s.NCCLRAS)
		st := m.styles.Dim
		if bad {
			st = m.styles.Critical
		}
		out = append(out, m.paint(st, clip(line, m.width)))
		h--
	}
	if m.view == ViewFlows && m.pathsLine != "" && h > 2 {
		out = append(out, m.paint(m.styles.Dim, clip(m.pathsLine, m.width)))
		h--
	}
	if m.view == ViewCounters {
		if p := m.selectedPort(); p != nil {
			out = append(out, clip("port "+termtext.Sanitize(portKey(p))+" ("+orDash(termtext.Sanitize(p.Netdev))+")  "+
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
		case m.view == ViewFlows && m.frame.Wire != nil:
			// A capture runs and has seen no RoCE: say what it saw.
			msg = "  no RoCE in the capture: " + strconv.FormatUint(m.frame.Wire.Packets, 10) +
				" packets, none UDP 4791 or EtherType 0x8915"
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

// detailScreen is the open detail pane: its lines laid out for the
// width (layoutPane), from the line and the cell it is scrolled to.
func (m Model) detailScreen(h int) []string {
	lines := layoutPane(m.detail, m.width)
	keys := "esc back, ↑/↓ scroll"
	if widest(lines) > m.width {
		keys = "esc back, ↑/↓ ←/→ scroll"
	}
	out := []string{m.paint(m.styles.Title, clipKeeping(m.detailTitle, "   ("+keys+")", m.width))}
	off := min(m.detailOff, max(0, len(lines)-1))
	hoff := min(m.detailHOff, max(0, widest(lines)-m.width))
	for _, l := range lines[off:] {
		if len(out) == h {
			break
		}
		out = append(out, window(l, hoff, m.width))
	}
	return out
}

// helpScreen lists the keys: in two columns when one does not fit, and
// scrolled with ↑/↓ when two do not either.
func (m Model) helpScreen(h int) []string {
	var rows []string
	for _, g := range m.keys.FullHelp() {
		for _, b := range g {
			if !b.Enabled() {
				continue
			}
			rows = append(rows, clip("  "+fit(b.Help().Key, 10)+b.Help().Desc, m.width))
		}
	}
	if len(rows) > h-1 && m.width >= 80 {
		// Two columns when it does not fit.
		half := (len(rows) + 1) / 2
		cols := make([]string, 0, half)
		for i := 0; i < half; i++ {
			l := fit(rows[i], 40)
			if half+i < len(rows) {
				l += rows[half+i]
			}
			cols = append(cols, clip(l, m.width))
		}
		rows = cols
	}
	title := "Keys   (esc or ? to close)"
	if len(rows) > h-1 {
		title = "Keys   (esc or ? to close, ↑/↓ scroll)"
		rows = rows[min(m.helpOff, len(rows)-(h-1)):]
	}
	return append([]string{m.paint(m.styles.Title, clip(title, m.width))}, rows...)
}

// noDevicesScreen says that the host has no RDMA device, why, and what to
// do: load a driver, make a Soft-RoCE device (a command of its own line,
// whole at any width) or try rdmatop on a capture or the demo.
func (m Model) noDevicesScreen() []string {
	s := m.frame.Snapshot
	out := []string{"", m.paint(m.styles.Warning, "  No RDMA devices found on this host."), ""}
	var l []paneLine
	for _, st := range s.Status {
		if st.Source == "sysfs" || st.State != probes.StateOK {
			l = append(l, prose("    "+termtext.Sanitize(st.Source)+": "+string(st.State)+" "+termtext.Sanitize(st.Detail))...)
		}
	}
	l = append(l, prose("",
		"  rdmatop reads /sys/class/infiniband and RDMA netlink; neither shows a device here.",
		"  Load a driver (e.g. mlx5_ib), or make a Soft-RoCE device on a netdev:",
		"")...)
	l = append(l, paneLine{text: "    rdma link add rxe0 type rxe netdev eth0", cmd: true})
	l = append(l, prose("",
		"  or try rdmatop without hardware:",
		"",
		"    rdmatop demo            a built-in scenario showing every view and finding",
		"    rdmatop replay FILE     a pcap/pcapng capture or a recorded bundle",
		"",
		"  q quits.")...)
	for _, ln := range layoutPane(l, m.width) {
		out = append(out, window(ln, 0, m.width))
	}
	return out
}
