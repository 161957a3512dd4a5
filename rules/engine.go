package rules

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
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
	// last, tick: the previous frame's time and the longest step between
	// two frames (a cause may be stamped up to one tick after its effect).
	last time.Time
	tick time.Duration
	// wireStart: the first packet of the first frame with a capture.
	wireStart time.Time
	// ctx: what the frame says without doubt for commands (frameContext),
	// ctxGen bumped when it changes; peers the run's peer addresses.
	ctx    map[string]string
	ctxGen uint64
	peers  peerSet

	env *Env       // what conditions run on, its functions bound once
	idx *flowIndex // the pack's flow on lists (flowindex.go)
	// counters are the ports' counter sets by place, indexed in frame
	// counterFrame (objects.go).
	counters     []counterSet
	counterFrame uint64
	// qpCur and qpPrev are the QPs of the last two frames that had any,
	// qpGen numbers those frames, qpSame is reused for objectSet.same,
	// and qpAns are the answers of conditions that read only their QP,
	// by variant, at the QP's place (qpmemo.go).
	qpCur, qpPrev []QPEnv
	qpSame        []bool
	qpGen         uint64
	qpAns         map[*Variant]*qpAnswers
	// failures are the evaluation errors of conditions, by variant key
	// (the last of each): a condition that fails instead of saying what
	// it needs (known, need) is slow and its reason vague. The bundled
	// pack has none on any fixture (tests).
	failures map[string]error
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
	// open: f's commands still hold placeholders; vars and ctxGen are what
	// they were rendered with, so that a frame that knows more (the peer
	// once the capture has seen it) fills them in.
	open   bool
	vars   map[string]string
	ctxGen uint64
}

type evidenceOf struct {
	v  *Variant
	qp QPFields
}

type queued struct {
	e   *entry
	gen uint64
}

// NewEngine returns an engine for pack.
func NewEngine(p *Pack) *Engine {
	e := &Engine{pack: p, env: newEnv(), timers: map[string]map[string]timer{}, found: map[string]*entry{},
		qpAns: map[*Variant]*qpAnswers{}}
	e.idx = newFlowIndex(p)
	return e
}

// Start is the time of the first frame the engine evaluated (zero before).
func (e *Engine) Start() time.Time { return e.start }

// Evaluate runs every rule on f. Nothing runs that need not: a variant
// whose requires does not hold is passed over whole, a flow its on list
// rules out is passed over with one AND (flowindex.go), a QP that did not
// change keeps the answer of a condition that reads only it (qpmemo.go),
// and a QP that keeps firing unchanged keeps its evidence (evidence.go).
// BenchmarkEvaluatePackMoving, BenchmarkEvaluatePackFlows and
// TestEvaluateAllocsBounded hold it there.
func (e *Engine) Evaluate(f Frame) Result {
	e.frame++
	if e.frame == 1 {
		e.start = f.Time
	}
	if !e.last.IsZero() && f.Time.Sub(e.last) > e.tick {
		e.tick = f.Time.Sub(e.last)
	}
	e.last = f.Time
	if f.Wire != nil && e.wireStart.IsZero() {
		e.wireStart, _ = time.Parse(time.RFC3339Nano, f.Wire.FirstTS)
	}
	if ctx := frameContext(f, &e.peers); !maps.Equal(ctx, e.ctx) {
		e.ctx = ctx
		e.ctxGen++
	}
	hostv := hostEnv(f)
	host := &hostv
	e.env.Host, e.env.Wire = host, wireEnv(f) // load sets the rest
	res := Result{}
	byScope := map[Scope]*objectSet{}
	for _, r := range e.pack.Rules {
		state := RuleState{Rule: r.ID, State: "cannot_evaluate"}
		var whys []string
		for _, v := range r.variants() {
			objs := byScope[v.Scope]
			if objs == nil {
				objs = e.objects(f, v.Scope, host)
				byScope[v.Scope] = objs
			}
			if objs.why != "" {
				whys = append(whys, string(v.Scope)+": "+objs.why)
				continue
			}
			if !e.requires(v, r.Params) {
				whys = append(whys, string(v.Scope)+": "+missingData(nil, host, true))
				continue
			}
			if objs.flows != nil {
				e.idx.index(objs.flows, objs.peers, e.frame)
			}
			vr := variantRun{e: e, r: r, v: v, now: f.Time, state: &state}
			vr.timers = e.timers[v.key]
			vr.timed = !e.IgnoreFor && v.wait > 0
			vr.all(objs)
			switch {
			case vr.evaluated > 0 && state.State == "cannot_evaluate":
				state.State = "ok"
			case vr.evaluated == 0 && objs.len() > 0:
				whys = append(whys, string(v.Scope)+": "+vr.missing(host))
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
	// The frame's flows are its caller's: holding them until the next
	// frame would keep a summary of up to 65,536 flows alive while the
	// caller builds the next (or the whole capture's).
	e.idx.release()
	return res
}

// fire records that the condition of v holds on o, as it has since since
// (its for: began then): a new finding, one that fires again after it
// resolved (a new occurrence, in its old place), or an active one still
// firing. A finding is first seen when its condition began to hold, as
// Prometheus's activeAt, not when its for: ran out: a cause that needs
// 30 s of evidence began before what it explains.
func (e *Engine) fire(k string, r *Rule, v *Variant, o *object, now, since time.Time) {
	en := e.found[k]
	switch {
	case en == nil:
		en = &entry{key: k}
		e.found[k] = en
		e.order = append(e.order, en)
		fallthrough
	case en.f.Resolved:
		prev := en.f
		if prev.Resolved {
			e.nres--
			e.stale++ // its queue item
		}
		objs := o.keys()
		vars := e.varValues(r, o)
		nameByVars(objs, vars)
		en.f = Finding{Rule: r.ID, Severity: r.Severity, Title: r.Title, Cause: r.Cause, Docs: r.Docs,
			Objects: objs, FirstSeen: since}
		en.vars = vars
		e.renderCommands(en, r)
		if prev.Resolved {
			// Again: the first occurrence stays what check reports first
			// (the GID removal that killed the QP, not the last change).
			en.f.FirstSeen, en.f.Occurrences, en.f.LatestSince = prev.FirstSeen, max(prev.Occurrences, 1)+1, since
		}
		en.evFor = evidenceOf{}
	}
	en.f.LastSeen = now
	if en.open && en.ctxGen != e.ctxGen {
		e.renderCommands(en, r)
	}
	e.setEvidence(en, r, v, o)
	if en.frame != e.frame {
		en.frame = e.frame
		e.fired = append(e.fired, en)
	}
}

// renderCommands renders en's confirm and fix lines with what the frame
// knows now, and notes whether placeholders are left.
func (e *Engine) renderCommands(en *entry, r *Rule) {
	en.f.Confirm = renderCommands(r.Confirm, en.f.Objects, en.vars, e.ctx)
	en.f.Fix = renderCommands(r.Fix, en.f.Objects, en.vars, e.ctx)
	en.ctxGen = e.ctxGen
	en.open = slices.ContainsFunc(en.f.Confirm, placeholder.MatchString) || slices.ContainsFunc(en.f.Fix, placeholder.MatchString)
	if !en.open {
		en.vars = nil
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
	return e.pack.Group(out, GroupOptions{Live: true, Peers: flowPeers(f, out), Start: e.start, Slack: e.tick,
		CaptureStart: e.wireStart})
}

// stateSize reports how much the engine keeps: timers, findings (kept and
// holes in the order), queued resolutions. For tests.
func (e *Engine) stateSize() (timers, found, order, queue int) {
	for _, ts := range e.timers {
		timers += len(ts)
	}
	return timers, len(e.found), len(e.order), len(e.queue)
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
