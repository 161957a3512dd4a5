package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/rules"
	"github.com/rdmatop/rdmatop/ui"
)

// theme is the --theme flag: dark or light.
var theme = "dark"

// screenPackets is how many recent packets the screen's Frames carry, for
// the flows view's packet list.
const screenPackets = 4096

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

func newScreen(mode monitor.Mode, interval time.Duration) (ui.Model, error) {
	if theme != "dark" && theme != "light" {
		return ui.Model{}, usageError{fmt.Errorf("--theme %q: dark or light", theme)}
	}
	return ui.New(ui.Options{Mode: mode, NoColor: os.Getenv("NO_COLOR") != "", Theme: ui.Theme(theme),
		Interval: interval, Speed: 1}), nil
}

// runScreen runs the program until the user quits; it returns the run's
// error when the screen ended because of it.
func runScreen(ctx context.Context, p *ui.Player) error {
	if _, err := tea.NewProgram(p, tea.WithContext(ctx)).Run(); err != nil && ctx.Err() == nil {
		return err
	}
	if err := p.Err(); err != nil {
		return usageError{err}
	}
	return nil
}

// runLiveTUI is `rdmatop [-i IFACE]`: the live run feeds a Latest, the
// screen takes the newest Frame at its own pace.
func runLiveTUI(cmd *cobra.Command, h *hostFlags, w *wireFlags, ff *flightFlags, pack *rules.Pack) error {
	m, err := newScreen(monitor.ModeLive, h.interval)
	if err != nil {
		return err
	}
	// The flight recorder's lines wait for the screen to end: written
	// under it they would tear it.
	var flightLog bytes.Buffer
	var logMu sync.Mutex
	fr, err := ff.open(h, w, writerFunc(func(b []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return flightLog.Write(b)
	}))
	if err != nil {
		return err
	}
	opts := liveOpts{packets: screenPackets}
	var observe func(*monitor.Frame)
	if fr != nil {
		opts.recorder, observe = fr, fr.Observe
	}
	r, closeSrc, err := liveRun(h, w, pack, opts)
	if err != nil {
		if fr != nil {
			fr.Close() // its writer goroutine stops with it
		}
		return err
	}
	defer closeSrc()
	ctx, cancel := context.WithCancel(cmd.Context())
	latest := monitor.NewLatest()
	done := make(chan struct{})
	go func() {
		defer close(done)
		monitor.Publish(ctx, r, latest, observe) //nolint:errcheck // the error reaches the screen through latest
	}()
	stopSignal := func() {}
	if fr != nil {
		stopSignal = triggerOnSignal(fr)
	}
	po := ui.PlayerOptions{Ctx: ctx, Latest: latest, Interval: h.interval,
		SetInterval: func(d time.Duration) time.Duration { r.SetInterval(d); return r.Interval() }}
	if fr != nil {
		po.Flight = fr.State
	}
	p := ui.NewPlayer(m, po)
	err = runScreen(ctx, p)
	cancel()
	<-done // the run stopped: its capture is closed, no goroutine left
	stopSignal()
	if fr != nil {
		fr.Close()
		logMu.Lock()
		cmd.ErrOrStderr().Write(flightLog.Bytes())
		logMu.Unlock()
	}
	return err
}

// writerFunc is an io.Writer of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// runReplayTUI shows a replay or the demo as a timeline the user plays,
// pauses, steps and seeks.
func runReplayTUI(cmd *cobra.Command, mode monitor.Mode, label string, open func() (*monitor.Run, error)) error {
	m, err := newScreen(mode, time.Second)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	tl := monitor.NewTimeline(ctx, open)
	err = runScreen(ctx, ui.NewPlayer(m, ui.PlayerOptions{Ctx: ctx, Timeline: tl, Label: label}))
	cancel()   // stops a read in progress (the user quit during a long load)
	tl.Close() // then ends the run
	return err
}
