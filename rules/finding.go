package rules

import "time"

// Finding is a rule that fired, on one object.
type Finding struct {
	Rule      string            `json:"rule"`
	Severity  Severity          `json:"severity"`
	Title     string            `json:"title"`
	Evidence  string            `json:"evidence"`
	Cause     string            `json:"cause"`
	Confirm   []string          `json:"confirm"`
	Fix       []string          `json:"fix"`
	Docs      []string          `json:"docs"`
	Objects   map[string]string `json:"objects"`
	FirstSeen time.Time         `json:"first_seen,omitzero"`
	LastSeen  time.Time         `json:"last_seen,omitzero"`
	// Occurrences counts the separate times the condition held (0 or 1:
	// once); FirstSeen stays the first one's, LatestSince is when the
	// latest began.
	Occurrences int       `json:"occurrences,omitempty"`
	LatestSince time.Time `json:"latest_since,omitzero"`
	// Resolved is set once the condition cleared; the finding is kept so
	// that a replay or a check of a recording reports what happened.
	Resolved bool `json:"resolved,omitempty"`
	// Magnitude is how much of the symptom this finding shows, by its
	// rule's magnitude expression (0 without one): findings of one rule
	// rank by it.
	Magnitude float64 `json:"magnitude,omitempty"`
	// Explains lists the findings this one explains (its symptoms, listed
	// under it); ExplainedBy names the finding that explains this one.
	// Which rule explains which is declared in the pack (explains:).
	Explains    []Ref `json:"explains,omitempty"`
	ExplainedBy *Ref  `json:"explained_by,omitempty"`
}

// RuleState is how one rule fared on a frame.
type RuleState struct {
	Rule   string `json:"rule"`
	State  string `json:"state"` // ok, firing, pending, cannot_evaluate
	Detail string `json:"detail,omitempty"`
}

// Result is the engine's answer for one frame.
type Result struct {
	Findings []Finding   `json:"findings"` // active and resolved, most severe first
	Rules    []RuleState `json:"rules"`
	// Forgotten counts the resolved findings this engine has dropped since
	// it started (Engine.Retention, Engine.MaxResolved): a report should
	// say that Findings is not everything that ever fired.
	Forgotten uint64 `json:"forgotten_findings,omitempty"`
}

// Defaults of the engine's memory. A replay or a check of a recording
// keeps every finding (DefaultMaxResolved is generous); a live run that
// lasts days should also forget by age (LiveRetention, LiveMaxResolved).

// Worst returns the highest severity among the findings (also resolved
// ones: a recording that showed a fault shows a fault), "" when none.
func Worst(fs []Finding) Severity {
	var w Severity
	for _, f := range fs {
		if f.Severity.Rank() > w.Rank() {
			w = f.Severity
		}
	}
	return w
}

// AtLeastWarning reports whether any finding is warning or critical.
func AtLeastWarning(fs []Finding) bool { return Worst(fs).Rank() >= Warning.Rank() }
