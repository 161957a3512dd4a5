package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/rules"
)

// The five gaps of issue 9, each on an incident recorded in the lab
// (testdata/incidents, see its MANIFEST), through `rdmatop check --json`
// as a user runs it: the first finding is the cause, and what it explains
// is linked to it.

func checkIncident(t *testing.T, name string) []rules.Finding {
	t.Helper()
	out, stderr, code := runCLI(t, "check", "--json", accuracySets[0].dir+name+".pcapng.gz")
	if code == 2 {
		t.Fatalf("%s: %s", name, stderr)
	}
	var res checkResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 {
		t.Fatalf("%s: no findings", name)
	}
	return res.Findings
}

// under reports whether some finding of rule is explained by the first.
func under(fs []rules.Finding, rule string) bool {
	for _, f := range fs[1:] {
		if f.Rule == rule && f.ExplainedBy != nil && f.ExplainedBy.Rule == fs[0].Rule {
			return true
		}
	}
	return false
}

func firing(fs []rules.Finding, rule string) []rules.Finding {
	var out []rules.Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// Gap 2: the port went down and came back mid-recording; the flap (resolved
// by the end) ranks first, above the standing roce-mtu-too-small advisory,
// with the port going down and the ACK timeouts it caused under it.
func TestIncidentLinkFlapFirst(t *testing.T) {
	fs := checkIncident(t, "link-flap")
	if fs[0].Rule != "link-flap" {
		t.Fatalf("first finding %s, want link-flap", fs[0].Rule)
	}
	if !under(fs, "port-down") {
		t.Error("port-down is not under the link flap")
	}
	if last := fs[len(fs)-1]; last.Rule != "roce-mtu-too-small" {
		t.Errorf("the standing advisory is not last: %s", last.Rule)
	}
}

// Gap 3 with the capture: the ACKs lost on the wire make the requester
// time out; ack-timeout is first, the resends under it.
func TestIncidentACKLoss(t *testing.T) {
	for _, name := range []string{"ack-loss-10pct", "ack-loss-30pct"} {
		fs := checkIncident(t, name)
		if fs[0].Rule != "ack-timeout" && fs[0].Rule != "packet-loss" {
			t.Errorf("%s: first finding %s, want a loss or timeout finding", name, fs[0].Rule)
		}
		if !under(fs, "retransmissions") {
			t.Errorf("%s: retransmissions not under %s", name, fs[0].Rule)
		}
	}
}

// Gap 4: captured on the sender, dropped on the receiver's ingress: no PSN
// gap on the wire, yet packet-loss is first (on the port's sequence
// errors, and on the flow) and the flow's finding says where.
func TestIncidentLossAfterCapturePoint(t *testing.T) {
	fs := checkIncident(t, "loss-after-capture-2pct")
	if fs[0].Rule != "packet-loss" {
		t.Fatalf("first finding %s, want packet-loss", fs[0].Rule)
	}
	seen := false
	for _, f := range firing(fs, "packet-loss") {
		if f.Objects["flow"] != "" {
			seen = true
			if !strings.Contains(f.Evidence, "lost (or reordered) after the capture point: the capture does not see the drop") {
				t.Errorf("flow evidence does not say the loss is past the capture point: %s", f.Evidence)
			}
		}
	}
	if !seen {
		t.Error("no packet-loss finding on the flow")
	}
	if !under(fs, "retransmissions") {
		t.Error("retransmissions not under packet-loss")
	}
}

// Gap 5: READs re-issued by the requester while the responder, still
// answering, interleaves the resent responses with newer ones. Nothing was
// lost: no packet-loss and no PSN missing. The emulated host's path lets
// READ responses overtake each other (their IPv4 IDs say so; the
// campaign's two-point truth of the same workload, clean-read16, counts
// 379 reordered on a clean path), so packet-reordering is first, with
// the resends and timeouts it provokes under it.
func TestIncidentInterleavedREADResponses(t *testing.T) {
	fs := checkIncident(t, "healthy-read-spurious")
	for _, f := range fs {
		if f.Rule == "packet-loss" || f.Severity == rules.Critical {
			t.Errorf("%s %s on a run where nothing was lost: %s", f.Severity, f.Rule, f.Evidence)
		}
	}
	if fs[0].Rule != "packet-reordering" {
		t.Fatalf("first finding %s, want packet-reordering: %v", fs[0].Rule, fs)
	}
	if !strings.Contains(fs[0].Evidence, "0 gaps left") {
		t.Errorf("evidence: %s", fs[0].Evidence)
	}
	for _, id := range []string{"ack-timeout", "retransmissions"} {
		for _, f := range firing(fs, id) {
			if f.ExplainedBy == nil {
				t.Errorf("%s not under a cause: %s", id, f.Evidence)
			}
		}
	}
}

// Gap 1: a black-holed peer. ack-timeout is first with the resends and the
// QP going to ERR under it.
func TestIncidentBlackHole(t *testing.T) {
	fs := checkIncident(t, "blackhole")
	if fs[0].Rule != "ack-timeout" {
		t.Fatalf("first finding %s, want ack-timeout", fs[0].Rule)
	}
	for _, r := range []string{"retransmissions", "qp-error-state"} {
		if !under(fs, r) {
			t.Errorf("%s not under ack-timeout", r)
		}
	}
}

// Gap 1: the receiver stopped posting receives until the sender's RNR
// retries ran out. rnr-nak is first; the QP in ERR and the resends are
// under it.
func TestIncidentRNRExceeded(t *testing.T) {
	fs := checkIncident(t, "rnr-exceeded")
	if fs[0].Rule != "rnr-nak" {
		t.Fatalf("first finding %s, want rnr-nak", fs[0].Rule)
	}
	for _, r := range []string{"qp-error-state", "retransmissions"} {
		if !under(fs, r) {
			t.Errorf("%s not under rnr-nak", r)
		}
	}
}
