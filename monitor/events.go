package monitor

import (
	"fmt"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/probes"
)

// RecentEvents is how many of the run's latest events a Frame carries.
const RecentEvents = 2000

// eventLog keeps the run's latest events, host and wire, for the screen's
// event timeline. Frames hold views of it, not copies: the log only
// appends, and when it has grown to twice RecentEvents the newest half is
// copied to a new array (Frames still holding the old one keep it alive
// until they are dropped).
type eventLog struct {
	all []probes.Event
}

// add appends a Frame's events and returns the latest RecentEvents.
func (l *eventLog) add(evs ...[]probes.Event) []probes.Event {
	for _, e := range evs {
		l.all = append(l.all, e...)
	}
	if len(l.all) >= 2*RecentEvents {
		l.all = append(make([]probes.Event, 0, 2*RecentEvents), l.all[len(l.all)-RecentEvents:]...)
	}
	lo := max(0, len(l.all)-RecentEvents)
	return l.all[lo:len(l.all):len(l.all)]
}

// wireEvents turns an interval's anomalies into events, each naming its
// flow. An interval has few anomalies (capture.MaxIntervalAnomalies) and
// may have many flows (65,536 in a busy one): only the anomalies' flows
// are indexed, filled in one pass over the flows. Indexing every flow
// built a 5 MB map each tick to look up a few hundred.
func wireEvents(iv *capture.Summary) []probes.Event {
	if iv == nil || len(iv.Anomalies) == 0 {
		return nil
	}
	flows := make(map[int]*capture.FlowSummary, len(iv.Anomalies))
	for _, a := range iv.Anomalies {
		if a.FlowID != 0 {
			flows[a.FlowID] = nil
		}
	}
	for i := range iv.Flows {
		if _, ok := flows[iv.Flows[i].ID]; ok {
			flows[iv.Flows[i].ID] = &iv.Flows[i]
		}
	}
	out := make([]probes.Event, 0, len(iv.Anomalies))
	for _, a := range iv.Anomalies {
		e := probes.Event{Time: parseTS(a.TS), Source: "wire", Kind: a.Kind, Severity: anomalySeverity(a.Kind),
			Detail: a.Detail}
		if f := flows[a.FlowID]; f != nil {
			qp := uint32(f.DestQP)
			e.QPN = &qp
			e.Detail = fmt.Sprintf("flow %d %s -> %s: %s", f.ID, f.Src, f.Dst, a.Detail)
		} else if a.FlowID != 0 {
			e.Detail = fmt.Sprintf("flow %d: %s", a.FlowID, a.Detail)
		}
		out = append(out, e)
	}
	return out
}

// anomalySeverity: loss, NAK errors and corruption are warnings; flow
// control, congestion signals and bookkeeping are information.
func anomalySeverity(kind string) probes.Severity {
	switch kind {
	case "psn_gap", "nak", "icrc_error":
		return probes.SevWarning
	}
	return probes.SevInfo
}
