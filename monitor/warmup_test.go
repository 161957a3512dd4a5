package monitor

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/rules"
)

// firstEventHost reports one event, in its first sample only: an NCCL
// warning read from the tail of a job's log when rdmatop started.
type firstEventHost struct{ n int }

func (h *firstEventHost) Sample(_ context.Context, now time.Time) (*probes.Snapshot, *bundle.Tick, error) {
	s := &probes.Snapshot{Time: now, Host: probes.HostInfo{Hostname: "fake"}, Devices: []probes.Device{},
		Ports: []probes.Port{}, QPs: []probes.QP{}, Events: []probes.Event{}}
	if h.n == 0 {
		st := 12
		s.Events = append(s.Events, probes.Event{Time: now, Source: "nccl", Kind: "nccl_completion_error", Severity: probes.SevCritical,
			Device: "mlx5_1", Detail: "NET/IB: Got completion from peer 10.0.0.2<40554> with status=IBV_WC_RETRY_EXC_ERR(12)",
			NCCL: &probes.NCCLError{Host: "node1", PID: 42, Status: &st, StatusName: "IBV_WC_RETRY_EXC_ERR", Peer: "10.0.0.2"}})
	}
	h.n++
	return s, &bundle.Tick{Time: now}, nil
}

// --once judges the second of two samples; what the first saw is judged
// with it, not dropped.
func TestWarmupEventsJudgedWithFirstJudgedFrame(t *testing.T) {
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{Host: &firstEventHost{}, Interval: time.Millisecond, Ticks: 2, Warmup: 1, OneShot: true, Pack: pack})
	if err != nil {
		t.Fatal(err)
	}
	var frames []Frame
	for f, err := range r.Frames(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	if len(frames) != 2 {
		t.Fatalf("%d frames", len(frames))
	}
	last := frames[1]
	if !slices.ContainsFunc(last.Snapshot.Events, func(e probes.Event) bool { return e.Source == "nccl" }) {
		t.Errorf("the judged frame lacks the warm-up's event: %+v", last.Snapshot.Events)
	}
	if !slices.ContainsFunc(last.Findings, func(f rules.Finding) bool { return f.Rule == "nccl-retry-exceeded" }) {
		t.Errorf("findings %v", last.Findings)
	}
	if n := len(frames[0].Snapshot.Events); n != 1 {
		t.Errorf("the warm-up frame's own snapshot changed: %d events", n)
	}
}
