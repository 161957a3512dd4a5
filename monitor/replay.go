package monitor

import (
	"context"
	"io"
	"time"

	"github.com/rdmatop/rdmatop/capture"
)

// maxIdleTicks: a silence in a capture longer than this many intervals is
// one Frame, not thousands of empty ones.
const maxIdleTicks = 60

// replay plays a tape on its own clock. A tape with host ticks (a bundle,
// the demo) makes a Frame at each tick, with the packets analysed before
// it; a capture alone is cut into intervals of capture time.
func (r *Run) replay(ctx context.Context, yield func(Frame, error) bool) error {
	tape := r.cfg.Tape
	defer tape.Close()
	var err error
	if h, ok := tape.(interface{ HostTicks() bool }); ok && h.HostTicks() {
		err = r.replayTicks(ctx, tape, yield)
	} else {
		err = r.replayCapture(ctx, tape, yield)
	}
	if r.wire != nil {
		r.wire.a.EndIntervals() // only Result reads the analysis now
	}
	return err
}

// replayTicks: a Frame at every host tick.
func (r *Run) replayTicks(ctx context.Context, tape Tape, yield func(Frame, error) bool) error {
	var prev time.Time
	for {
		rec, err := tape.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			r.err = err
			return err
		}
		if rec.Snapshot == nil {
			if r.wire == nil {
				r.wire = newWireState(r.cfg.Analysis)
				if !prev.IsZero() {
					r.wire.a.Begin(prev.UnixNano())
				}
			}
			r.wire.replayed(&rec)
			continue
		}
		f := Frame{Time: rec.Time, Snapshot: rec.Snapshot, Phase: rec.Phase, Skipped: rec.Skipped, LateS: rec.LateS}
		taped, tapedTotal := r.ledger.next(rec.Capture)
		if w := r.wire; w != nil {
			c := w.cut(rec.Time.UnixNano(), r.cfg.Packets, r.cfg.IntervalsOnly)
			c.taped, c.tapedTotal = taped, tapedTotal
			f.Wire, f.Interval, f.Packets = w.finish(c)
			r.describe(f.Wire, f.Interval)
		}
		prev = rec.Time
		if err := r.emit(f, yield); err != nil {
			return err
		}
	}
}

// decodesAhead is a tape that can decode its packets as it reads them
// (CaptureTape).
type decodesAhead interface {
	DecodeAhead(pd *capture.Predecoder)
}

// replayCapture cuts a capture into intervals of capture time: the run's
// Interval, or, when the capture turns out shorter than a few of them and
// the user did not choose it, a finer step that gives about autoTicks
// Frames.
func (r *Run) replayCapture(ctx context.Context, tape Tape, yield func(Frame, error) bool) error {
	w := newWireState(r.cfg.Analysis)
	r.wire = w
	if d, ok := tape.(decodesAhead); ok {
		if pd := w.a.Predecoder(); pd != nil {
			d.DecodeAhead(pd)
		}
	}
	la := &lookahead{tape: tape}
	iv := int64(r.cfg.Interval)
	if r.cfg.AutoInterval {
		// Damage within the lookahead surfaces after the packets before it.
		span, eof := int64(0), false
		if p, ok := tape.(spanPeeker); ok {
			span, eof, ok = p.PeekSpan(4 * iv)
			if !ok {
				span, eof = la.fill(ctx, 4*iv), la.eof
			}
		} else {
			span, eof = la.fill(ctx, 4*iv), la.eof
		}
		if eof && span < 4*iv {
			iv = autoStep(span)
		}
	}
	r.step = time.Duration(iv)
	var next, last int64
	cut := func(end int64) error {
		f := Frame{Time: time.Unix(0, end).UTC()}
		f.Wire, f.Interval, f.Packets = w.finish(w.cut(end, r.cfg.Packets, r.cfg.IntervalsOnly))
		r.describe(f.Wire, f.Interval)
		return r.emit(f, yield)
	}
	for {
		rec, err := la.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			r.err = err
			// Conclude on what came before the damage, then report it.
			if next != 0 {
				if e := cut(max(last, next-iv)); e != nil {
					return e
				}
			}
			return err
		}
		ts := rec.CI.Timestamp.UnixNano()
		if next == 0 {
			w.a.Begin(ts)
			next = ts + iv
		}
		for ts >= next {
			if err := cut(next); err != nil {
				return err
			}
			if k := (ts - next) / iv; k > maxIdleTicks {
				next += k * iv
				if err := cut(next); err != nil {
					return err
				}
			}
			next += iv
		}
		w.replayed(&rec)
		last = max(last, ts)
	}
	if next == 0 {
		// No packet at all: one empty Frame, so that every consumer has one.
		return cut(0)
	}
	// The last interval ends with the capture.
	return cut(max(last, next-iv))
}

// autoTicks is about how many Frames a short capture is cut into.
const autoTicks = 20

// autoStep returns a round step (1, 2 or 5 × a power of ten) that cuts
// span into about autoTicks intervals, at least 1 µs.
func autoStep(span int64) int64 {
	want := max(span/autoTicks, 1000)
	step := int64(1000)
	for {
		for _, m := range []int64{1, 2, 5} {
			if step*m >= want {
				return step * m
			}
		}
		step *= 10
	}
}

// lookahead buffers the first packets of a tape (copies), to learn the
// capture's span before cutting it.
type lookahead struct {
	tape  Tape
	buf   []Record
	arena []byte // the copies, back to back in blocks: not one allocation per packet
	eof   bool
	err   error
}

// maxLookahead bounds the bytes lookahead buffers: a capture with more
// than this in its first four intervals is long enough to keep the
// interval given.
const maxLookahead = 16 << 20

// lookaheadBlock is the size of the lookahead's copy blocks.
const lookaheadBlock = 1 << 20

// spanPeeker is implemented by tapes that can tell the span of their
// first packets without being read (a file read again from a second
// handle): the span spanMeter measures, and whether the packets ended
// within it. ok false: it cannot, and the tape is to be buffered.
type spanPeeker interface {
	PeekSpan(want int64) (span int64, eof, ok bool)
}

// spanMeter measures the first packets of a capture for the automatic
// interval: until they span want nanoseconds or fill the lookahead's
// budget.
type spanMeter struct {
	want, first, last int64
	n                 int
	size              int
}

// add counts rec and says whether enough has been seen.
func (m *spanMeter) add(rec *Record) bool {
	ts := rec.CI.Timestamp.UnixNano()
	if m.n == 0 {
		m.first = ts
	}
	m.n++
	m.size += len(rec.Data)
	m.last = max(m.last, ts)
	return m.last-m.first >= m.want || m.size+m.n*64 >= maxLookahead
}

func (m *spanMeter) span() int64 { return m.last - m.first }

// fill reads until the buffered packets span want nanoseconds, the
// buffer is full, or the tape ends; it returns the span.
func (l *lookahead) fill(ctx context.Context, want int64) int64 {
	m := spanMeter{want: want}
	l.buf = make([]Record, 0, 1024)
	for {
		rec, err := l.tape.Next(ctx)
		if err != nil {
			l.eof, l.err = true, err
			break
		}
		if n := len(l.arena); n+len(rec.Data) > cap(l.arena) {
			// A new block: the records already buffered keep theirs.
			// Blocks of one size: doubling ones allocated (and the
			// kernel mapped) twice what was buffered.
			l.arena = make([]byte, 0, max(lookaheadBlock, len(rec.Data)))
		}
		n := len(l.arena)
		l.arena = append(l.arena, rec.Data...)
		rec.Data = l.arena[n:len(l.arena):len(l.arena)]
		rec.Decoded = nil // the tape's, reused: the analysis decodes the copy
		l.buf = append(l.buf, rec)
		if m.add(&rec) {
			break
		}
	}
	return m.span()
}

// Next returns the buffered records, then the tape's.
func (l *lookahead) Next(ctx context.Context) (Record, error) {
	if len(l.buf) > 0 {
		rec := l.buf[0]
		l.buf[0] = Record{}
		l.buf = l.buf[1:]
		if len(l.buf) == 0 {
			l.buf, l.arena = nil, nil // the copies go when the last is read
		}
		return rec, nil
	}
	if l.eof {
		return Record{}, l.err
	}
	return l.tape.Next(ctx)
}

// describe names what a replay's analyses come from (the file, the
// recorded interface), as the live source names its interface.
func (r *Run) describe(ss ...*capture.Summary) {
	d, ok := r.cfg.Tape.(Describer)
	if !ok {
		return
	}
	for _, s := range ss {
		if s != nil {
			d.Describe(s)
		}
	}
}
