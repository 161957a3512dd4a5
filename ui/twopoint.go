package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatop/rdmatop/capture/twopoint"
	"github.com/rdmatop/rdmatop/internal/termtext"
)

// TwoPoints is the screen of two captures of one path compared (replay A
// B on a terminal): the verdict and each way's totals, then every flow,
// troubled first, with where its packets went. Read-only: the keys move
// the cursor and scroll.
type TwoPoints struct {
	r             *twopoint.Result
	flows         []twopoint.FlowFate
	keys          KeyMap
	styles        Styles
	width, height int
	sel, top      int // the selected flow, the first shown
}

// NewTwoPoints returns the screen of r; of o it reads NoColor, Theme and
// KeyMap.
func NewTwoPoints(r *twopoint.Result, o Options) TwoPoints {
	m := TwoPoints{r: r, styles: NewStyles(o.Theme, o.NoColor), keys: DefaultKeyMap()}
	if o.KeyMap != nil {
		m.keys = *o.KeyMap
	}
	// A flow that holds nothing of its own (its packets were another
	// flow's, corrupted in their headers on the way) is left out.
	m.flows = slices.DeleteFunc(slices.Clone(r.Flows), func(f twopoint.FlowFate) bool { return f.Sent+f.Appeared+f.Duplicated == 0 })
	bad := func(f twopoint.FlowFate) uint64 { return f.Lost + f.Corrupted + f.Duplicated }
	slices.SortStableFunc(m.flows, func(a, b twopoint.FlowFate) int {
		if c := cmp.Compare(bad(b), bad(a)); c != 0 {
			return c
		}
		return cmp.Compare(b.Sent, a.Sent)
	})
	return m
}

// Init starts nothing: the comparison is whole.
func (m TwoPoints) Init() tea.Cmd { return nil }

// Update moves the cursor, resizes and quits.
func (m TwoPoints) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		rows := max(1, m.flowRows())
		switch {
		case key.Matches(msg, m.keys.Quit):
			return m, tea.Quit
		case key.Matches(msg, m.keys.Down):
			m.sel++
		case key.Matches(msg, m.keys.Up):
			m.sel--
		case key.Matches(msg, m.keys.PageDown):
			m.sel += rows
		case key.Matches(msg, m.keys.PageUp):
			m.sel -= rows
		case key.Matches(msg, m.keys.Start):
			m.sel = 0
		case key.Matches(msg, m.keys.End):
			m.sel = len(m.flows) - 1
		}
		m.sel = max(0, min(m.sel, len(m.flows)-1))
		m.top = max(0, min(m.top, m.sel), m.sel-rows+1)
	}
	return m, nil
}

// View is the screen, on the alternate screen.
func (m TwoPoints) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "rdmatop: two points"
	return v
}

// Render is the screen as a string.
func (m TwoPoints) Render() string {
	w, h := m.width, m.height
	if w < MinWidth || h < MinHeight {
		return strings.Join([]string{clip("terminal too small", w), clip("resize, or press q", w)}, "\n")
	}
	lines := m.top3(w)
	lines = append(lines, "", m.styles.ColumnHeader.Render(fit("WAY      FLOWS      SENT      LOST  CORRUPT   COPIED  REORDER  CE-MARKED", w)))
	for _, s := range m.r.Segments {
		row := fmt.Sprintf("%-6s %7d %9s %9s %8s %8s %8s %10s", s.Upstream+"→"+s.Downstream, s.Flows, twopoint.Count(s.Sent),
			twopoint.Count(s.Lost), twopoint.Count(s.Corrupted), twopoint.Count(s.Duplicated), twopoint.Count(s.Reordered), twopoint.Count(s.CEMarked))
		lines = append(lines, m.damageStyle(s.Fate).Render(fit(row, w)))
	}
	lines = append(lines, "", m.styles.ColumnHeader.Render(fit(flowHeader(w), w)))
	rows := m.flowRows()
	for i := m.top; i < min(len(m.flows), m.top+rows); i++ {
		lines = append(lines, m.flowLine(i, w))
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	help := fmt.Sprintf("↑↓ flow %d of %d • pgup/pgdn • q quit", m.sel+1, len(m.flows))
	return strings.Join(append(lines[:h-1], m.styles.Help.Render(clip(help, w))), "\n")
}

// top3 is the title, the clocks and the verdict, wrapped at words.
func (m TwoPoints) top3(w int) []string {
	r := m.r
	title := m.styles.Title.Render("rdmatop") + " " + clip(termtext.Sanitize(fmt.Sprintf("two points  A %s (%s)  B %s (%s)",
		r.A.File, twopoint.Count(uint64(r.A.Packets)), r.B.File, twopoint.Count(uint64(r.B.Packets)))), w-8)
	clocks := "clocks: offset unknown (traffic one way only): the clocks are taken to agree"
	if o := r.Offset; o.Known {
		clocks = fmt.Sprintf("clocks: B - A = %s ± %s", time.Duration(o.NS), time.Duration(o.UncertaintyNS))
	}
	lines := []string{title, m.styles.Dim.Render(clip(clocks, w))}
	style := m.styles.OK
	if r.Damage() {
		style = m.styles.Critical
	}
	for _, l := range wrapProse("verdict: "+r.Verdict, w) {
		lines = append(lines, style.Render(l))
	}
	return lines
}

// flowRows is how many flows fit.
func (m TwoPoints) flowRows() int {
	used := len(m.top3(max(m.width, MinWidth))) + 2 + len(m.r.Segments) + 2 + 1
	return m.height - used
}

// flowColumns lays out a flow row after its name: way, counts, where.
const flowColumns = " %-3s %8s %7s %5s %5s %6s  %s"

// flowHeader names the flow columns.
func flowHeader(w int) string {
	return "  " + fit("DEST QP  SRC→DST", flowNameWidth(w)) + fmt.Sprintf(flowColumns, "WAY", "SENT", "LOST", "CORR", "COPY", "REORD", "WHERE")
}

// flowCountsWidth is the width of a flow row's way, counts and where (up
// to "copied A→B").
const flowCountsWidth = 52

// flowNameWidth is the room the flow's name gets.
func flowNameWidth(w int) int { return min(48, max(20, w-2-flowCountsWidth)) }

// flowLine is flow i's row: its name, way, counts and where its packets
// went; the cursor marks the selected one.
func (m TwoPoints) flowLine(i, w int) string {
	f := m.flows[i]
	cursor := "  "
	if i == m.sel {
		cursor = "▶ "
	}
	// The QP first: a narrow screen cuts the addresses, not the QP.
	name := termtext.Sanitize(fmt.Sprintf("0x%06x %s→%s", f.DestQP, f.Src, f.Dst))
	row := cursor + fit(name, flowNameWidth(w)) + fmt.Sprintf(flowColumns, f.Upstream+"→"+f.Downstream,
		twopoint.Count(f.Sent), twopoint.Count(f.Lost), twopoint.Count(f.Corrupted), twopoint.Count(f.Duplicated),
		twopoint.Count(f.Reordered), where(f))
	row = fit(row, w)
	if i == m.sel {
		return m.styles.Selected.Render(row)
	}
	return m.damageStyle(f.Fate).Render(row)
}

// where says where a flow's packets went wrong: lost (or corrupted)
// between its points, copied there, missing from its upstream capture,
// sent outside the downstream capture's window, or none of these.
func where(f twopoint.FlowFate) string {
	way := f.Upstream + "→" + f.Downstream
	switch {
	case f.Lost+f.Corrupted > 0:
		return "lost " + way
	case f.Duplicated > 0:
		return "copied " + way
	case f.Appeared > 0:
		return "not in " + f.Upstream
	case f.Unknown > 0:
		return "outside " + f.Downstream
	}
	return "delivered"
}

// damageStyle colours a row by what the path did to it.
func (m TwoPoints) damageStyle(f twopoint.Fate) interface{ Render(...string) string } {
	switch {
	case f.Lost+f.Corrupted > 0:
		return m.styles.Critical
	case f.Duplicated > 0:
		return m.styles.Warning
	}
	return m.styles.Header
}
