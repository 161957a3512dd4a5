package ui

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatop/rdmatop/monitor"
)

// Player is the screen driven by a run of the monitor: live Frames from a
// monitor.Latest (the newest, whatever the screen's pace), or a replay's
// from a monitor.Timeline, played, paused, stepped and seeked. It owns the
// playback clock; the Model only draws. Frames are fetched in commands, so
// Update does no I/O.
type Player struct {
	ui   Model
	opts PlayerOptions

	// replay
	pos      int  // Seq of the Frame shown
	want     int  // the Frame asked for while a fetch was in flight, -1 none
	inflight bool // a Timeline.At is running
	atEnd    bool
	playing  bool
	speed    float64
	gen      int // invalidates play ticks scheduled before a change
	shown    *monitor.Frame

	err error // why the run could not start (a damaged file): Run returns it
}

// PlayerOptions say where Frames come from: Latest (live) or Timeline
// (replay, demo).
type PlayerOptions struct {
	Ctx    context.Context
	Latest *monitor.Latest
	// SetInterval changes the live run's interval and returns the one in
	// effect (the run bounds it).
	SetInterval func(time.Duration) time.Duration
	Interval    time.Duration // the live interval at start

	Timeline *monitor.Timeline
	Label    string // what the replay reads, for its progress bar

	// Flight, live with a flight recorder, says what it did ("flight: 1
	// incident"); read with each Frame in the command that waits for it,
	// never in Update or View.
	Flight func() string
}

// NewPlayer returns a player drawing with m.
func NewPlayer(m Model, o PlayerOptions) *Player {
	if o.Ctx == nil {
		o.Ctx = context.Background()
	}
	return &Player{ui: m, opts: o, want: -1, playing: true, speed: 1}
}

// Err is why the run ended badly (nil when the user quit).
func (p *Player) Err() error { return p.err }

type (
	frameAtMsg struct {
		f   monitor.Frame
		ok  bool
		err error
		// res is the recording's conclusion, read with the Frame past
		// the end (in the command: Update never waits on the timeline).
		res *monitor.Result
	}
	liveMsg struct {
		f      monitor.Frame
		ok     bool
		err    error
		flight string
	}
	playMsg     struct{ gen int }
	progressMsg struct{}
)

// Init starts the first fetch.
func (p *Player) Init() tea.Cmd {
	if p.opts.Latest != nil {
		return tea.Batch(p.ui.Init(), p.waitLive())
	}
	if p.ui.opts.Mode == monitor.ModeReplay {
		// A replay opens on the answer: the whole file read, paused at
		// its end with every finding in the strip, the worst selected;
		// t goes to when it began, g to the start, p plays.
		p.playing = false
		p.forward(PlaybackMsg{Paused: true})
		return tea.Batch(p.ui.Init(), p.fetch(1<<30), p.play())
	}
	return tea.Batch(p.ui.Init(), p.fetch(0), p.play())
}

func (p *Player) waitLive() tea.Cmd {
	l, ctx, flight := p.opts.Latest, p.opts.Ctx, p.opts.Flight
	return func() tea.Msg {
		f, ok, err := l.Next(ctx)
		m := liveMsg{f: f, ok: ok, err: err}
		if flight != nil {
			m.flight = flight()
		}
		return m
	}
}

// fetch asks the timeline for Frame i; one fetch runs at a time.
func (p *Player) fetch(i int) tea.Cmd {
	if p.inflight {
		p.want = i
		return nil
	}
	p.inflight, p.want = true, -1
	tl := p.opts.Timeline
	return tea.Batch(func() tea.Msg {
		f, ok, err := tl.At(i)
		m := frameAtMsg{f: f, ok: ok, err: err}
		if !ok {
			if res, done := tl.Result(); done {
				m.res = &res
			}
		}
		return m
	}, p.poll())
}

// poll reports the timeline's reading progress while a fetch runs.
func (p *Player) poll() tea.Cmd {
	return tea.Tick(150*time.Millisecond, func(time.Time) tea.Msg { return progressMsg{} })
}

// play schedules the next step of playback: the shown Frame's own length
// of time, at the playback speed, within [50 ms, 2 s].
func (p *Player) play() tea.Cmd {
	d := time.Second
	if p.shown != nil && p.shown.IntervalS > 0 {
		d = time.Duration(p.shown.IntervalS * float64(time.Second))
	}
	d = min(max(time.Duration(float64(d)/p.speed), 50*time.Millisecond), 2*time.Second)
	gen := p.gen
	return tea.Tick(d, func(time.Time) tea.Msg { return playMsg{gen} })
}

func (p *Player) forward(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	p.ui, cmd = p.ui.update(msg)
	return cmd
}

// Update handles the run's messages and the screen's requests; the rest
// goes to the Model.
func (p *Player) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case liveMsg:
		return p, p.onLive(m)
	case frameAtMsg:
		return p, p.onFrameAt(m)
	case progressMsg:
		if !p.inflight {
			return p, nil
		}
		done, total := p.opts.Timeline.Progress()
		return p, tea.Batch(p.forward(LoadingMsg{Label: p.opts.Label, Done: done, Total: total}), p.poll())
	case playMsg:
		if m.gen != p.gen {
			return p, nil
		}
		if p.playing && !p.atEnd && !p.inflight && p.shown != nil {
			return p, tea.Batch(p.fetch(p.pos+1), p.play())
		}
		return p, p.play()
	case PauseMsg:
		p.playing = !m.Paused
		return p, nil
	case StepMsg:
		if p.opts.Timeline != nil {
			// A step pauses playback, or the next play tick would step
			// on at once (at the end, ← seemed to do nothing).
			p.playing = false
			return p, tea.Batch(p.forward(PlaybackMsg{Paused: true}), p.fetch(max(0, p.pos+m.Delta)))
		}
	case SeekTimeMsg:
		if p.opts.Timeline != nil {
			if i, ok := p.opts.Timeline.IndexAfter(m.Time); ok {
				p.playing = false
				return p, tea.Batch(p.forward(PlaybackMsg{Paused: true}), p.fetch(i))
			}
		}
		return p, nil
	case SeekMsg:
		if p.opts.Timeline != nil {
			if m.End {
				return p, p.fetch(1 << 30)
			}
			return p, p.fetch(0)
		}
	case SpeedMsg:
		return p, p.onSpeed(m)
	case IntervalMsg:
		return p, p.onInterval(m)
	}
	return p, p.forward(msg)
}

// onLive passes a live Frame on (with the flight recorder's state) and
// waits for the next; the run's end quits on a failure, else says so.
func (p *Player) onLive(m liveMsg) tea.Cmd {
	if !m.ok {
		if m.err != nil && !errors.Is(m.err, context.Canceled) {
			p.err = m.err
			return tea.Quit
		}
		return p.forward(SourceDoneMsg{Err: m.err})
	}
	cmds := []tea.Cmd{p.forward(FrameMsg{Frame: m.f}), p.waitLive()}
	if p.opts.Flight != nil {
		cmds = append([]tea.Cmd{p.forward(FlightMsg{State: m.flight})}, cmds...)
	}
	return tea.Batch(cmds...)
}

// onFrameAt shows a replayed Frame fetched, and fetches the one asked for
// meanwhile.
func (p *Player) onFrameAt(m frameAtMsg) tea.Cmd {
	p.inflight = false
	if m.err != nil && errors.Is(m.err, context.Canceled) {
		return nil
	}
	if m.f.Time.IsZero() && m.f.Seq == 0 && m.err != nil && p.shown == nil {
		// Nothing could be read at all.
		p.err = m.err
		return tea.Quit
	}
	f := m.f
	if m.res != nil {
		// At the end, the file's conclusion: the flows judged on the
		// whole capture (not on the last tick), everything that fired
		// with when it began and ended, and the whole capture's
		// analysis, packets after the last host tick included: the
		// screen at [END] says what the findings and the report say.
		f.Findings = m.res.Findings
		if m.res.Wire != nil {
			f.Wire = m.res.Wire
		}
	}
	p.shown, p.pos, p.atEnd = &f, f.Seq, !m.ok
	cmds := []tea.Cmd{p.forward(FrameMsg{Frame: f})}
	if !m.ok {
		cmds = append(cmds, p.forward(SourceDoneMsg{Err: m.err}))
	}
	if p.want >= 0 && p.want != f.Seq {
		cmds = append(cmds, p.fetch(p.want))
	}
	return tea.Batch(cmds...)
}

// onSpeed doubles or halves a replay's speed, within 1/16 and 64.
func (p *Player) onSpeed(m SpeedMsg) tea.Cmd {
	if m.Step > 0 && p.speed < 64 {
		p.speed *= 2
	} else if m.Step < 0 && p.speed > 1.0/16 {
		p.speed /= 2
	}
	p.gen++
	return tea.Batch(p.play(), p.forward(PlaybackMsg{Speed: p.speed}))
}

// onInterval doubles or halves a live run's interval, within 250 ms and
// a minute.
func (p *Player) onInterval(m IntervalMsg) tea.Cmd {
	if p.opts.SetInterval == nil {
		return nil // a replay's timeline is cut already
	}
	iv := p.ui.interval
	if m.Step > 0 {
		iv *= 2
	} else {
		iv /= 2
	}
	iv = p.opts.SetInterval(min(max(iv, 250*time.Millisecond), time.Minute))
	return p.forward(PlaybackMsg{Interval: iv})
}

// View draws the Model.
func (p *Player) View() tea.View { return p.ui.View() }
