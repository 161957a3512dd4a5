package rules

import (
	"strings"
	"time"

	"github.com/rdmatop/rdmatop/capture"
)

// One variant of a rule evaluated on the objects of one frame: what its
// condition answers on each object (asked, kept from the previous frame,
// or ruled out by its on list) and what each answer does to the
// variant's timers and findings.

// requires reports whether v's requires holds on the frame (or v has
// none): where it does not, the data v needs is not there.
func (e *Engine) requires(v *Variant, params map[string]float64) bool {
	if v.requires == nil {
		return true
	}
	e.load(&object{}, params)
	out, err := v.requires(e.env)
	return err == nil && out == true && !e.env.unknown
}

// load makes the engine's Env show o with params.
func (e *Engine) load(o *object, params map[string]float64) *Env {
	env := e.env
	env.Port, env.Prio, env.QP, env.Flow, env.Peer, env.counters = o.port, o.prio, o.qp, o.flow, o.peer, o.counters
	env.Params, env.unknown = params, false
	return env
}

// answer is what a condition said on an object.
type answer int8

const (
	unasked answer = iota // not evaluated (the QP answers' zero value)
	no
	yes
	unknown // known() found data missing, or the condition failed
)

// ask runs v's condition on o.
func (e *Engine) ask(v *Variant, o *object, params map[string]float64) (answer, error) {
	env := e.load(o, params)
	out, err := v.program(env)
	switch {
	case err != nil:
		return unknown, err
	case env.unknown:
		return unknown, nil
	case out == true:
		return yes, nil
	}
	return no, nil
}

// variantRun is one variant evaluated on the objects of one frame.
type variantRun struct {
	e         *Engine
	r         *Rule
	v         *Variant
	now       time.Time
	state     *RuleState
	timers    map[string]timer
	timed     bool
	evaluated int
	lastErr   error // the last evaluation error, for the reason
	unknowns  int   // objects where known() found data missing
}

// all evaluates the variant on every object of s.
func (vr *variantRun) all(s *objectSet) {
	e, v := vr.e, vr.v
	var o object // reused: one object per run, not per QP or flow
	if len(s.qps) > 0 {
		memo := e.qpMemo(v, s)
		for i := range s.qps {
			o = object{qp: &s.qps[i], srcQP: &s.src[i]}
			a, err := memo.reuse(i, s)
			if a == unasked {
				a, err = e.ask(v, &o, vr.r.Params)
				memo.keep(i, a, err)
			}
			vr.decided(a, &o, err)
		}
	}
	on := e.idx.check(v)
	for i := range s.flows {
		if e.idx.skip(&on, i, s.peers[i]) {
			vr.evaluated++
			vr.dropTimer(&s.flows[i])
			continue
		}
		o = object{flow: &s.flows[i]}
		if p := s.peers[i]; p >= 0 {
			o.peer = &s.flows[p]
		}
		a, err := e.ask(v, &o, vr.r.Params)
		vr.decided(a, &o, err)
	}
	for i := range s.objs {
		a, err := e.ask(v, &s.objs[i], vr.r.Params)
		vr.decided(a, &s.objs[i], err)
	}
}

// dropTimer drops the timer of a flow its on list ruled out.
func (vr *variantRun) dropTimer(fl *capture.FlowSummary) {
	if len(vr.timers) > 0 {
		o := object{flow: fl}
		delete(vr.timers, o.id())
	}
}

// decided does what an answer on o calls for: a false one drops o's
// timer; a true one starts or checks it and fires.
func (vr *variantRun) decided(a answer, o *object, err error) {
	switch a {
	case unknown:
		if err != nil {
			vr.lastErr = err
			if vr.e.failures == nil {
				vr.e.failures = map[string]error{}
			}
			vr.e.failures[vr.v.key] = err
		} else {
			vr.unknowns++
		}
		return
	case no:
		vr.evaluated++
		if len(vr.timers) > 0 {
			delete(vr.timers, o.id())
		}
		return
	}
	vr.evaluated++
	e, v := vr.e, vr.v
	id := o.id()
	since := vr.now // when the condition was first seen to hold
	if vr.timed {
		if vr.timers == nil {
			vr.timers = map[string]timer{}
			e.timers[v.key] = vr.timers
		}
		t, ok := vr.timers[id]
		if !ok {
			t.since = vr.now
		}
		t.seen = e.frame
		vr.timers[id] = t
		since = t.since
		if vr.now.Sub(t.since) < v.wait {
			if vr.state.State != "firing" {
				vr.state.State = "pending"
			}
			return
		}
	}
	vr.state.State = "firing"
	e.fire(v.key+"|"+id, vr.r, v, o, vr.now, since)
}

// missing says why the variant evaluated nothing.
func (vr *variantRun) missing(host *HostEnv) string {
	if vr.lastErr == nil && vr.unknowns > 0 {
		return missingData(nil, host, true)
	}
	return missingData(vr.lastErr, host, false)
}

// missingData turns why nothing was evaluated into words: known() found
// data missing (absent), or an evaluation error, nearly always a counter
// or setting this host does not have.
func missingData(err error, host *HostEnv, absent bool) string {
	if err == nil && !absent {
		return "no data"
	}
	if absent || strings.Contains(err.Error(), "nil") {
		if host.HasSnapshot && host.IntervalSec == 0 {
			// One reading (a first sample, a single saved output): no
			// counter has a rate yet, whatever the host has.
			return "the data this rule needs is not available here: this is a single reading, and rates need a second one of the same counters (or a counter, setting or source this host lacks)"
		}
		return "the data this rule needs is not available here (a counter, setting or source this host lacks)"
	}
	return err.Error()
}
