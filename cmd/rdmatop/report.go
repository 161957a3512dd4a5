package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
	"github.com/rdmatop/rdmatop/saved"
	"github.com/rdmatop/rdmatop/ui"
)

// checkResult is the JSON of `rdmatop check --json`.
type checkResult struct {
	Source   string            `json:"source"` // live, capture FILE, bundle FILE
	Findings []rules.Finding   `json:"findings"`
	Rules    []rules.RuleState `json:"rules"`
	Worst    string            `json:"worst,omitempty"`
	// Unknown, live: why nothing could be checked (no RDMA device, -i or
	// -d naming none); the verdict is then UNKNOWN, exit 2.
	Unknown string `json:"unknown,omitempty"`
	// Incomplete, a recording cut short: where it ends. What it holds is
	// judged (the findings), nothing after the cut; the exit status is 2.
	Incomplete string `json:"incomplete,omitempty"`
	// Timing, a recording: how its live run kept time, when a tick
	// started late or intervals were lost (the host's samples overran).
	Timing *tickTiming `json:"timing,omitempty"`
	// Saved outputs (check PATH...): every input with what it was, and
	// the host model built from them in the --once --json schema (its
	// last snapshot).
	Inputs    []saved.Input    `json:"inputs,omitempty"`
	Model     string           `json:"model,omitempty"`
	Snapshots int              `json:"snapshots,omitempty"`
	Host      *probes.Snapshot `json:"host,omitempty"`
	// Hung are the probe sources that did not answer (timeout) or
	// answered in part (files that hang): live, as in the last sample;
	// from a recording, each as first seen hung, with how many ticks.
	Hung []hungSource `json:"hung_sources,omitempty"`
}

// hungSource is a source that hung while the check looked.
type hungSource struct {
	probes.Status
	Ticks int `json:"ticks,omitempty"` // recording: ticks it hung in
	Of    int `json:"of,omitempty"`    // recording: ticks in all
}

// hungSources collects the sources that hang across frames, in the order
// first seen.
type hungSources struct {
	list  []hungSource
	ticks int
	all   []probes.Status // the last snapshot's statuses, for the cause
}

func (h *hungSources) add(s *probes.Snapshot) {
	if s == nil {
		return
	}
	h.ticks++
	for _, st := range s.Status {
		if !st.Hung() {
			continue
		}
		i := slices.IndexFunc(h.list, func(x hungSource) bool { return x.Source == st.Source })
		if i < 0 {
			h.list = append(h.list, hungSource{Status: st})
			i = len(h.list) - 1
			h.all = append(h.all, st)
		}
		h.list[i].Ticks++
		if st.State == probes.StatePartial {
			for _, p := range st.Stuck {
				if !slices.Contains(h.list[i].Stuck, p) {
					h.list[i].Stuck = append(h.list[i].Stuck, p)
				}
			}
		}
	}
}

// writeHung says which sources hang, since when, how old what they
// showed is, and the likely reason: before the findings, which rest on
// what the other sources (and the values carried forward) say.
func writeHung(w io.Writer, hs []hungSource, all []probes.Status) {
	if len(hs) == 0 {
		return
	}
	fmt.Fprintln(w)
	for i, h := range hs {
		lead := "probes   "
		if i > 0 {
			lead = "         "
		}
		line := "HUNG " + probes.HangLine(h.Status)
		if h.Of > 0 {
			line += fmt.Sprintf(" [%d of %d ticks]", h.Ticks, h.Of)
		}
		fmt.Fprintf(w, "%s%s\n", lead, termtext.Sanitize(line))
	}
	if c := probes.LikelyCause(all); c != "" {
		fmt.Fprintf(w, "  likely %s\n", termtext.Sanitize(c))
	}
	fmt.Fprintln(w, "  what the other sources say, and the last values of the hung ones (marked stale), is judged below")
}

// tickTiming counts a recording's late ticks and lost intervals.
type tickTiming struct {
	Ticks    int     `json:"ticks"`
	Late     int     `json:"late"`
	MaxLateS float64 `json:"max_late_s"`
	Skipped  int     `json:"skipped"`
}

// add counts Frame f; the result is nil when no tick was late.
func (t *tickTiming) add(f *monitor.Frame) {
	t.Ticks++
	t.Skipped += f.Skipped
	if f.LateS > 0 || f.Skipped > 0 {
		t.Late++
		t.MaxLateS = max(t.MaxLateS, f.LateS)
	}
}

func writeFindings(w io.Writer, res checkResult) {
	writeCheckHeader(w, res)
	// The findings of one rule stand together (rules.Pack.Group), the one
	// that shows the most first: that one carries the cause, confirm and
	// fix; the others say where else and how much.
	type kind struct {
		rule string
		sev  rules.Severity
	}
	of := map[kind]int{}
	for _, f := range res.Findings {
		if f.ExplainedBy == nil {
			of[kind{f.Rule, f.Severity}]++
		}
	}
	nth := map[kind]int{}
	for i := range res.Findings {
		f := &res.Findings[i]
		if f.ExplainedBy != nil {
			writeSymptom(w, f)
			continue
		}
		k := kind{f.Rule, f.Severity}
		nth[k]++
		writeFinding(w, f, nth[k], of[k])
	}
	writeCannot(w, res.Rules)
}

// writeCheckHeader writes what was checked, how the sampling kept time,
// the sources that hung, and UNKNOWN or "no findings" when nothing follows.
func writeCheckHeader(w io.Writer, res checkResult) {
	if res.Source != "" {
		fmt.Fprintf(w, "rdmatop check: %s\n", termtext.Sanitize(res.Source))
	}
	if t := res.Timing; t != nil {
		fmt.Fprintf(w, "timing   %d of %d ticks started late (up to %.1f s), %d intervals lost: the host's samples overran the interval\n",
			t.Late, t.Ticks, t.MaxLateS, t.Skipped)
	}
	if res.Inputs != nil {
		writeInputs(w, res.Inputs)
		fmt.Fprintf(w, "\nmodel    %s", termtext.Sanitize(res.Model))
		if res.Snapshots > 1 {
			fmt.Fprintf(w, "; %d readings", res.Snapshots)
		}
		fmt.Fprintln(w)
	}
	var all []probes.Status
	for _, h := range res.Hung {
		all = append(all, h.Status)
	}
	writeHung(w, res.Hung, all)
	switch {
	case res.Unknown != "" && len(res.Findings) == 0:
		fmt.Fprintln(w, "\nUNKNOWN: "+termtext.Sanitize(res.Unknown))
	case len(res.Findings) == 0:
		fmt.Fprintln(w, "\nno findings")
	}
}

// writeSymptom writes a finding another explains: what and where; the
// cause's confirm and fix apply.
func writeSymptom(w io.Writer, f *rules.Finding) {
	c := f.ExplainedBy
	via := ""
	if c.Via != "" {
		via = " (" + c.Via + ")"
	}
	fmt.Fprintf(w, "\n  ↳ %s %s [%s]%s, explained by %s%s\n", strings.ToUpper(string(f.Severity)), termtext.Sanitize(f.Title), f.Rule, resolvedMark(f), c.Rule, termtext.Sanitize(via))
	fmt.Fprintf(w, "    on       %s\n", termtext.Sanitize(objects(f.Objects)))
	if seen := seenSpan(f); seen != "" {
		fmt.Fprintf(w, "    seen     %s\n", seen)
	}
	fmt.Fprintf(w, "    evidence %s\n", termtext.Sanitize(f.Evidence))
}

// writeFinding writes the nth of the n findings of one rule and
// severity; only the first carries the cause, confirm and fix.
func writeFinding(w io.Writer, f *rules.Finding, nth, n int) {
	count := ""
	if n > 1 {
		count = fmt.Sprintf(" (%d of %d)", nth, n)
	}
	fmt.Fprintf(w, "\n%s %s [%s]%s%s\n", strings.ToUpper(string(f.Severity)), termtext.Sanitize(f.Title), f.Rule, resolvedMark(f), count)
	fmt.Fprintf(w, "  on       %s\n", termtext.Sanitize(objects(f.Objects)))
	if seen := seenSpan(f); seen != "" {
		fmt.Fprintf(w, "  seen     %s\n", seen)
	}
	if len(f.Explains) > 0 {
		fmt.Fprintf(w, "  explains %s\n", ExplainsSummary(f.Explains))
	}
	fmt.Fprintf(w, "  evidence %s\n", termtext.Sanitize(f.Evidence))
	if nth > 1 {
		fmt.Fprintf(w, "  cause, confirm and fix: as for the first %s above\n", f.Rule)
		return
	}
	fmt.Fprintf(w, "  cause    %s\n", termtext.Sanitize(strings.TrimSpace(f.Cause)))
	writeList(w, "  confirm  ", f.Confirm)
	writeList(w, "  fix      ", f.Fix)
	if len(f.Docs) > 0 {
		fmt.Fprintf(w, "  docs     %s\n", termtext.Sanitize(strings.Join(f.Docs, ", ")))
	}
}

// writeList writes lines under a label, the label on the first only. The
// lines carry values from the host or the capture (device and interface
// names): sanitized, as everything from outside.
func writeList(w io.Writer, label string, lines []string) {
	pad := strings.Repeat(" ", len(label))
	for i, l := range lines {
		lead := label
		if i > 0 {
			lead = pad
		}
		fmt.Fprintf(w, "%s%s\n", lead, termtext.Sanitize(l))
	}
}

func resolvedMark(f *rules.Finding) string {
	if f.Resolved {
		return " (resolved)"
	}
	return ""
}

// writeCannot lists the rules that could not be evaluated here.
func writeCannot(w io.Writer, states []rules.RuleState) {
	var cannot []string
	for _, r := range states {
		if r.State == "cannot_evaluate" {
			cannot = append(cannot, r.Rule)
		}
	}
	if len(cannot) > 0 {
		sort.Strings(cannot)
		fmt.Fprintf(w, "\ncannot evaluate here (data not available; see --json for why): %s\n", strings.Join(cannot, ", "))
	}
}

// seenSpan says when a finding held: "03:00:12.345 to 03:00:14.001 UTC
// (1.656 s)", one time when it held once, "" when unknown.
func seenSpan(f *rules.Finding) string {
	first, last := f.FirstSeen, f.LastSeen
	if first.IsZero() {
		return ""
	}
	const layout = "2006-01-02 15:04:05.000"
	span := first.UTC().Format(layout) + " UTC"
	if last.After(first) {
		span = first.UTC().Format(layout) + " to " + last.UTC().Format("15:04:05.000") + " UTC (" +
			last.Sub(first).Round(time.Millisecond).String() + ")"
	}
	if f.Occurrences > 1 {
		span += fmt.Sprintf(", %d separate times, the latest from %s", f.Occurrences, f.LatestSince.UTC().Format("15:04:05.000"))
	}
	return span
}

func objects(m map[string]string) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var out []string
	for _, k := range ks {
		out = append(out, k+"="+m[k])
	}
	if len(out) == 0 {
		return "host"
	}
	return strings.Join(out, " ")
}

// writeJSON prints v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ExplainsSummary says what a cause explains, by rule: "retransmissions on
// 3 flows, qp-error-state on 1 QP".
func ExplainsSummary(refs []rules.Ref) string { return ui.ExplainsSummary(refs) }
