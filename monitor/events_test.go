package monitor

import (
	"fmt"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
)

// Every wire event of a real lossy capture names the flow its anomaly is
// about, as the interval's flow table has it (found here by a plain
// search). lossy1's intervals list every anomaly's flow, so each is also
// checked with its flows left out: an anomaly whose flow the interval
// does not list still says its flow's number, with no QP.
func TestWireEventsNameTheirFlows(t *testing.T) {
	frames, _ := replayFrames(t, lossy, 100*time.Millisecond, false)
	named, unlisted := 0, 0
	for _, f := range frames {
		bare := *f.Interval
		bare.Flows = nil
		for _, iv := range []*capture.Summary{f.Interval, &bare} {
			named, unlisted = checkWireEvents(t, f.Seq, iv, named, unlisted)
		}
	}
	if named == 0 || unlisted == 0 {
		t.Fatalf("%d wire events named a flow and %d an unlisted one: lossy1 has PSN gaps on its flows", named, unlisted)
	}
	t.Logf("%d events named their flow, %d an unlisted flow", named, unlisted)
}

// checkWireEvents checks the events of one interval and counts those
// that named a listed flow and an unlisted one.
func checkWireEvents(t *testing.T, seq int, iv *capture.Summary, named, unlisted int) (int, int) {
	t.Helper()
	evs := wireEvents(iv)
	if len(evs) != len(iv.Anomalies) {
		t.Fatalf("frame %d: %d events of %d anomalies", seq, len(evs), len(iv.Anomalies))
	}
	for i, a := range iv.Anomalies {
		e := evs[i]
		want, qp := a.Detail, (*uint32)(nil)
		for j := range iv.Flows {
			if fl := &iv.Flows[j]; fl.ID == a.FlowID {
				q := uint32(fl.DestQP)
				want, qp = fmt.Sprintf("flow %d %s -> %s: %s", fl.ID, fl.Src, fl.Dst, a.Detail), &q
			}
		}
		if qp == nil && a.FlowID != 0 {
			want = fmt.Sprintf("flow %d: %s", a.FlowID, a.Detail)
		}
		if e.Detail != want || (qp == nil) != (e.QPN == nil) || qp != nil && *qp != *e.QPN {
			t.Errorf("frame %d anomaly %d: event %q QPN %v, want %q QPN %v", seq, i, e.Detail, e.QPN, want, qp)
		}
		if qp != nil {
			named++
		} else if a.FlowID != 0 {
			unlisted++
		}
	}
	return named, unlisted
}
