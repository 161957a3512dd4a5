package qpevent

import (
	"sort"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
)

// key identifies a QP: QP numbers are per device. The device index, not
// its name, survives a rename.
type key struct {
	dev  uint32
	lqpn uint32
}

func keyOf(q rdmanl.QP) key { return key{q.DevIndex, q.LQPN} }

// index maps QPs by key; a key seen twice keeps its first QP.
func index(qps []rdmanl.QP) map[key]rdmanl.QP {
	m := make(map[key]rdmanl.QP, len(qps))
	for _, q := range qps {
		if _, dup := m[keyOf(q)]; !dup {
			m[keyOf(q)] = q
		}
	}
	return m
}

// replaced: the same number now belongs to another QP (destroyed and
// created between two dumps): another owner or another type.
func replaced(a, b rdmanl.QP) bool {
	return a.Type != b.Type || a.HasPID != b.HasPID || a.PID != b.PID || a.KernOwner != b.KernOwner
}

// Diff compares two dumps taken at consecutive ticks and returns what
// changed, at time at:
//   - a QP only in cur is Created (Severity critical if first seen in ERR
//     or SQE), one only in prev is Destroyed;
//   - a QP in both whose state differs is a StateChange, critical when
//     the new state is ERR or SQE;
//   - a QP number reused by another owner or type between the dumps is
//     Destroyed then Created.
//
// Events are ordered by device index, QP number, then destroyed, created,
// state change. Diff does not modify its arguments.
func Diff(prev, cur []rdmanl.QP, at time.Time) []Event {
	before, after := index(prev), index(cur)
	var out []Event
	for k, p := range before {
		c, ok := after[k]
		if !ok || replaced(p, c) {
			e := newEvent(Destroyed, p, at)
			e.From = p.State
			out = append(out, e)
		}
	}
	for k, c := range after {
		p, ok := before[k]
		switch {
		case !ok || replaced(p, c):
			e := newEvent(Created, c, at)
			e.To = c.State
			if isErrorState(c.State) {
				e.Severity = probes.SevCritical
			}
			out = append(out, e)
		case p.State != c.State:
			e := newEvent(StateChange, c, at)
			e.From, e.To = p.State, c.State
			if isErrorState(c.State) {
				e.Severity = probes.SevCritical
			}
			out = append(out, e)
		}
	}
	order := map[Kind]int{Destroyed: 0, Created: 1, StateChange: 2}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.DevIndex != b.DevIndex {
			return a.DevIndex < b.DevIndex
		}
		if a.LQPN != b.LQPN {
			return a.LQPN < b.LQPN
		}
		return order[a.Kind] < order[b.Kind]
	})
	return out
}

// Detector keeps the previous dump between ticks. Its zero value is ready.
type Detector struct {
	prev   []rdmanl.QP
	primed bool
}

// Observe diffs cur against the previous dump. The first call only sets
// the baseline and returns nothing (QPs that already existed were not
// "created" now). QPs of the devices listed in unknown (their dump failed
// this tick) are carried over from the previous dump, so a failed dump
// does not read as every QP destroyed.
func (d *Detector) Observe(cur []rdmanl.QP, at time.Time, unknown ...uint32) []Event {
	if len(unknown) > 0 {
		skip := make(map[uint32]bool, len(unknown))
		for _, u := range unknown {
			skip[u] = true
		}
		merged := make([]rdmanl.QP, 0, len(cur))
		for _, q := range cur {
			if !skip[q.DevIndex] {
				merged = append(merged, q)
			}
		}
		for _, q := range d.prev {
			if skip[q.DevIndex] {
				merged = append(merged, q)
			}
		}
		cur = merged
	}
	var ev []Event
	if d.primed {
		ev = Diff(d.prev, cur, at)
	}
	d.prev = append([]rdmanl.QP(nil), cur...)
	d.primed = true
	return ev
}
