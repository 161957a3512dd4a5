package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
)

// What a key press does: the bindings of KeyMap acted on, and the moves
// of the selection, the views, the filter and the detail panel.

func (m Model) key(k tea.KeyPressMsg) (Model, tea.Cmd) {
	km := m.keys
	if k.String() == "ctrl+c" {
		return m, tea.Quit
	}
	if m.filtering {
		return m.keyFilter(k)
	}
	switch {
	case key.Matches(k, km.Quit):
		return m, tea.Quit
	case key.Matches(k, km.Help):
		m.showHelp, m.helpOff = !m.showHelp, 0
		return m, nil
	case key.Matches(k, km.Back):
		m.back()
		return m, nil
	}
	// A pane over the view (a flow's packets, the help, a finding's
	// detail) takes the keys that scroll it, and nothing else.
	switch {
	case m.pktFlow != 0 && !m.showHelp:
		m.scrollPackets(k)
		return m, nil
	case m.showHelp:
		m.scrollHelp(k)
		return m, nil
	case m.detail != nil:
		m.scrollDetail(k)
		return m, nil
	}
	views := []key.Binding{km.View1, km.View2, km.View3, km.View4, km.View5, km.View6}
	for i, b := range views {
		if key.Matches(k, b) {
			m.setView(i)
			return m, nil
		}
	}
	if cmd, ok := m.keyView(k); ok {
		return m, cmd
	}
	if m.opts.Mode != monitor.ModeLive {
		return m, m.keyReplay(k)
	}
	return m, nil
}

// keyFilter edits the filter: enter keeps it, esc drops it.
func (m Model) keyFilter(k tea.KeyPressMsg) (Model, tea.Cmd) {
	switch k.String() {
	case "enter":
		m.filtering = false
		m.input.Blur()
		return m, nil
	case "esc":
		m.filtering = false
		m.input.Blur()
		m.input.SetValue("")
		m.applyFilter("")
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.applyFilter(m.input.Value())
	return m, cmd
}

// back closes what is open, the innermost first: the help, a flow's
// packets, a detail, the filter, then the strip's focus.
func (m *Model) back() {
	switch {
	case m.showHelp:
		m.showHelp = false
	case m.pktFlow != 0:
		m.pktFlow = 0
	case m.detail != nil:
		m.detail = nil
	case m.filterOf() != "":
		m.input.SetValue("")
		m.applyFilter("")
	case m.focusStrip && m.view != ViewOverview:
		m.focusStrip = false
	}
}

func (m *Model) scrollPackets(k tea.KeyPressMsg) {
	km := m.keys
	last := max(0, len(m.flowPackets(m.pktFlow))-m.packetRows())
	switch {
	case key.Matches(k, km.Down):
		m.pktOff = min(m.pktOff+1, last)
	case key.Matches(k, km.Up):
		m.pktOff = max(0, m.pktOff-1)
	case key.Matches(k, km.PageDown):
		m.pktOff = min(m.pktOff+m.packetRows(), last)
	case key.Matches(k, km.PageUp):
		m.pktOff = max(0, m.pktOff-m.packetRows())
	}
}

func (m *Model) scrollHelp(k tea.KeyPressMsg) {
	switch {
	case key.Matches(k, m.keys.Down):
		m.helpOff++
	case key.Matches(k, m.keys.Up):
		m.helpOff = max(0, m.helpOff-1)
	}
}

func (m *Model) scrollDetail(k tea.KeyPressMsg) {
	km := m.keys
	switch {
	case key.Matches(k, km.Down):
		m.detailOff++
	case key.Matches(k, km.Up):
		m.detailOff = max(0, m.detailOff-1)
	case key.Matches(k, km.Right):
		m.detailHOff = min(m.detailHOff+m.hStep(), m.detailHMax())
	case key.Matches(k, km.Left):
		m.detailHOff = max(0, m.detailHOff-m.hStep())
	}
}

// keyView acts on the keys of the views, live or replayed: moving,
// sorting, filtering, the findings strip, pause and the interval. ok is
// false for a key it does not know.
func (m *Model) keyView(k tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	km := m.keys
	switch {
	case key.Matches(k, km.NextView):
		m.setView((m.view + 1) % numViews)
	case key.Matches(k, km.PrevView):
		m.setView((m.view + numViews - 1) % numViews)
	case key.Matches(k, km.Findings):
		// f focuses the strip, whatever has the focus: a toggle took it
		// away where the strip opens focused (the Overview). esc gives it
		// back to the view's table.
		m.focusStrip = true
	case key.Matches(k, km.Up):
		m.move(-1)
	case key.Matches(k, km.Down):
		m.move(1)
	case key.Matches(k, km.PageUp):
		m.move(-m.bodyHeight())
	case key.Matches(k, km.PageDown):
		m.move(m.bodyHeight())
	case key.Matches(k, km.Enter):
		m.openDetail()
	case key.Matches(k, km.Sort):
		m.sortNext()
	case key.Matches(k, km.SortOrder):
		m.sortFlip()
	case key.Matches(k, km.Filter):
		if m.tables[m.view] != nil {
			m.filtering = true
			m.input.SetValue(m.filterOf())
			return m.input.Focus(), true
		}
	case key.Matches(k, km.Pause):
		m.paused = !m.paused
		if !m.paused && m.pending != nil {
			m.setFrame(m.pending)
			m.pending = nil
		}
		return emit(PauseMsg{Paused: m.paused}), true
	case key.Matches(k, km.Slower):
		return emit(IntervalMsg{Step: 1}), true
	case key.Matches(k, km.Faster):
		return emit(IntervalMsg{Step: -1}), true
	case m.view == ViewEvents && key.Matches(k, km.Severity):
		m.evSev = (m.evSev + 1) % len(evSevNames)
		t := m.tables[ViewEvents]
		t.Cursor, t.Offset = 0, 0
		m.eventRows()
	case key.Matches(k, km.PrevPort):
		m.selectPort(-1)
	case key.Matches(k, km.NextPort):
		m.selectPort(1)
	default:
		return nil, false
	}
	return nil, true
}

// sortNext sorts the view's table by its next column, then by none.
func (m *Model) sortNext() {
	if t := m.tables[m.view]; t != nil {
		t.SortCol++
		if t.SortCol >= len(t.Cols) {
			t.SortCol = -1
		}
		t.refresh()
	}
}

// sortFlip turns the view's table's order round.
func (m *Model) sortFlip() {
	if t := m.tables[m.view]; t != nil {
		if t.SortCol < 0 {
			t.SortCol = 0
		}
		t.Desc = !t.Desc
		t.refresh()
	}
}

// keyReplay acts on the keys that move through a recording.
func (m *Model) keyReplay(k tea.KeyPressMsg) tea.Cmd {
	km := m.keys
	switch {
	case key.Matches(k, km.StepBack):
		return emit(StepMsg{Delta: -1})
	case key.Matches(k, km.StepForward):
		return emit(StepMsg{Delta: 1})
	case key.Matches(k, km.SpeedDown):
		return emit(SpeedMsg{Step: -1})
	case key.Matches(k, km.SpeedUp):
		return emit(SpeedMsg{Step: 1})
	case key.Matches(k, km.Start):
		return emit(SeekMsg{End: false})
	case key.Matches(k, km.End):
		return emit(SeekMsg{End: true})
	case key.Matches(k, km.Began):
		if m.findingSel < len(m.active) && !m.active[m.findingSel].FirstSeen.IsZero() {
			return emit(SeekTimeMsg{Time: m.active[m.findingSel].FirstSeen})
		}
	}
	return nil
}

func (m *Model) setView(v int) {
	m.view = v
	m.focusStrip = v == ViewOverview
	m.cfgOff = 0
}

func (m *Model) filterOf() string {
	if t := m.tables[m.view]; t != nil {
		return t.Filter
	}
	return ""
}

func (m *Model) applyFilter(f string) {
	if t := m.tables[m.view]; t != nil {
		t.Filter = f
		t.Cursor, t.Offset = 0, 0
		t.refresh()
	}
}

func (m *Model) move(d int) {
	if m.focusStrip {
		m.findingSel += d
		if m.findingSel >= len(m.active) {
			m.findingSel = len(m.active) - 1
		}
		if m.findingSel < 0 {
			m.findingSel = 0
		}
		return
	}
	if t := m.tables[m.view]; t != nil {
		t.Cursor += d
		t.clamp(m.tableHeight())
		return
	}
	if m.view == ViewConfig {
		m.cfgOff += d
		if m.cfgOff > len(m.configOf)-1 {
			m.cfgOff = len(m.configOf) - 1
		}
		if m.cfgOff < 0 {
			m.cfgOff = 0
		}
	}
}

func (m *Model) selectPort(d int) {
	if m.frame == nil || m.frame.Snapshot == nil || len(m.frame.Snapshot.Ports) == 0 {
		return
	}
	n := len(m.frame.Snapshot.Ports)
	m.port = (m.port + d + n) % n
	m.buildCounters()
}

// hStep is how far ←/→ scroll the detail pane: half its width, as less
// does.
func (m *Model) hStep() int { return max(1, m.width/2) }

// detailHMax is how far the detail pane scrolls sideways: until the end
// of its widest line is in view.
func (m *Model) detailHMax() int {
	return max(0, widest(layoutPane(m.detail, m.width))-m.width)
}

func (m *Model) openDetail() {
	m.detailOff, m.detailHOff = 0, 0
	if m.focusStrip {
		if m.findingSel < len(m.active) {
			f := m.active[m.findingSel]
			m.detailTitle = "Finding: " + termtext.Sanitize(f.Title)
			m.detail = findingDetail(f)
		}
		return
	}
	t := m.tables[m.view]
	if t == nil {
		return
	}
	r := t.selected()
	if r == nil {
		return
	}
	if m.view == ViewFlows {
		m.openPackets(r)
		return
	}
	m.detailTitle = viewNames[m.view] + " row"
	m.detail = nil
	for i, c := range t.Cols {
		if i < len(r.Cells) {
			m.detail = append(m.detail, prose(fmt.Sprintf("%-14s %s", c.Title, r.Cells[i]))...)
		}
	}
}
