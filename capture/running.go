package capture

import (
	"slices"
)

// The running analysis of a live capture (or a replay played as a
// timeline) is wanted every tick by the screen, and a capture holds up to
// 65,536 flows: building every flow's summary and ranking them takes tens
// of milliseconds, too long to hold the lock the packet reader needs. So
// it is built in two steps. Under the lock, RunningUpdate takes what
// changed since the previous update: the capture-wide counts and totals,
// the summaries of the flows that moved (and of their peers, whose
// summaries a response or a pairing changes), the ids of the flows
// evicted. Outside it, a RunningView applies the update to the flows it
// keeps and ranks them as Summary does. The result is Running's, field
// for field (TestRunningViewIsRunning).

// RunningUpdate is what changed in an analyzer's running analysis since
// its previous update.
type RunningUpdate struct {
	head  Summary       // counts, the evicted flows' totals; no flows
	full  bool          // moved holds every flow: start afresh
	moved []runningFlow // the flows that changed
	gone  []int         // ids of the flows evicted since
}

// runningFlow is a flow as the running analysis has it, with the
// counters its totals add (some, BECN and FECN, are not in the summary).
type runningFlow struct {
	fs FlowSummary
	c  flowCounters
}

// RunningUpdate returns what changed since the previous call. It costs
// O(flows that moved) besides the totals; call it, then Cut, each tick
// (it reads what Cut is about to reset). When a Cut came without an
// update, or packets came between an update and its Cut, the update is
// whole.
func (a *Analyzer) RunningUpdate() *RunningUpdate {
	t := a.tracker
	u := &RunningUpdate{head: *a.head(), gone: t.goneIDs}
	t.goneIDs = nil
	incremental := t.intervals && a.running.valid && t.gen == a.running.gen+1 && a.mark.packets == a.running.packets
	var moved []*Flow
	if incremental {
		seen := map[*Flow]bool{}
		add := func(f *Flow) {
			if f != nil && !seen[f] {
				seen[f] = true
				moved = append(moved, f)
			}
		}
		t.touched.each(func(tc *touched) {
			if tc.f != nil {
				add(tc.f)
				add(tc.f.peer)
			}
		})
	} else {
		u.full = true
		moved = make([]*Flow, 0, t.flows.len())
		t.flows.each(func(f *Flow) { moved = append(moved, f) })
	}
	u.moved = make([]runningFlow, len(moved))
	t.fillFlows(len(moved), func(lo, hi int, names *addrNames) {
		for j, f := range moved[lo:hi] {
			m := &u.moved[lo+j]
			m.fs.fillRunning(f, names)
			m.c = f.counters()
		}
	})
	// Evicted flows are noted from now on; the next update is
	// incremental when Cut follows this one with no packet between.
	t.noteGone = true
	a.running.valid, a.running.gen, a.running.packets = true, t.gen, a.packets
	return u
}

// fillRunning sets fs, which must be zero, to f's summary as the
// running analysis has it.
func (fs *FlowSummary) fillRunning(f *Flow, names *addrNames) {
	fs.fill(f, names)
	fs.FirstTS = tsString(f.firstTS)
	fs.Opcodes = sortedOpcodes(append([]OpcodeCount(nil), f.opcodes...))
}

// RunningView keeps the flows of an analyzer's running analysis from one
// update to the next. Not safe for concurrent use; it holds no reference
// into the analyzer.
type RunningView struct {
	flows []runningFlow
	at    map[int]int // flow id → its place in flows
}

// Apply applies u and returns the running analysis, as Analyzer.Running
// returns it: the flows ranked troubled first, then busiest.
func (v *RunningView) Apply(u *RunningUpdate) *Summary {
	if u.full || v.at == nil {
		v.flows, v.at = v.flows[:0], make(map[int]int, len(u.moved))
	}
	for _, id := range u.gone {
		i, ok := v.at[id]
		if !ok {
			continue
		}
		// The survivor of a pair waits for a new peer again.
		if peer := v.flows[i].fs.PeerID; peer != 0 {
			if p, ok := v.at[peer]; ok && v.flows[p].fs.PeerID == id {
				v.flows[p].fs.PeerID = 0
			}
		}
		last := len(v.flows) - 1
		v.flows[i] = v.flows[last]
		v.at[v.flows[i].fs.ID] = i
		v.flows[last] = runningFlow{}
		v.flows = v.flows[:last]
		delete(v.at, id)
	}
	for i := range u.moved {
		rf := &u.moved[i]
		if j, ok := v.at[rf.fs.ID]; ok {
			v.flows[j] = *rf
			continue
		}
		v.at[rf.fs.ID] = len(v.flows)
		v.flows = append(v.flows, *rf)
	}
	s := u.head
	// Ranked by small keys, then copied once each. A flow's slices and
	// pointers are shared with the view, which replaces a flow's summary
	// and never writes into one.
	type ranked struct {
		rank
		i int
	}
	keys := make([]ranked, len(v.flows))
	for i := range v.flows {
		f := &v.flows[i]
		keys[i] = ranked{f.fs.rank(), i}
		f.c.addTo(&s.Totals)
		s.Totals.Flows++
	}
	slices.SortFunc(keys, func(a, b ranked) int { return a.compare(b.rank) })
	s.Flows = newFlowSummaries(len(keys))
	for j, k := range keys {
		s.Flows[j] = v.flows[k.i].fs
	}
	return &s
}
