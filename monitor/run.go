package monitor

import (
	"context"
	"errors"
	"iter"
	"sync/atomic"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/qos"
	"github.com/rdmatop/rdmatop/rules"
)

// Run is one run of the pipeline. Frames drives it once; Result tells its
// conclusion afterwards. SetInterval may be called from any goroutine.
type Run struct {
	cfg      Config
	pack     *rules.Pack
	engine   *rules.Engine // nil until the pack is ready (ready)
	loading  *packLoad     // the built-in pack compiling, when cfg.Pack is nil
	interval atomic.Int64  // live tick, nanoseconds

	wire *wireState // nil until the run has a capture
	// ledger is what a recording's ticks say its capture missed.
	ledger captureLedger
	rec    *recordQueue // a live recording's writer, nil otherwise
	events eventLog
	// warmEvents: the host events of warm-up Frames, for the first
	// judged Frame (emit).
	warmEvents []probes.Event

	seq      int
	prevTime time.Time
	lastSnap *probes.Snapshot
	lastRes  rules.Result
	lastTime time.Time
	err      error         // the tape's damage, after which the run stopped
	step     time.Duration // a capture timeline's interval
	started  bool
	ended    bool
}

// New returns a run of cfg. It takes ownership of cfg's Wire and Tape:
// they are closed when the run ends.
func New(cfg Config) (*Run, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	r := &Run{cfg: cfg}
	if cfg.Pack != nil {
		r.usePack(cfg.Pack)
	} else {
		r.loading = loadPack(rules.Default)
	}
	r.interval.Store(int64(cfg.Interval))
	return r, nil
}

// Interval returns the live tick.
func (r *Run) Interval() time.Duration { return time.Duration(r.interval.Load()) }

// SetInterval changes the live tick from the next one on (bounded to
// [10ms, 1h]).
func (r *Run) SetInterval(d time.Duration) {
	r.interval.Store(int64(min(max(d, 10*time.Millisecond), time.Hour)))
}

// Frames runs the pipeline and yields its Frames in order. A non-nil
// error ends the sequence: a failed recorder or host, or damage in the
// tape (everything before it was yielded; Result still concludes). Live,
// the run goes on until ctx is cancelled or Ticks Frames were yielded; the
// consumer should keep up or hand Frames to a Latest. Frames can be ranged
// over once.
func (r *Run) Frames(ctx context.Context) iter.Seq2[Frame, error] {
	return func(yield func(Frame, error) bool) {
		if r.started {
			yield(Frame{}, errors.New("monitor: a run's Frames can be ranged over once"))
			return
		}
		r.started = true
		defer func() { r.ended = true }()
		var err error
		if r.cfg.Tape != nil {
			err = r.replay(ctx, yield)
		} else {
			err = r.live(ctx, yield)
		}
		if err != nil && !errors.Is(err, errStop) && ctx.Err() == nil {
			yield(Frame{}, err)
		}
	}
}

// errStop ends a run because the consumer stopped or Ticks were reached.
var errStop = errors.New("stop")

// emit judges f with the rules and hands it to the consumer.
func (r *Run) emit(f Frame, yield func(Frame, error) bool) error {
	f.Mode, f.Seq, f.Source = r.cfg.Mode, r.seq, r.cfg.Source
	if !r.prevTime.IsZero() {
		f.IntervalS = f.Time.Sub(r.prevTime).Seconds()
	}
	if l, ok := r.cfg.Tape.(TickCounter); ok {
		f.Total = l.Len()
	}
	if f.WireStatus != nil && f.Snapshot != nil {
		f.Snapshot.Status = append(f.Snapshot.Status, *f.WireStatus)
	}
	f.QoS = qos.TableOf(configOf(f.Snapshot), f.Wire)
	var host []probes.Event
	if f.Snapshot != nil {
		host = f.Snapshot.Events
	}
	f.Recent = r.events.add(host, wireEvents(f.Interval))
	f.Findings = []rules.Finding{}
	if err := r.ready(); err != nil {
		return err
	}
	// Warm-up Frames are not judged: what happened in them (a job's NCCL
	// warnings read at the start, kernel log lines) is judged with the
	// first Frame that is, as their wire is (cutLocked).
	switch {
	case r.seq < r.cfg.Warmup && f.Snapshot != nil:
		r.warmEvents = append(r.warmEvents, f.Snapshot.Events...)
	case r.warmEvents != nil && f.Snapshot != nil:
		snap := *f.Snapshot
		snap.Events = append(r.warmEvents, snap.Events...)
		f.Snapshot, r.warmEvents = &snap, nil
	}
	if r.seq >= r.cfg.Warmup {
		res := r.engine.Evaluate(rules.Frame{Time: f.Time, Snapshot: f.Snapshot, Wire: f.Interval,
			Live: r.cfg.Mode == ModeLive})
		f.Findings, f.Rules = res.Findings, res.Rules
		if f.Findings == nil {
			f.Findings = []rules.Finding{}
		}
		r.lastRes = res
	}
	r.prevTime, r.lastTime = f.Time, f.Time
	if f.Snapshot != nil {
		r.lastSnap = f.Snapshot
	}
	r.seq++
	if !yield(f, nil) {
		return errStop
	}
	if r.cfg.Ticks > 0 && r.seq >= r.cfg.Ticks {
		return errStop
	}
	return nil
}

// Result is a run's conclusion, for reports and check: the last host
// snapshot, the whole capture's analysis and the findings of the run.
type Result struct {
	Frames   int
	Time     time.Time        // of the last Frame
	Snapshot *probes.Snapshot // the last host snapshot, nil without host data
	// Wire is the analysis of everything captured (nil without a capture),
	// described by the tape (file, format) or the live source.
	Wire *capture.Summary
	// Findings: the host findings of the run tick by tick (every rule's
	// `for` honoured, resolved ones kept) and the capture findings of the
	// whole capture, with first and last seen taken from the ticks.
	Findings []rules.Finding
	Rules    []rules.RuleState
	// Forgotten counts resolved findings the run's rules dropped to stay
	// bounded (see rules.Engine).
	Forgotten uint64
	// Step is the interval a capture was cut into (0 when cut at host
	// ticks or live).
	Step time.Duration
	// Err is the damage in the recording that stopped the run, if any.
	Err error
}

// Result returns the run's conclusion. It evaluates the capture rules once
// on the whole capture, as `rdmatop check FILE` always has: a capture's
// findings do not depend on where the timeline was cut.
func (r *Run) Result() Result {
	if err := r.ready(); err != nil {
		return Result{Frames: r.seq, Err: err, Findings: []rules.Finding{}}
	}
	res := Result{Frames: r.seq, Time: r.lastTime, Snapshot: r.lastSnap, Err: r.err,
		Findings: r.lastRes.Findings, Rules: r.lastRes.Rules, Forgotten: r.lastRes.Forgotten, Step: r.step}
	if w := r.wire; w != nil {
		w.mu.Lock()
		res.Wire = w.whole()
		w.describe(res.Wire)
		if damaged(w.stopped) && res.Err == nil {
			// A stream that was no capture, or broke off inside a record:
			// everything below describes what came before.
			res.Err = w.stopped
			res.Wire.Error = w.stopped.Error()
		}
		w.mu.Unlock()
		if r.ledger.known {
			r.ledger.total().apply(res.Wire)
		}
		if d, ok := r.cfg.Tape.(Describer); ok {
			d.Describe(res.Wire)
		}
		if r.err != nil {
			// Everything above describes what came before the damage.
			res.Wire.Error = r.err.Error()
		}
		if res.Time.IsZero() {
			res.Time = lastTS(res.Wire)
		}
		once := rules.NewEngine(r.pack)
		once.IgnoreFor = true
		whole := once.Evaluate(rules.Frame{Time: res.Time, Snapshot: r.lastSnap, Wire: res.Wire,
			Live: r.cfg.Mode == ModeLive})
		res.Findings = mergeFindings(r.lastRes.Findings, whole.Findings, res.Wire, r.tickLen())
		r.engine.FillCommands(res.Findings, rules.Frame{Snapshot: r.lastSnap, Wire: res.Wire})
		res.Rules = mergeRuleStates(r.lastRes.Rules, whole.Rules)
	}
	// Causes first, what they explain under them. A replay tells what
	// happened: findings rank the same whether or not they resolved.
	res.Findings = r.pack.Group(res.Findings, rules.GroupOptions{Live: r.cfg.Mode == ModeLive, Peers: peersOf(res.Wire),
		Start: r.engine.Start(), Slack: r.tickLen(), CaptureStart: firstTS(res.Wire)})
	if res.Findings == nil {
		res.Findings = []rules.Finding{}
	}
	return res
}

// tickLen is how long a tick of the run lasts: the capture timeline's
// step, or the live or recorded interval.
func (r *Run) tickLen() time.Duration {
	if r.step > 0 {
		return r.step
	}
	return r.Interval()
}

// firstTS is when the capture began (zero without one).
func firstTS(s *capture.Summary) time.Time {
	if s == nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, s.FirstTS)
	return t
}

func lastTS(s *capture.Summary) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s.LastTS)
	return t
}

// RecordingLost returns the captured frames and host ticks a live
// recording left out because the disk fell behind (each later tick of the
// recording says so too); zero when nothing was lost or nothing recorded.
func (r *Run) RecordingLost() (frames, ticks uint64) {
	if r.rec == nil {
		return 0, 0
	}
	return r.rec.lost()
}

// Close releases the run's sources when Frames was never ranged over
// (Frames closes them itself when it ends).
func (r *Run) Close() error {
	if r.started {
		return nil
	}
	r.started, r.ended = true, true
	if r.cfg.Tape != nil {
		return r.cfg.Tape.Close()
	}
	var err error
	if r.cfg.Wire != nil {
		err = r.cfg.Wire.Close()
	}
	for _, w := range r.cfg.Fanout {
		w.Close()
	}
	return err
}

// Tape returns the run's tape (nil live): a front end asks it for what it
// knows of the file (a recording's header).
func (r *Run) Tape() Tape { return r.cfg.Tape }

// configOf is s's configuration, nil without a snapshot.
func configOf(s *probes.Snapshot) *probes.Config {
	if s == nil {
		return nil
	}
	return &s.Config
}
