package rules

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"
)

const (
	// DefaultMaxResolved is the cap on resolved findings when
	// Engine.MaxResolved is 0.
	DefaultMaxResolved = 10_000
	// DefaultTimerGrace is the number of consecutive frames a `for` timer
	// survives without its object when Engine.TimerGrace is 0.
	DefaultTimerGrace = 1
	// LiveRetention and LiveMaxResolved are the suggested policy of a live
	// run: what resolved in the last day, at most a thousand findings.
	LiveRetention   = 24 * time.Hour
	LiveMaxResolved = 1_000
)

// Engine evaluates a pack frame after frame, remembering what has held
// for how long. Not safe for concurrent use.
//
// Its memory is bounded whatever the run's length, in frame time (the
// frames' Time; the engine never reads the clock):
//   - a `for` timer lives while its condition holds; when its object is
//     not evaluated (gone from the frame, or its data missing) the timer
//     survives TimerGrace frames, so one missed sample does not restart
//     it, and is then dropped;
//   - a finding is active while its condition holds; once resolved it is
//     kept, so that a replay reports what happened, until it is older
//     than Retention (when set) or more than MaxResolved resolved findings
//     are kept, the ones that resolved first going first. Result.Forgotten
//     counts them.
//
// Active findings are never forgotten: they are bounded by the frame.
type Engine struct {
	pack *Pack
	// IgnoreFor makes every rule fire as soon as its condition holds: for
	// one-shot checks, where the sampling interval is the only history.
	IgnoreFor bool
	// Retention forgets a resolved finding whose condition last held more
	// than Retention (frame time) before the current frame. 0: kept, up to
	// MaxResolved (a replay, a check). Live: LiveRetention.
	Retention time.Duration
	// MaxResolved caps the resolved findings kept; past it, those resolved
	// longest ago are forgotten first. 0 means DefaultMaxResolved; a
	// negative value keeps none. Live: LiveMaxResolved.
	MaxResolved int
	// TimerGrace is how many consecutive frames a `for` timer survives
	// without its object being evaluated: counted in frames, not seconds,
	// because a missed sample is one frame whatever the interval (250 ms
	// recordings, 1 s live, --interval 1m, replays with gaps). 0 means
	// DefaultTimerGrace (1: one missed sample keeps the timer, a second
	// drops it); negative drops it at the first miss.
	TimerGrace int

	start time.Time // the first frame's time

	machine vm.VM       // reused: one allocation less per evaluation
	memo    qpMemo      // a qp-scope condition's answers in this frame
	failed  flowFailure // a flow-scope condition's error in this frame
	cond    portCond    // evaluates port and priority conditions (portcond.go)
	// condErrs are expr's errors where port and priority conditions
	// fail, by the operation and its operands' types.
	condErrs map[condFail]error
	// slots are the params of the flow-scope condition slotsFor in frame
	// slotsAt, as its quick test reads them.
	slots    []paramSlot
	slotsFor *Variant
	slotsAt  uint64
	text     bytes.Buffer // evidence is rendered here
	frame    uint64       // frames evaluated
	// timers are the `for` timers by variant key, then object id; only
	// conditions that hold and must hold for some time have one.
	timers map[string]map[string]timer
	found  map[string]*entry // by "rule|scope|object"
	order  []*entry          // first-fired order; forgotten entries stay as holes until compacted
	holes  int
	active []*entry // fired in the last frame
	fired  []*entry // firing in this frame (reused)
	queue  []queued // resolved entries, in the order they resolved
	stale  int      // queue items whose entry fired again
	nres   int      // resolved entries kept
	forgot uint64
}

type timer struct {
	since time.Time // condition true since
	seen  uint64    // last frame that evaluated it true
}

// entry is one finding the engine keeps.
type entry struct {
	key   string
	f     Finding
	frame uint64 // last frame it fired in
	gen   uint64 // bumped each time it resolves
	gone  bool
	// evFor is the variant and QP f.Evidence was rendered for, when its
	// template reads only the QP (evidence.go); evFor.v is nil otherwise.
	evFor evidenceOf
}

type evidenceOf struct {
	v  *Variant
	qp qpMemoKey
}

type queued struct {
	e   *entry
	gen uint64
}

// NewEngine returns an engine for pack.
func NewEngine(p *Pack) *Engine {
	return &Engine{pack: p, timers: map[string]map[string]timer{}, found: map[string]*entry{}}
}

// Start is the time of the first frame the engine evaluated (zero before).
func (e *Engine) Start() time.Time { return e.start }

// Evaluate runs every rule on f. At fleet size (16 ports, 10,000 QPs) it
// costs about what the ports cost: a healthy QP is decided without
// running its conditions or allocating (memo.go), and a QP that keeps
// firing unchanged keeps its evidence (evidence.go). BenchmarkEvaluatePack
// and TestEvaluateAllocsBounded hold it there. A capture's flows are
// decided the same way, most without running their conditions
// (flowfast.go, BenchmarkEvaluatePackFlows).
func (e *Engine) Evaluate(f Frame) Result {
	e.frame++
	if e.frame == 1 {
		e.start = f.Time
	}
	hostv := hostEnv(f)
	host := &hostv
	wire := wireEnv(f)
	res := Result{}
	byScope := map[Scope]*objectSet{}
	for _, r := range e.pack.Rules {
		state := RuleState{Rule: r.ID, State: "cannot_evaluate"}
		var whys []string
		for _, v := range r.variants() {
			objs := byScope[v.Scope]
			if objs == nil {
				objs = objects(f, v.Scope, host, wire)
				byScope[v.Scope] = objs
			}
			if objs.why != "" {
				whys = append(whys, string(v.Scope)+": "+objs.why)
				continue
			}
			timed := !e.IgnoreFor && v.wait > 0
			timers := e.timers[v.key]
			evaluated := 0
			var lastErr error
			memo := v.qpReads&qpMemoizable != 0
			if memo {
				e.memo.reset()
			}
			e.failed = flowFailure{armed: v.flowFails != nil && objs.base != nil && len(objs.flows) > 0 && v.flowFails(objs.base)}
			it := objectIter{s: objs}
			for {
				if v.qpQuick != nil {
					// Most QPs are decided false by the quick test alone:
					// passed over without making their object.
					evaluated += it.skipFalseQPs(v.qpQuick, timers)
				}
				o := it.next()
				if o == nil {
					break
				}
				out, err := e.run(v, o, r.Params, memo)
				if err != nil {
					lastErr = err
					continue
				}
				evaluated++
				if out != true {
					if len(timers) > 0 {
						delete(timers, o.id())
					}
					continue
				}
				id := o.id()
				if timed {
					if timers == nil {
						timers = map[string]timer{}
						e.timers[v.key] = timers
					}
					t, ok := timers[id]
					if !ok {
						t.since = f.Time
					}
					t.seen = e.frame
					timers[id] = t
					if f.Time.Sub(t.since) < v.wait {
						if state.State != "firing" {
							state.State = "pending"
						}
						continue
					}
				}
				state.State = "firing"
				e.fire(v.key+"|"+id, r, v, o, f.Time)
			}
			switch {
			case evaluated > 0 && state.State == "cannot_evaluate":
				state.State = "ok"
			case evaluated == 0 && objs.len() > 0:
				whys = append(whys, string(v.Scope)+": "+missingData(lastErr, host))
			}
		}
		if state.State == "cannot_evaluate" {
			state.Detail = strings.Join(whys, "; ")
		}
		res.Rules = append(res.Rules, state)
	}
	e.expireTimers()
	e.resolve()
	e.forget(f.Time)
	res.Findings = e.findings(f)
	res.Forgotten = e.forgot
	return res
}

// run evaluates the condition of v on o. On a QP it first tries the fast
// paths (memo.go): the condition's plain tests, then its answer on a QP
// that looks the same to it (memo: v's condition can be memoized).
func (e *Engine) run(v *Variant, o *object, params map[string]float64, memo bool) (any, error) {
	if o.qp != nil && v.qpQuick != nil {
		if t := v.qpQuick(o.qp, o.events); t != unknown {
			return t == yes, nil
		}
	}
	if v.cond != nil {
		if out, err, ok := e.runCond(v, o.prepare(params)); ok {
			return out, err
		}
	}
	if o.flow != nil && e.failed.armed {
		// Fails on every flow of the frame (hostLetFails): the error of
		// the first.
		if e.failed.have {
			return e.failed.ans.out, e.failed.ans.err
		}
		out, err := e.machine.Run(v.fast, o.prepare(params))
		if err != nil {
			e.failed.have, e.failed.ans = true, memoAnswer{out, err}
		} else {
			e.failed.armed = false // not as expected: run them all
		}
		return out, err
	}
	if o.flow != nil && v.flowQuick != nil {
		if e.slotsFor != v || e.slotsAt != e.frame {
			e.slots, e.slotsFor, e.slotsAt = bindParams(e.slots, v.flowParams, params), v, e.frame
		}
		if t := v.flowQuick(o.flow, o.peer, o.base, e.slots); t != unknown {
			return t == yes, nil
		}
	}
	if memo {
		if k, ok := o.memoKey(v.qpReads); ok {
			if a, ok := e.memo.get(k); ok {
				return a.out, a.err
			}
			out, err := e.machine.Run(v.fast, o.prepare(params))
			e.memo.put(k, memoAnswer{out, err})
			return out, err
		}
	}
	return e.machine.Run(v.fast, o.prepare(params))
}

// fire records that the condition of v holds on o: a new finding, one that
// fires again after it resolved (a new occurrence, in its old place), or
// an active one still firing.
func (e *Engine) fire(k string, r *Rule, v *Variant, o *object, now time.Time) {
	en := e.found[k]
	switch {
	case en == nil:
		en = &entry{key: k}
		e.found[k] = en
		e.order = append(e.order, en)
		fallthrough
	case en.f.Resolved:
		if en.f.Resolved {
			e.nres--
			e.stale++ // its queue item
		}
		objs := o.keys()
		vars := e.varValues(r, o)
		en.f = Finding{Rule: r.ID, Severity: r.Severity, Title: r.Title, Cause: r.Cause,
			Confirm: renderCommands(r.Confirm, objs, vars), Fix: renderCommands(r.Fix, objs, vars), Docs: r.Docs,
			Objects: objs, FirstSeen: now}
		en.evFor = evidenceOf{}
	}
	en.f.LastSeen = now
	e.setEvidence(en, r, v, o)
	if en.frame != e.frame {
		en.frame = e.frame
		e.fired = append(e.fired, en)
	}
}

// expireTimers drops the timers of objects not evaluated true in the last
// TimerGrace frames (an object evaluated false lost its timer already).
func (e *Engine) expireTimers() {
	grace := uint64(DefaultTimerGrace)
	switch {
	case e.TimerGrace > 0:
		grace = uint64(e.TimerGrace)
	case e.TimerGrace < 0:
		grace = 0
	}
	for k, ts := range e.timers {
		for id, t := range ts {
			if e.frame-t.seen > grace {
				delete(ts, id)
			}
		}
		if len(ts) == 0 {
			delete(e.timers, k) // a map keeps its peak size: let it go
		}
	}
}

// resolve marks the findings that were active and did not fire in this
// frame as resolved and queues them (in the order they fired in the
// previous frame: deterministic, as the frame's objects are).
func (e *Engine) resolve() {
	for _, en := range e.active {
		if en.frame == e.frame {
			continue
		}
		en.f.Resolved = true
		en.gen++
		e.nres++
		e.queue = append(e.queue, queued{en, en.gen})
	}
	clear(e.active)
	e.active, e.fired = e.fired, e.active[:0]
}

// forget drops resolved findings past Retention or beyond MaxResolved,
// those that resolved first going first (the queue is in that order, and
// a finding's LastSeen is the frame before it resolved).
func (e *Engine) forget(now time.Time) {
	max := e.MaxResolved
	switch {
	case max == 0:
		max = DefaultMaxResolved
	case max < 0:
		max = 0
	}
	n := 0
	for ; n < len(e.queue); n++ {
		q := e.queue[n]
		if q.e.gen != q.gen || !q.e.f.Resolved {
			e.stale--
			continue
		}
		if e.nres <= max && (e.Retention <= 0 || now.Sub(q.e.f.LastSeen) <= e.Retention) {
			break
		}
		q.e.gone = true
		delete(e.found, q.e.key)
		e.holes++
		e.nres--
		e.forgot++
	}
	clear(e.queue[:n])
	e.queue = e.queue[n:]
	// Items of findings that fired again stay queued until they reach the
	// front; drop them when they are most of the queue.
	if e.stale > len(e.queue)/2 {
		kept := make([]queued, 0, len(e.queue)-e.stale)
		for _, q := range e.queue {
			if q.e.gen == q.gen && q.e.f.Resolved {
				kept = append(kept, q)
			}
		}
		e.queue, e.stale = kept, 0
	}
	if e.holes > len(e.order)/2 {
		e.order = slices.DeleteFunc(e.order, func(en *entry) bool { return en.gone })
		e.holes = 0
		// Maps keep their peak size; rebuild it at the size it has now.
		found := make(map[string]*entry, len(e.order))
		for _, en := range e.order {
			found[en.key] = en
		}
		e.found = found
	}
}

// findings lists what the engine keeps: active first, then by severity,
// in the order they first fired.
func (e *Engine) findings(f Frame) []Finding {
	var out []Finding
	for _, en := range e.order {
		if !en.gone {
			out = append(out, en.f)
		}
	}
	if len(out) == 0 {
		return nil
	}
	// Active first (this frame is "now"), causes above what they explain.
	return e.pack.Group(out, GroupOptions{Live: true, Peers: flowPeers(f, out), Start: e.start})
}

// stateSize reports how much the engine keeps: timers, findings (kept and
// holes in the order), queued resolutions. For tests.
func (e *Engine) stateSize() (timers, found, order, queue int) {
	for _, ts := range e.timers {
		timers += len(ts)
	}
	return timers, len(e.found), len(e.order), len(e.queue)
}

// missingData turns an evaluation error into words: nearly always a
// counter or setting this host does not have.
func missingData(err error, host *HostEnv) string {
	if err == nil {
		return "no data"
	}
	msg := err.Error()
	if strings.Contains(msg, "nil") {
		if host.HasSnapshot && host.IntervalSec == 0 {
			// One reading (a first sample, a single saved output): no
			// counter has a rate yet, whatever the host has.
			return "the data this rule needs is not available here: this is a single reading, and rates need a second one of the same counters (or a counter, setting or source this host lacks)"
		}
		return "the data this rule needs is not available here (a counter, setting or source this host lacks)"
	}
	return msg
}

// flowPeers maps each flow of the frame's capture that findings name
// (Group looks up no other: related) to its peer flow. A capture can
// hold 100,000 flows, and few have findings.
func flowPeers(f Frame, findings []Finding) map[int]int {
	if f.Wire == nil {
		return nil
	}
	var named map[int]bool
	for i := range findings {
		if id, ok := findings[i].Objects["flow"]; ok {
			if named == nil {
				named = map[int]bool{}
			}
			n, _ := strconv.Atoi(id) // as related reads it
			named[n] = true
		}
	}
	m := map[int]int{}
	if named == nil {
		return m
	}
	for i := range f.Wire.Flows {
		if p := f.Wire.Flows[i].PeerID; p != 0 && named[f.Wire.Flows[i].ID] {
			m[f.Wire.Flows[i].ID] = p
		}
	}
	return m
}
