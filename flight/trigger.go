package flight

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
)

// Trigger kinds: what started or extended an incident.
const (
	TriggerLinkFlap = "link-flap"       // a port went down or retrained (events, link-flap or port-down)
	TriggerQPError  = "qp-error"        // a QP entered the error state (event, qp-error-state)
	TriggerNCCL     = "nccl"            // NCCL logged a warning or RAS saw a rank in trouble
	TriggerSeverity = "severity"        // a finding at or above Options.Severity
	TriggerManual   = "manual"          // the operator asked (SIGUSR1)
	TriggerSilence  = "traffic-stopped" // a port's RDMA traffic stopped while its QPs stayed in RTS
)

// TriggerKinds are every kind, for metrics that show them all.
var TriggerKinds = []string{TriggerLinkFlap, TriggerQPError, TriggerNCCL, TriggerSeverity, TriggerManual, TriggerSilence}

// Trigger is one reason to write an incident.
type Trigger struct {
	Kind   string    `json:"kind"`
	Time   time.Time `json:"time"`
	Detail string    `json:"detail"`
	// Since is when what triggered began, when that is before Time:
	// traffic-stopped is judged --trigger-silence after the port's last
	// traffic, and the incident's window reaches back from then.
	Since time.Time `json:"since,omitzero"`
}

// judge finds the triggers in a Frame: events of this tick, and findings
// that hold now and did not in the Frame before (active is the keys of
// those, updated; left alone by a Frame the rules did not judge). A
// finding that keeps holding triggers once. With baseline (the first Frame the rules judged) findings only set active:
// what held when rdmatop started is not happening now, and an incident
// for it would start a cooldown that hides the next real one.
func judge(f *monitor.Frame, sev rules.Severity, active map[string]bool, judged, baseline bool) []Trigger {
	var out []Trigger
	add := func(kind, detail string) {
		for _, t := range out {
			if t.Kind == kind {
				return // one per kind and Frame: the first says it
			}
		}
		out = append(out, Trigger{Kind: kind, Time: f.Time, Detail: detail})
	}
	if s := f.Snapshot; s != nil {
		for _, e := range s.Events {
			if k := eventKind(&e); k != "" {
				add(k, e.Source+" "+e.Kind+": "+e.Detail)
			}
		}
	}
	if !judged {
		return out
	}
	now := map[string]bool{}
	for i := range f.Findings {
		fd := &f.Findings[i]
		if fd.Resolved || !fd.LastSeen.Equal(f.Time) {
			continue
		}
		key := findingKey(fd)
		now[key] = true
		if active[key] || baseline {
			continue
		}
		if k := findingKind(fd, sev); k != "" {
			add(k, string(fd.Severity)+" "+fd.Rule+": "+fd.Title)
		}
	}
	clear(active)
	maps.Copy(active, now)
	return out
}

// eventKind is the trigger an event is, if any.
func eventKind(e *probes.Event) string {
	switch {
	case e.Source == "port" && (e.Kind == "link_downed" || e.Kind == "link_error_recovery"):
		return TriggerLinkFlap
	case e.Source == "port" && e.Kind == "port_state" && e.Severity != probes.SevInfo:
		return TriggerLinkFlap // to a state other than ACTIVE (sampler)
	case e.Source == "qp" && e.Severity == probes.SevCritical:
		return TriggerQPError // into ERR or SQE (qpevent)
	case e.Source == "nccl" && e.Severity != probes.SevInfo:
		return TriggerNCCL
	}
	return ""
}

// findingKind is the trigger a newly holding finding is, if any.
func findingKind(fd *rules.Finding, sev rules.Severity) string {
	switch {
	case fd.Rule == "link-flap" || fd.Rule == "port-down":
		return TriggerLinkFlap
	case fd.Rule == "qp-error-state":
		return TriggerQPError
	case strings.HasPrefix(fd.Rule, "nccl-"):
		return TriggerNCCL
	case fd.Severity.Rank() >= sev.Rank():
		return TriggerSeverity
	}
	return ""
}

func findingKey(fd *rules.Finding) string {
	var b strings.Builder
	b.WriteString(fd.Rule)
	for _, k := range slices.Sorted(maps.Keys(fd.Objects)) {
		b.WriteString("\x00" + k + "=" + fd.Objects[k])
	}
	return b.String()
}

// began is when what triggered began: Since, or Time.
func (t Trigger) began() time.Time {
	if !t.Since.IsZero() && t.Since.Before(t.Time) {
		return t.Since
	}
	return t.Time
}
