// Package ui is rdmatop's screen: a Bubble Tea v2 model that renders
// monitor.Frames. It never touches the OS: frames arrive as FrameMsg, and
// what the user asks of the run (pause, interval, replay steps, speed,
// seeks) leaves as messages the caller handles.
package ui

import (
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/rules"
)

// Minimum terminal size.
const (
	MinWidth  = 60
	MinHeight = 15
)

// historyLen is how many frames the sparklines remember.
const historyLen = 60

// Options configure the screen.
type Options struct {
	Mode    monitor.Mode
	NoColor bool  // honour NO_COLOR: plain text, meaning spelled out
	Theme   Theme // dark (default) or light
	// Next, when set, returns a command that waits for the next frame and
	// returns it as a FrameMsg; the model calls it at Init and after every
	// frame. Alternatively set Frames, or call Program.Send(FrameMsg{...}).
	Next func() tea.Cmd
	// Frames, when set (and Next is not), is read one frame at a time; a
	// closed channel yields SourceDoneMsg.
	Frames <-chan monitor.Frame
	// Interval is the refresh interval shown in the header (live).
	Interval time.Duration
	// Speed is the replay speed shown in the header (1 = real time).
	Speed  float64
	KeyMap *KeyMap // nil: DefaultKeyMap
}

// FrameMsg delivers a frame to the model.
type FrameMsg struct{ Frame monitor.Frame }

// FlightMsg says what the flight recorder did (rdmatop --flight-recorder):
// shown beside LIVE in the header; empty without one.
type FlightMsg struct{ State string }

// LoadingMsg reports progress while the caller reads a large file before
// the first frame: shown as a progress bar until a frame arrives.
type LoadingMsg struct {
	Label       string
	Done, Total int64 // bytes; Total 0 when unknown
}

// SourceDoneMsg says the frame source is exhausted (end of a replay).
type SourceDoneMsg struct{ Err error }

// Messages the model emits for the caller, which owns the clock and the
// sources. The caller's program filters them (tea.WithFilter) or the
// caller wraps the model; see README in the report.
type (
	// PauseMsg: p/space. Live: the screen holds its frame (the model does
	// this itself; the caller may stop sampling). Replay/demo: play/pause.
	PauseMsg struct{ Paused bool }
	// IntervalMsg: +/−. Step is +1 (longer) or −1 (shorter).
	IntervalMsg struct{ Step int }
	// StepMsg: ←/→ in replay. Delta is −1 or +1 tick.
	StepMsg struct{ Delta int }
	// SpeedMsg: </> in replay. Step is −1 (slower) or +1 (faster).
	SpeedMsg struct{ Step int }
	// SeekMsg: g/G in replay. End false seeks to the start, true to the end.
	SeekMsg struct{ End bool }
	// SeekTimeMsg: t in replay, to the tick that first showed the
	// selected finding (it began at Time).
	SeekTimeMsg struct{ Time time.Time }
)

// PlaybackMsg is sent by the caller to update what the header shows after
// it handled an IntervalMsg, SpeedMsg or StepMsg.
type PlaybackMsg struct {
	Interval time.Duration
	Speed    float64
	// Paused: playback stopped (a step pauses it, as in any player).
	Paused bool
}

// View identifiers.
const (
	ViewOverview = iota
	ViewQPs
	ViewFlows
	ViewEvents
	ViewCounters
	ViewConfig
	numViews
)

var viewNames = [numViews]string{"Overview", "QPs", "Flows", "Events", "Counters", "Config"}

// Model is the screen.
type Model struct {
	loading *LoadingMsg // progress before the first frame
	opts    Options
	keys    KeyMap
	styles  Styles
	help    help.Model

	width, height int

	frame    *monitor.Frame // shown
	pending  *monitor.Frame // arrived while paused (live)
	frames   int            // frames received
	paused   bool
	done     bool
	flight   string // the flight recorder's state (FlightMsg)
	interval time.Duration
	speed    float64

	view        int
	showHelp    bool
	focusStrip  bool // the findings strip has the cursor
	findingSel  int
	detail      []string // open detail pane (lines), nil when closed
	detailTitle string
	detailOff   int

	pktFlow  int // flow whose packets pane is open, 0 when closed
	pktTitle string
	pktOff   int

	filtering bool
	input     textinput.Model

	port    int // selected port (overview PFC, counters)
	history map[string][]float64
	events  []eventRow // timeline, oldest first
	evSev   int        // events severity filter: 0 all, 1 warning+, 2 critical
	active  []rules.Finding

	tables   [numViews]*table
	configOf []string // config view lines
	cfgOff   int
}

type eventRow struct{ r row }

// New returns the screen.
func New(opts Options) Model {
	if opts.Mode == "" {
		opts.Mode = monitor.ModeLive
	}
	if opts.Theme == "" {
		opts.Theme = ThemeDark
	}
	km := DefaultKeyMap()
	if opts.KeyMap != nil {
		km = *opts.KeyMap
	}
	h := help.New()
	if opts.NoColor {
		h.Styles = help.Styles{}
	} else {
		h.Styles = help.DefaultStyles(opts.Theme != ThemeLight)
	}
	ti := textinput.New()
	ti.Prompt = "/"
	ti.CharLimit = 64
	m := Model{opts: opts, keys: km, styles: NewStyles(opts.Theme, opts.NoColor), help: h,
		width: 100, height: 30, interval: opts.Interval, speed: opts.Speed, focusStrip: true,
		input: ti, history: map[string][]float64{}}
	m.tables[ViewQPs] = &table{SortCol: -1, Cols: qpCols}
	m.tables[ViewFlows] = &table{SortCol: -1, Cols: slices.Clone(flowCols)}
	m.tables[ViewEvents] = &table{SortCol: -1, Cols: eventCols}
	m.tables[ViewCounters] = &table{SortCol: -1, Cols: counterCols}
	return m
}

// Init waits for the first frame.
func (m Model) Init() tea.Cmd { return m.next() }

func (m Model) next() tea.Cmd {
	if m.opts.Next != nil {
		return m.opts.Next()
	}
	if ch := m.opts.Frames; ch != nil {
		return func() tea.Msg {
			f, ok := <-ch
			if !ok {
				return SourceDoneMsg{}
			}
			return FrameMsg{Frame: f}
		}
	}
	return nil
}

func emit(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// Update handles a message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) { return m.update(msg) }

func (m Model) update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		return m, nil
	case FlightMsg:
		m.flight = msg.State
		return m, nil
	case FrameMsg:
		m.frames++
		m.loading = nil
		// A replay stepped or sought back from its end is no longer
		// there: the caller says SourceDoneMsg again when it is.
		m.done = false
		f := msg.Frame
		// A capture without host data opens on what it has: the flows,
		// troubled first (unless the user already chose a view).
		if m.frames == 1 && f.Snapshot == nil && f.Wire != nil && m.view == ViewOverview {
			m.view = ViewFlows
		}
		if m.paused && m.opts.Mode == monitor.ModeLive {
			m.pending = &f
		} else {
			m.setFrame(&f)
		}
		return m, m.next()
	case LoadingMsg:
		m.loading = &msg
		return m, nil
	case SourceDoneMsg:
		m.done = true
		return m, nil
	case PlaybackMsg:
		if msg.Interval > 0 {
			m.interval = msg.Interval
		}
		if msg.Speed > 0 {
			m.speed = msg.Speed
		}
		if msg.Paused {
			m.paused = true
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m Model) key(k tea.KeyPressMsg) (Model, tea.Cmd) {
	km := m.keys
	if k.String() == "ctrl+c" {
		return m, tea.Quit
	}
	if m.filtering {
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
	switch {
	case key.Matches(k, km.Quit):
		return m, tea.Quit
	case key.Matches(k, km.Help):
		m.showHelp = !m.showHelp
		return m, nil
	case key.Matches(k, km.Back):
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
		return m, nil
	}
	if m.pktFlow != 0 && !m.showHelp {
		switch {
		case key.Matches(k, km.Down):
			m.pktOff = min(m.pktOff+1, max(0, len(m.flowPackets(m.pktFlow))-m.packetRows()))
		case key.Matches(k, km.Up):
			m.pktOff = max(0, m.pktOff-1)
		case key.Matches(k, km.PageDown):
			m.pktOff = min(m.pktOff+m.packetRows(), max(0, len(m.flowPackets(m.pktFlow))-m.packetRows()))
		case key.Matches(k, km.PageUp):
			m.pktOff = max(0, m.pktOff-m.packetRows())
		}
		return m, nil
	}
	if m.detail != nil || m.showHelp {
		switch {
		case key.Matches(k, km.Down):
			m.detailOff++
		case key.Matches(k, km.Up):
			if m.detailOff > 0 {
				m.detailOff--
			}
		}
		return m, nil
	}
	views := []key.Binding{km.View1, km.View2, km.View3, km.View4, km.View5, km.View6}
	for i, b := range views {
		if key.Matches(k, b) {
			m.setView(i)
			return m, nil
		}
	}
	replay := m.opts.Mode != monitor.ModeLive
	switch {
	case key.Matches(k, km.NextView):
		m.setView((m.view + 1) % numViews)
	case key.Matches(k, km.PrevView):
		m.setView((m.view + numViews - 1) % numViews)
	case key.Matches(k, km.Findings):
		m.focusStrip = !m.focusStrip
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
		if t := m.tables[m.view]; t != nil {
			t.SortCol++
			if t.SortCol >= len(t.Cols) {
				t.SortCol = -1
			}
			t.refresh()
		}
	case key.Matches(k, km.SortOrder):
		if t := m.tables[m.view]; t != nil {
			if t.SortCol < 0 {
				t.SortCol = 0
			}
			t.Desc = !t.Desc
			t.refresh()
		}
	case key.Matches(k, km.Filter):
		if m.tables[m.view] != nil {
			m.filtering = true
			m.input.SetValue(m.filterOf())
			return m, m.input.Focus()
		}
	case key.Matches(k, km.Pause):
		m.paused = !m.paused
		if !m.paused && m.pending != nil {
			m.setFrame(m.pending)
			m.pending = nil
		}
		return m, emit(PauseMsg{Paused: m.paused})
	case key.Matches(k, km.Slower):
		return m, emit(IntervalMsg{Step: 1})
	case key.Matches(k, km.Faster):
		return m, emit(IntervalMsg{Step: -1})
	case m.view == ViewEvents && key.Matches(k, km.Severity):
		m.evSev = (m.evSev + 1) % len(evSevNames)
		t := m.tables[ViewEvents]
		t.Cursor, t.Offset = 0, 0
		m.eventRows()
	case key.Matches(k, km.PrevPort):
		m.selectPort(-1)
	case key.Matches(k, km.NextPort):
		m.selectPort(1)
	case replay && key.Matches(k, km.StepBack):
		return m, emit(StepMsg{Delta: -1})
	case replay && key.Matches(k, km.StepForward):
		return m, emit(StepMsg{Delta: 1})
	case replay && key.Matches(k, km.SpeedDown):
		return m, emit(SpeedMsg{Step: -1})
	case replay && key.Matches(k, km.SpeedUp):
		return m, emit(SpeedMsg{Step: 1})
	case replay && key.Matches(k, km.Start):
		return m, emit(SeekMsg{End: false})
	case replay && key.Matches(k, km.End):
		return m, emit(SeekMsg{End: true})
	case replay && key.Matches(k, km.Began):
		if m.findingSel < len(m.active) && !m.active[m.findingSel].FirstSeen.IsZero() {
			return m, emit(SeekTimeMsg{Time: m.active[m.findingSel].FirstSeen})
		}
	}
	return m, nil
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

func (m *Model) openDetail() {
	m.detailOff = 0
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
			m.detail = append(m.detail, fmt.Sprintf("%-14s %s", c.Title, r.Cells[i]))
		}
	}
}
