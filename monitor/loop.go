package monitor

import (
	"context"
	"errors"
	"iter"
	"time"
)

// Looped plays the runs open makes one after the other until ctx ends or
// the consumer stops: a recording served for ever (serve --replay
// --loop), so that the alerts' for: durations, longer than any bundled
// recording, can be seen to pass. open must return a new run of the same
// recording at each call.
//
// Each pass continues the one before it, so that a consumer sees one run
// whose clock only moves forward: a pass's Frames are moved in time to
// begin one tick after the previous pass's last Frame (a tick: that
// pass's mean interval, or a second for a pass of one Frame), that first
// Frame's IntervalS is that tick (Paced waits it), and Seq counts on.
// Total is 0: the run has no end. What a Frame holds keeps the
// recording's own times (events, findings' first and last seen, a hung
// source's since). A run that fails ends the loop with its error, and so
// does a recording without a Frame.
func Looped(ctx context.Context, open func() (*Run, error)) iter.Seq2[Frame, error] {
	return func(yield func(Frame, error) bool) {
		var (
			shift time.Duration // added to this pass's times
			seq   int
			gap   float64 // IntervalS of this pass's first Frame (0: the first pass)
		)
		for ctx.Err() == nil {
			r, err := open()
			if err != nil {
				yield(Frame{}, err)
				return
			}
			p, ok := loopPass(ctx, r, shift, &seq, gap, yield)
			if !ok {
				return
			}
			if p.n == 0 {
				yield(Frame{}, errors.New("monitor: the recording has no tick to loop over"))
				return
			}
			tick := p.tick()
			shift += p.last.Sub(p.first) + tick
			gap = tick.Seconds()
		}
	}
}

// pass is what one pass of a loop saw: its Frames' number and their
// first and last times, as recorded.
type pass struct {
	n           int
	first, last time.Time
}

// tick is the pass's mean interval, or a second for a pass of one Frame.
func (p pass) tick() time.Duration {
	if p.n < 2 || !p.last.After(p.first) {
		return time.Second
	}
	return p.last.Sub(p.first) / time.Duration(p.n-1)
}

// loopPass yields r's Frames moved by shift, their Seq from *seq on, the
// first one gap seconds after the previous pass's last (when gap > 0). It
// reports false when the loop must end: a failed run (its error yielded),
// ctx cancelled or the consumer stopping.
func loopPass(ctx context.Context, r *Run, shift time.Duration, seq *int, gap float64, yield func(Frame, error) bool) (pass, bool) {
	var p pass
	for f, err := range r.Frames(ctx) {
		if err != nil {
			yield(f, err)
			return p, false
		}
		if p.n == 0 {
			p.first = f.Time
			if gap > 0 {
				f.IntervalS = gap
			}
		}
		p.n++
		p.last = f.Time
		f.Time = f.Time.Add(shift)
		f.Seq, f.Total = *seq, 0
		*seq++
		if !yield(f, nil) {
			return p, false
		}
	}
	return p, ctx.Err() == nil
}
