package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// A GID entry that changed or was emptied between two samples (the events
// probes/sampler makes, TestGIDTableChangeEvents) is a finding on its
// port naming the index and both GIDs; a GID added in an empty index is
// not.
func TestGIDMovedFinding(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	snap := func(evs ...probes.Event) *probes.Snapshot {
		return &probes.Snapshot{Interval: 1, Ports: []probes.Port{{Device: "rxe0", Port: 1, Netdev: "eth1", State: "ACTIVE", LinkLayer: "Ethernet"}},
			Events: evs}
	}
	moved := probes.Event{Source: "gid", Kind: "gid_changed", Severity: probes.SevWarning, Device: "rxe0", Port: 1,
		Detail: "index 1: ::ffff:192.168.77.1 RoCE v2 eth1 → ::ffff:192.168.77.9 RoCE v2 eth1"}
	added := probes.Event{Source: "gid", Kind: "gid_added", Severity: probes.SevInfo, Device: "rxe0", Port: 1,
		Detail: "index 2: ::ffff:192.168.77.1 RoCE v2 eth1 (new)"}
	t0 := time.Unix(1_800_000_000, 0)

	e := NewEngine(p)
	res := e.Evaluate(Frame{Time: t0, Snapshot: snap(added)})
	for _, f := range res.Findings {
		if f.Rule == "gid-moved" {
			t.Errorf("a GID added in an empty index fired: %+v", f)
		}
	}
	res = e.Evaluate(Frame{Time: t0.Add(time.Second), Snapshot: snap(moved, added)})
	CheckNoFailures(t, e)
	var got *Finding
	for i := range res.Findings {
		if res.Findings[i].Rule == "gid-moved" {
			got = &res.Findings[i]
		}
	}
	if got == nil {
		t.Fatalf("no gid-moved finding: %+v", res.Findings)
	}
	if got.Objects["device"] != "rxe0" || got.Objects["port"] != "1" {
		t.Errorf("objects %v, want port rxe0/1", got.Objects)
	}
	if !strings.Contains(got.Evidence, "index 1: ::ffff:192.168.77.1 RoCE v2 eth1 → ::ffff:192.168.77.9") {
		t.Errorf("evidence %q does not say the move", got.Evidence)
	}
}

// A QP of the port that goes to ERR after its GID table moved is listed
// under the move, which shares the port with it and came first; one in
// ERR before the move is not.
func TestGIDMovedExplainsLaterQPErrors(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_800_000_000, 0)
	qpn := uint32(0x11)
	base := func(evs ...probes.Event) *probes.Snapshot {
		return &probes.Snapshot{Interval: 1, Ports: []probes.Port{{Device: "rxe0", Port: 1, Netdev: "eth1", State: "ACTIVE", LinkLayer: "Ethernet"}},
			QPs: []probes.QP{{Device: "rxe0", Port: 1, LQPN: qpn, Type: "RC", State: "RTS"}}, Events: evs}
	}
	moved := probes.Event{Time: t0, Source: "gid", Kind: "gid_removed", Severity: probes.SevWarning, Device: "rxe0", Port: 1,
		Detail: "index 1: ::ffff:192.168.77.1 RoCE v2 eth1 removed"}
	for _, tc := range []struct {
		name      string
		errAt     time.Duration // when the QP goes to ERR, after the move
		explained bool
	}{{"after", 2 * time.Second, true}, {"before", -3 * time.Second, false}} {
		e := NewEngine(p)
		var all []Finding
		for i := -4; i <= 4; i++ {
			at := t0.Add(time.Duration(i) * time.Second)
			s := base()
			if i == 0 {
				s = base(moved)
			}
			if at.Sub(t0) >= tc.errAt {
				s.QPs[0].State = "ERR"
				if at.Sub(t0) == tc.errAt {
					s.Events = append(s.Events, probes.Event{Time: at, Source: "qp", Kind: "qp_state", Severity: probes.SevCritical,
						Device: "rxe0", Port: 1, QPN: &qpn, Detail: "RTS -> ERR"})
				}
			}
			s.Time = at
			all = e.Evaluate(Frame{Time: at, Snapshot: s}).Findings
		}
		CheckNoFailures(t, e)
		var qpErr *Finding
		for i := range all {
			if all[i].Rule == "qp-error-state" {
				qpErr = &all[i]
			}
		}
		if qpErr == nil {
			t.Fatalf("%s: no qp-error-state: %+v", tc.name, all)
		}
		got := qpErr.ExplainedBy != nil && qpErr.ExplainedBy.Rule == "gid-moved"
		if got != tc.explained {
			t.Errorf("QP in ERR %s the GID move: explained by %+v, want gid-moved %v", tc.name, qpErr.ExplainedBy, tc.explained)
		}
	}
}
