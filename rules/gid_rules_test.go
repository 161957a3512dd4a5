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
