package monitor

import (
	"fmt"
	"testing"
	"time"
)

// Every wire event of a real lossy capture names the flow its anomaly is
// about, as the interval's flow table has it (found here by a plain
// search), and an anomaly whose flow the interval does not list still
// says its flow's number.
func TestWireEventsNameTheirFlows(t *testing.T) {
	frames, _ := replayFrames(t, lossy, 100*time.Millisecond, false)
	named := 0
	for _, f := range frames {
		iv := f.Interval
		evs := wireEvents(iv)
		if len(evs) != len(iv.Anomalies) {
			t.Fatalf("frame %d: %d events of %d anomalies", f.Seq, len(evs), len(iv.Anomalies))
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
				t.Errorf("frame %d anomaly %d: event %q QPN %v, want %q QPN %v", f.Seq, i, e.Detail, e.QPN, want, qp)
			}
			if qp != nil {
				named++
			}
		}
	}
	if named == 0 {
		t.Fatal("no wire event named a flow: lossy1 has PSN gaps on its flows")
	}
	t.Logf("%d events named their flow", named)
}
