// Package ui is rdmatop's screen: a Bubble Tea v2 model that renders
// monitor.Frames. It never touches the OS: frames arrive as FrameMsg, and
// what the user asks of the run (pause, interval, replay steps, speed,
// seeks) leaves as messages the caller handles.
package ui

import (
	"slices"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

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
	helpOff     int  // help lines scrolled down
	focusStrip  bool // the findings strip has the cursor
	findingSel  int
	detail      []paneLine // open detail pane (lines), nil when closed
	detailTitle string
	detailOff   int // lines scrolled down
	detailHOff  int // cells scrolled sideways (a long command)

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
	// parent is the index in active of each finding's cause (-1: none
	// shown), depth how many causes are above it.
	parent, depth []int

	tables   [numViews]*table
	configOf []string // config view lines
	// pathsLine sums the Flows view's flows up per host pair (ECMP
	// entropy), "" without RoCEv2 flows.
	pathsLine string
	cfgOff    int
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
