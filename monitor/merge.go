package monitor

import (
	"maps"
	"sort"
	"strconv"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/rules"
)

// mergeFindings concludes a run with a capture: the tick-by-tick findings
// about the host (they honour every rule's `for`), and the findings about
// the capture's flows from one evaluation of the whole capture (they do
// not depend on where the timeline was cut), each seen from the start of
// the first tick that showed it (a tick is judged at its end; tick is its
// length) to the end of the last, or, when no single tick showed it, from
// its flow's first trouble (the earliest anomaly kept for it) to its last
// packet. A finding about the host alone
// (no object: the capture's own, such as capture-incomplete) that holds on
// the whole capture too takes the whole capture's evidence, which counts
// everything (the time its link was down, all the frames it lost), not
// the last tick's share.
func mergeFindings(ticks, whole []rules.Finding, w *capture.Summary, tick time.Duration) []rules.Finding {
	seen := map[string]*rules.Finding{}
	hostWide := map[string]string{}
	for _, f := range whole {
		if len(f.Objects) == 0 {
			hostWide[f.Rule] = f.Evidence
		}
	}
	var out []rules.Finding
	for _, f := range ticks {
		if _, flow := f.Objects["flow"]; flow {
			g := f
			seen[findingKey(&g)] = &g
			continue
		}
		if ev, ok := hostWide[f.Rule]; ok && len(f.Objects) == 0 {
			f.Evidence = ev
		}
		out = append(out, f)
	}
	var trouble map[int]time.Time
	for _, f := range whole {
		if _, flow := f.Objects["flow"]; !flow {
			continue
		}
		f.Resolved = false
		fl := flowByID(w, f.Objects["flow"])
		if t, ok := seen[findingKey(&f)]; ok {
			f.FirstSeen, f.LastSeen = t.FirstSeen.Add(-tick), t.LastSeen
			f.Occurrences, f.LatestSince = t.Occurrences, t.LatestSince
			if fl != nil {
				f.FirstSeen = later(f.FirstSeen, parseTS(fl.FirstTS))
			}
		} else if fl != nil {
			if trouble == nil {
				trouble = firstTrouble(w)
			}
			f.FirstSeen, f.LastSeen = later(parseTS(fl.FirstTS), trouble[fl.ID]), parseTS(fl.LastTS)
		}
		out = append(out, f)
	}
	return out
}

// firstTrouble maps each flow to its earliest anomaly the capture kept;
// a flow with none kept gets the last kept one's time when the capture
// dropped some (its troubles came after), else nothing.
func firstTrouble(w *capture.Summary) map[int]time.Time {
	first := map[int]time.Time{}
	var last time.Time
	for _, a := range w.Anomalies {
		t := parseTS(a.TS)
		if _, ok := first[a.FlowID]; !ok && a.FlowID != 0 {
			first[a.FlowID] = t
		}
		last = later(last, t)
	}
	if w.AnomaliesDropped > 0 {
		for _, fl := range w.Flows {
			if _, ok := first[fl.ID]; !ok {
				first[fl.ID] = last
			}
		}
	}
	return first
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func findingKey(f *rules.Finding) string {
	k := f.Rule
	for _, o := range sortedKeys(f.Objects) {
		k += "|" + o + "=" + f.Objects[o]
	}
	return k
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range maps.Keys(m) {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func flowByID(w *capture.Summary, id string) *capture.FlowSummary {
	n, err := strconv.Atoi(id)
	if err != nil || w == nil {
		return nil
	}
	for i := range w.Flows {
		if w.Flows[i].ID == n {
			return &w.Flows[i]
		}
	}
	return nil
}

func parseTS(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// peersOf maps each flow of a capture to its peer flow.
func peersOf(w *capture.Summary) map[int]int {
	if w == nil {
		return nil
	}
	m := map[int]int{}
	for i := range w.Flows {
		if p := w.Flows[i].PeerID; p != 0 {
			m[w.Flows[i].ID] = p
		}
	}
	return m
}

// mergeRuleStates says how each rule fared over the run: firing if either
// the ticks or the whole capture made it fire, then pending, ok, and
// cannot_evaluate only when neither could evaluate it.
func mergeRuleStates(ticks, whole []rules.RuleState) []rules.RuleState {
	order := map[string]int{"cannot_evaluate": 0, "ok": 1, "pending": 2, "firing": 3}
	idx := map[string]int{}
	var out []rules.RuleState
	for _, s := range ticks {
		idx[s.Rule] = len(out)
		out = append(out, s)
	}
	for _, s := range whole {
		i, ok := idx[s.Rule]
		if !ok {
			idx[s.Rule] = len(out)
			out = append(out, s)
			continue
		}
		if order[s.State] > order[out[i].State] {
			out[i] = s
		}
	}
	return out
}
