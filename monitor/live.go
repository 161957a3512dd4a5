package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/live"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
)

// live runs on the wall clock: a tick every interval, one after another
// (a sample that overruns delays the next tick, which reports how late it
// is), while a pump goroutine feeds the capture to the analyzer.
func (r *Run) live(ctx context.Context, yield func(Frame, error) bool) (runErr error) {
	cfg := &r.cfg
	now := cfg.Now
	start := now()
	var wireStatus *probes.Status
	switch {
	case cfg.Wire != nil:
		stop := r.startWire(ctx, start)
		defer func() {
			if err := stop(); err != nil && runErr == nil {
				runErr = err
			}
		}()
	case cfg.WireErr != nil:
		st := probes.StatusOf(wireSource(cfg.WireName), cfg.WireErr)
		wireStatus = &st
	}
	g := tickGrid{next: start} // the first tick at once
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		if d := g.next.Sub(now()); d > 0 {
			timer.Reset(d)
			select {
			case <-ctx.Done():
				return nil
			case <-timer.C:
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		t0 := now()
		f := Frame{Time: t0, Skipped: g.skipped, WireStatus: wireStatus}
		// Timer jitter is not lateness: a tick is late when it starts a
		// tenth of an interval after it was due (a sample overran).
		if l := g.late + t0.Sub(g.next); l > r.Interval()/10 {
			f.LateS = l.Seconds()
		}
		var raw *bundle.Tick
		if cfg.Host != nil {
			snap, tick, err := cfg.Host.Sample(ctx, t0)
			if ctx.Err() != nil {
				// Stopped while sampling: that sample is incomplete
				// (its sources were cancelled), not a tick.
				return nil
			}
			if err != nil {
				return fmt.Errorf("host sample: %w", err)
			}
			f.Snapshot, raw = snap, tick
		}
		f.SampleS = now().Sub(t0).Seconds()
		if err := r.liveCut(&f, raw); err != nil {
			return err
		}
		if err := r.emit(f, yield); err != nil {
			return err
		}
		g.advance(t0, now(), r.Interval())
	}
}

// startWire starts the live capture: the analyzers (one per fanout
// shard), the recording queue, and a pump goroutine per source. stop
// stops the pumps, then flushes the recording and closes the sources.
func (r *Run) startWire(ctx context.Context, start time.Time) (stop func() error) {
	cfg := &r.cfg
	now := cfg.Now
	n := 1 + len(cfg.Fanout)
	acfg := cfg.Analysis
	if n > 1 {
		acfg = shardConfig(acfg, 0, n)
	}
	w := newWireState(acfg)
	w.live, w.name = true, cfg.WireName
	if cfg.Recorder != nil {
		w.rec = newRecordQueue(cfg.Recorder)
		r.rec = w.rec
	}
	w.status = probes.Status{Source: wireSource(cfg.WireName), State: probes.StateOK}
	w.stats, _ = cfg.Wire.(WireStats)
	if sw, ok := cfg.Wire.(StreamWire); ok {
		w.stream.src, w.stream.name = sw, sw.Stream()
	}
	w.a.Begin(start.UnixNano())
	for i, src := range cfg.Fanout {
		sh := &wireShard{a: capture.NewAnalyzer(shardConfig(cfg.Analysis, i+1, n))}
		sh.stats, _ = src.(WireStats)
		sh.a.Begin(start.UnixNano())
		w.more = append(w.more, sh)
	}
	r.wire = w
	pctx, stopPump := context.WithCancel(ctx)
	var pumps sync.WaitGroup
	pumps.Go(func() { w.pump(pctx, 0, cfg.Wire, &w.mu, w.a, w.packet, now) })
	for i, src := range cfg.Fanout {
		sh := w.more[i]
		pumps.Go(func() { w.pump(pctx, i+1, src, &sh.mu, sh.a, sh.a.Packet, now) })
	}
	return func() error {
		// Stop the readers before closing the sources: the frame each
		// holds lives in its source's memory (a zero-copy ring that
		// Close unmaps). ReadPacket returns within the poll timeout.
		stopPump()
		pumps.Wait()
		var err error
		if w.rec != nil {
			// What the readers handed over reaches the file.
			if cerr := w.rec.close(); cerr != nil {
				err = fmt.Errorf("recording: %w", cerr)
			}
		}
		cfg.Wire.Close()
		for _, src := range cfg.Fanout {
			src.Close()
		}
		return err
	}
}

// tickGrid is when the next live tick is due, how many whole intervals
// the last overrun lost, and how far behind its due time next was moved.
type tickGrid struct {
	next    time.Time
	skipped int
	late    time.Duration
}

// advance moves the grid past the tick that started at t0, at n, with
// interval iv. The next tick is due one interval after this one was.
// When this one overran past it, that tick starts at once, says how late
// it is and how many whole intervals were lost beyond it (dropped, as
// time.Ticker drops them), and the ticks after it keep time from when it
// started: catching up on the old grid would fire ticks back to back,
// with near-zero intervals that make every rate spike. A tick that itself
// started late (its timer fired late on a loaded machine) moves the grid
// too: the next is due one interval after it started, not after it was
// due, or the two would be a fraction of an interval apart. Timer jitter
// below a tenth of an interval keeps the grid, so it does not drift.
func (g *tickGrid) advance(t0, n time.Time, iv time.Duration) {
	if t0.Sub(g.next) > iv/10 {
		g.next = t0
	}
	g.next = g.next.Add(iv)
	g.skipped = 0
	if n.After(g.next) {
		g.skipped = int(n.Sub(g.next) / iv)
		g.late = n.Sub(g.next)
		g.next = n
	} else {
		g.late = 0
	}
}

func wireSource(name string) string { return "capture " + name }

// liveCut adds the wire to a live Frame and records the host tick: the
// interval is cut now, under the wire's lock, and the tick is written at
// the same point of the packet stream, so a replay of the recording cuts
// the same intervals.
func (r *Run) liveCut(f *Frame, raw *bundle.Tick) error {
	w := r.wire
	if w == nil {
		if raw != nil && r.cfg.Recorder != nil {
			if f.WireStatus != nil {
				raw.Status = append(slices.Clip(raw.Status), *f.WireStatus)
			}
			if err := r.cfg.Recorder.WriteTick(raw); err != nil {
				return fmt.Errorf("recording: %w", err)
			}
		}
		return nil
	}
	end := r.cfg.Now().UnixNano()
	c, err := r.cutLocked(w, f, raw, end)
	if c != nil {
		// The running analysis is ranked here, after the reader has its
		// lock back: every flow's summary, tens of milliseconds at 65,536.
		f.Wire, f.Interval, f.Packets = w.finish(c)
	}
	return err
}

// cutLocked is liveCut's part under the wire's lock: the cut (nil in a
// warm-up tick) and the tick written at this point of the packet stream.
func (r *Run) cutLocked(w *wireState, f *Frame, raw *bundle.Tick, end int64) (*wireCut, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.link.status(w.status, time.Unix(0, end))
	if st.State == probes.StateOK && st.Detail == "" {
		st.Detail = w.stream.detail(time.Unix(0, end), r.Interval())
	}
	f.WireStatus = &st
	var c *wireCut
	if r.seq >= r.cfg.Warmup {
		// Warm-up ticks are not judged: their wire stays in the next
		// interval, so --once's wire covers both samples' interval.
		c = w.cut(end, r.cfg.Packets, r.cfg.IntervalsOnly)
		c.blind, c.linkDown = w.link.take(time.Unix(0, end)), w.link.why
		c.blindTotal = w.link.totalAt(time.Unix(0, end))
	}
	if raw != nil && w.rec != nil {
		// The recording says how the capture fared, as the live Frame
		// does; the tick goes after the frames analysed before this cut.
		raw.Status = append(slices.Clip(raw.Status), st)
		frames, _ := w.rec.lost()
		raw.Capture = &bundle.CaptureState{KernelDrops: w.dropsTotal, Unrecorded: frames,
			BlindS: w.link.totalAt(time.Unix(0, end)).Seconds(), LinkDown: w.link.why}
		raw.Skipped, raw.LateS = f.Skipped, f.LateS
		if err := w.rec.tick(raw); err != nil {
			return c, fmt.Errorf("recording: %w", err)
		}
	}
	return c, nil
}

// pump feeds ring (0 the first) of the live capture to its analysis
// (packet, under mu) until ctx ends or the source fails; a failure (the
// interface went away) becomes the wire's status, and the analysis of
// what came before stays. While the interface is down the source says so
// once per poll timeout (live.ErrLinkDown): the wire's link watch
// notes when it went down and, at the ring's next packet or timeout,
// when it came back.
//
// With --icrc=auto, a reader that falls behind the wire (its packets are
// more than icrcBehind old when it reads them) verifies the ICRC of one
// packet in icrcSample until it has caught up (icrcCaughtUp): ICRC is
// most of the decoding cost, and a full ring drops packets, which costs
// the PSN analysis more than sampled ICRCs do.
func (w *wireState) pump(ctx context.Context, ring int, src Wire, mu *sync.Mutex, a *capture.Analyzer,
	packet func([]byte, gopacket.CaptureInfo, layers.LinkType), now func() time.Time) {
	sampling, down := false, false
	for n := 0; ctx.Err() == nil; {
		data, ci, link, err := src.ReadPacket()
		if down && (err == nil || errors.Is(err, live.ErrTimeout)) && !linkDown(src) {
			down = false
			w.mu.Lock()
			w.link.cameUp(ring, now())
			w.mu.Unlock()
		}
		var ld *live.LinkDownError
		switch {
		case errors.Is(err, live.ErrTimeout):
			if ring == 0 && w.stream.name != "" {
				w.mu.Lock()
				if w.stream.idleSince.IsZero() {
					w.stream.idleSince = now()
				}
				w.mu.Unlock()
			}
			continue
		case errors.As(err, &ld):
			down = true
			w.mu.Lock()
			w.link.wentDown(ring, ld.Why, now())
			w.mu.Unlock()
			continue
		case err == io.EOF:
			return
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			w.mu.Lock()
			w.status = probes.Status{Source: w.status.Source, State: probes.StateFailed,
				Detail: "capture stopped: " + err.Error()}
			w.stopped = err
			w.mu.Unlock()
			return
		}
		mu.Lock()
		if ring == 0 {
			w.stream.idleSince = time.Time{} // mu is w.mu
		}
		if n++; n%icrcCheckEvery == 0 || n == 1 {
			lag := now().Sub(ci.Timestamp)
			if ring == 0 && w.stream.name != "" {
				// A stream's packets may be old for reasons other than
				// a reader behind (another host's clock, a file played
				// into the pipe): its ICRCs are all verified.
				w.stream.lag, w.stream.lagKnown = lag, true
				lag = 0
			}
			switch {
			case !sampling && lag > icrcBehind:
				sampling = true
				a.SampleICRC(icrcSample)
			case sampling && lag < icrcCaughtUp:
				sampling = false
				a.SampleICRC(1)
			}
		}
		packet(data, ci, link)
		mu.Unlock()
	}
}

// linkDown reports whether a source that knows its interface's state
// (live.Source) still finds it down: frames from before the fall
// can be read after it.
func linkDown(src Wire) bool {
	l, ok := src.(interface{ LinkDown() bool })
	return ok && l.LinkDown()
}

// ICRC sampling of a live capture that falls behind (--icrc=auto): the
// reader's lag is looked at every icrcCheckEvery packets. TPACKET_V3
// hands a block over up to 50 ms after its first frame, so a lag below
// that is the ring's normal latency.
const (
	icrcCheckEvery = 64
	icrcBehind     = 200 * time.Millisecond
	icrcCaughtUp   = 60 * time.Millisecond
	icrcSample     = 16
)
