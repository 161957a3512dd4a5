package monitor

import (
	"context"
	"iter"
	"sort"
	"sync"
	"time"
)

// Timeline gives the screen random access to a replayed run (step back,
// seek to the start or the end) in bounded memory: it keeps a window of
// the most recent Frames computed, computes forward on demand, and to go
// back before the window it replays the recording from the start (a
// recording replays to the same Frames). Safe for concurrent use; calls
// are serialised.
type Timeline struct {
	// MaxBytes bounds the estimated size of the window (WindowBytes when
	// 0); set it before the first At.
	MaxBytes int

	ctx  context.Context
	open func() (*Run, error)

	// pmu guards prog alone, so that Progress answers while At computes.
	pmu  sync.Mutex
	prog Progresser

	mu     sync.Mutex
	run    *Run
	next   func() (Frame, error, bool)
	stop   func()
	window []Frame
	// times holds every Frame's time computed so far, by index (8 bytes
	// a Frame, a day of 1 s ticks in 700 KB), so that the screen can
	// jump to when something began without a search through the run.
	// tmu guards it alone: IndexAfter answers while At computes.
	tmu    sync.Mutex
	times  []int64
	base   int  // index of window[0]
	cost   int  // estimated bytes of the window
	end    int  // number of Frames once a run was exhausted, else -1
	done   bool // the current run is exhausted
	err    error
	result *Result
}

// WindowBytes bounds the estimated size of the Frames a Timeline keeps.
const WindowBytes = 256 << 20

// NewTimeline returns a timeline over the runs open makes: each call must
// return a new run of the same recording. Cancelling ctx stops the
// computation in progress (the user quit during a long read).
func NewTimeline(ctx context.Context, open func() (*Run, error)) *Timeline {
	return &Timeline{ctx: ctx, open: open, end: -1}
}

// restart begins the recording again; mu is held.
func (t *Timeline) restart() error {
	ctx := t.ctx
	t.closeRun()
	r, err := t.open()
	if err != nil {
		return err
	}
	t.run = r
	p, _ := r.cfg.Tape.(Progresser)
	t.pmu.Lock()
	t.prog = p
	t.pmu.Unlock()
	t.next, t.stop = iter.Pull2(r.Frames(ctx))
	t.window, t.base, t.cost, t.done = nil, 0, 0, false
	return nil
}

func (t *Timeline) closeRun() {
	if t.stop != nil {
		t.stop()
	}
	t.run, t.next, t.stop = nil, nil, nil
}

// At returns Frame i, computing forward as needed. Past the end it returns
// the last Frame and ok false; err is the recording's damage, if any,
// once it is reached.
func (t *Timeline) At(i int) (f Frame, ok bool, err error) {
	ctx := t.ctx
	t.mu.Lock()
	defer t.mu.Unlock()
	if i < 0 {
		i = 0
	}
	if t.run == nil || i < t.base {
		if err := t.restart(); err != nil {
			return Frame{}, false, err
		}
	}
	for !t.done && t.base+len(t.window) <= i {
		fr, err, more := t.next()
		if !more || err != nil {
			if ctx.Err() != nil {
				// Stopped by the caller: the next At starts over.
				t.closeRun()
				return Frame{}, false, ctx.Err()
			}
			t.done, t.end, t.err = true, t.base+len(t.window), err
			res := t.run.Result()
			t.result = &res
			break
		}
		t.push(fr)
	}
	n := t.base + len(t.window)
	if n == 0 {
		return Frame{}, false, t.err
	}
	if i >= n {
		return t.fix(t.window[len(t.window)-1]), false, t.err
	}
	return t.fix(t.window[i-t.base]), true, nil
}

// fix sets Total once the end is known.
func (t *Timeline) fix(f Frame) Frame {
	if t.end >= 0 {
		f.Total = t.end
	}
	return f
}

// push adds f to the window, dropping the oldest Frames beyond its budget
// (always keeping the newest two).
func (t *Timeline) push(f Frame) {
	t.tmu.Lock()
	if i := t.base + len(t.window); i == len(t.times) {
		t.times = append(t.times, f.Time.UnixNano())
	}
	t.tmu.Unlock()
	t.window = append(t.window, f)
	t.cost += frameCost(&f)
	limit := t.MaxBytes
	if limit <= 0 {
		limit = WindowBytes
	}
	for len(t.window) > 2 && t.cost > limit {
		t.cost -= frameCost(&t.window[0])
		t.window[0] = Frame{}
		t.window = t.window[1:]
		t.base++
	}
}

// IndexAfter returns the index of the first Frame computed so far whose
// time is after at: the tick that first shows what began at at (a tick is
// judged at its end). ok is false when no Frame computed so far is. It
// answers at once, also while At computes.
func (t *Timeline) IndexAfter(at time.Time) (i int, ok bool) {
	t.tmu.Lock()
	defer t.tmu.Unlock()
	ns := at.UnixNano()
	i = sort.Search(len(t.times), func(k int) bool { return t.times[k] > ns })
	return i, i < len(t.times)
}

// Len returns the number of Frames computed so far and whether that is all.
func (t *Timeline) Len() (n int, final bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.end >= 0 {
		return t.end, true
	}
	return t.base + len(t.window), false
}

// Progress returns how far the current run has read its recording; it
// answers at once, also while At is computing.
func (t *Timeline) Progress() (done, total int64) {
	t.pmu.Lock()
	p := t.prog
	t.pmu.Unlock()
	if p == nil {
		return 0, 0
	}
	return p.Progress()
}

// Result returns the conclusion of the recording once the end was reached.
func (t *Timeline) Result() (Result, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.result == nil {
		return Result{}, false
	}
	return *t.result, true
}

// Close stops the current run.
func (t *Timeline) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closeRun()
}

// frameCost estimates a Frame's memory: what grows with the recording's
// size (flows, QPs, counters, findings, packets).
func frameCost(f *Frame) int {
	n := 4 << 10
	if w := f.Wire; w != nil {
		n += 700 * (len(w.Flows) + len(w.Anomalies)/2)
	}
	if w := f.Interval; w != nil {
		n += 700 * (len(w.Flows) + len(w.Anomalies)/2)
	}
	n += 48 * len(f.Packets)
	if s := f.Snapshot; s != nil {
		n += 300 * len(s.QPs)
		for i := range s.Ports {
			n += 200 * len(s.Ports[i].Counters)
		}
		n += 300 * (len(s.Events) + len(s.Config.GIDs))
	}
	n += 1000 * len(f.Findings)
	return n
}
