package main

import (
	"context"
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes/sampler"
	"github.com/rdmatop/rdmatop/rules"
	"github.com/rdmatop/rdmatop/ui"
)

func init() { runTUI = startTUI }

// theme is the --theme flag: dark or light.
var theme = "dark"

// player owns the clock and the frames; the ui.Model only draws them and
// asks (PauseMsg, StepMsg, SpeedMsg, SeekMsg, IntervalMsg) — so Update
// does no I/O: sampling and loading happen in commands.
type player struct {
	ui       tea.Model
	mode     monitor.Mode
	frames   []monitor.Frame // replay and demo
	pos      int
	playing  bool
	speed    float64
	interval time.Duration
	// live
	ctx     context.Context
	sampler *sampler.Sampler
	engine  *rules.Engine
	seq     int
	gen     int // invalidates ticks scheduled before a speed or interval change
	// loading: messages from the goroutine reading a large file
	loadCh  chan tea.Msg
	loadErr error
}

// waitLoad delivers the loader's next message (progress, then the frames).
func (p *player) waitLoad() tea.Cmd {
	ch := p.loadCh
	return func() tea.Msg { return <-ch }
}

type tickMsg struct{ gen int }
type loadedMsg struct {
	frames []monitor.Frame
	err    error
}

func (p *player) tick() tea.Cmd {
	gen := p.gen
	d := p.interval
	if p.mode != monitor.ModeLive {
		d = time.Duration(float64(p.interval) / p.speed)
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{gen} })
}

func (p *player) Init() tea.Cmd { return tea.Batch(p.ui.Init(), p.load(), p.tick()) }

// load produces the first frames: the whole replay or demo, or the first
// live sample.
func (p *player) load() tea.Cmd {
	if p.mode == monitor.ModeLive {
		return p.sample()
	}
	if p.loadCh != nil {
		return p.waitLoad()
	}
	return p.show()
}

// sample takes one live sample in a command (off the UI goroutine).
func (p *player) sample() tea.Cmd {
	s, e, ctx := p.sampler, p.engine, p.ctx
	p.seq++
	seq := p.seq
	return func() tea.Msg {
		snap := s.Sample(ctx, time.Now())
		res := e.Evaluate(rules.Frame{Time: snap.Time, Snapshot: snap, Live: true})
		return ui.FrameMsg{Frame: monitor.Frame{Time: snap.Time, Mode: monitor.ModeLive, Seq: seq - 1,
			Snapshot: snap, Findings: res.Findings, Rules: res.Rules}}
	}
}

func (p *player) show() tea.Cmd {
	if len(p.frames) == 0 {
		return nil
	}
	f := p.frames[p.pos]
	return func() tea.Msg { return ui.FrameMsg{Frame: f} }
}

func (p *player) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case ui.LoadingMsg:
		var cmd tea.Cmd
		p.ui, cmd = p.ui.Update(msg)
		return p, tea.Batch(cmd, p.waitLoad())
	case loadedMsg:
		if m.err != nil {
			p.loadErr = m.err
			return p, tea.Quit
		}
		p.frames, p.loadCh = m.frames, nil
		return p, p.show()
	case tickMsg:
		if m.gen != p.gen {
			return p, nil
		}
		if p.mode == monitor.ModeLive {
			if !p.playing {
				return p, p.tick()
			}
			return p, tea.Batch(p.sample(), p.tick())
		}
		if p.playing && p.pos < len(p.frames)-1 {
			p.pos++
			return p, tea.Batch(p.show(), p.tick())
		}
		return p, p.tick()
	case ui.PauseMsg:
		p.playing = !m.Paused
	case ui.StepMsg:
		p.pos = max(0, min(len(p.frames)-1, p.pos+m.Delta))
		return p, p.show()
	case ui.SeekMsg:
		p.pos = 0
		if m.End {
			p.pos = max(0, len(p.frames)-1)
		}
		return p, p.show()
	case ui.SpeedMsg:
		if m.Step > 0 && p.speed < 64 {
			p.speed *= 2
		} else if m.Step < 0 && p.speed > 1.0/16 {
			p.speed /= 2
		}
		p.gen++
		return p, tea.Batch(p.tick(), p.forward(ui.PlaybackMsg{Interval: p.interval, Speed: p.speed}))
	case ui.IntervalMsg:
		if m.Step > 0 && p.interval < time.Minute {
			p.interval *= 2
		} else if m.Step < 0 && p.interval > 250*time.Millisecond {
			p.interval /= 2
		}
		p.gen++
		return p, tea.Batch(p.tick(), p.forward(ui.PlaybackMsg{Interval: p.interval, Speed: p.speed}))
	}
	var cmd tea.Cmd
	p.ui, cmd = p.ui.Update(msg)
	return p, cmd
}

func (p *player) forward(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

func (p *player) View() tea.View { return p.ui.View() }

// startTUI runs the screen over src until the user quits.
func startTUI(cmd *cobra.Command, src tuiSource) error {
	p := &player{playing: true, speed: 1, interval: time.Second, ctx: cmd.Context()}
	switch {
	case src.demo != nil:
		p.mode = monitor.ModeDemo
		for f, err := range src.demo.Frames(cmd.Context()) {
			if err != nil {
				return err
			}
			p.frames = append(p.frames, f)
		}
	case src.frames != nil:
		p.mode, p.frames = monitor.ModeReplay, src.frames
	case src.load != nil:
		p.mode = monitor.ModeReplay
		p.loadCh = make(chan tea.Msg, 1)
		go func() {
			last := time.Time{}
			frames, err := src.load(func(done, total int64) {
				// at most ten updates a second; drop one if the screen is busy
				if now := time.Now(); now.Sub(last) > 100*time.Millisecond {
					last = now
					select {
					case p.loadCh <- ui.LoadingMsg{Label: src.label, Done: done, Total: total}:
					default:
					}
				}
			})
			p.loadCh <- loadedMsg{frames: frames, err: err}
		}()
	default:
		p.mode = monitor.ModeLive
		p.interval = src.interval
		s, closeSrc, _ := sampler.LiveSources(src.root)
		defer closeSrc()
		p.sampler = sampler.New(s, sampler.Options{Netdev: src.netdev, Device: src.device})
		p.engine = rules.NewEngine(src.pack)
	}
	if theme != "dark" && theme != "light" {
		return usageError{fmt.Errorf("--theme %q: dark or light", theme)}
	}
	p.ui = ui.New(ui.Options{Mode: p.mode, NoColor: os.Getenv("NO_COLOR") != "", Theme: ui.Theme(theme),
		Interval: p.interval, Speed: p.speed})
	_, err := tea.NewProgram(p, tea.WithContext(cmd.Context())).Run()
	if err == nil && p.loadErr != nil {
		return usageError{p.loadErr}
	}
	return err
}
