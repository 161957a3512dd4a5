package capture

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// runningViewCheck replays path cut every iv, with a flow table of
// maxFlows (0: the default), and at every cut compares the running
// analysis a RunningView builds from RunningUpdates with Running's. It
// returns the number of cuts and of evictions seen.
func runningViewCheck(t *testing.T, path string, iv time.Duration, maxFlows int, skipEvery int) (cuts int, evicted uint64) {
	t.Helper()
	var view RunningView
	a := cutEach(t, path, iv, Config{TrackerConfig: TrackerConfig{MaxFlows: maxFlows}}, func(a *Analyzer, end int64) {
		cuts++
		// Now and then a tick without the update (a consumer that skipped
		// one): the next update must be whole, not stale.
		if skipEvery == 0 || cuts%skipEvery != 0 {
			got, want := view.Apply(a.RunningUpdate()), a.Running()
			if !reflect.DeepEqual(got, want) {
				diffSummaries(t, path, cuts, got, want)
			}
		}
		a.Cut(end)
	})
	return cuts, a.tracker.evicted
}

func diffSummaries(t *testing.T, path string, cut int, got, want *Summary) {
	t.Helper()
	if len(got.Flows) != len(want.Flows) {
		t.Fatalf("%s cut %d: the view has %d flows, Running %d", filepath.Base(path), cut, len(got.Flows), len(want.Flows))
	}
	for i := range got.Flows {
		if !reflect.DeepEqual(got.Flows[i], want.Flows[i]) {
			t.Fatalf("%s cut %d: flow %d differs:\nview    %+v\nRunning %+v", filepath.Base(path), cut, i, got.Flows[i], want.Flows[i])
		}
	}
	g, w := *got, *want
	g.Flows, w.Flows = nil, nil
	t.Fatalf("%s cut %d: the view's summary differs:\nview    %+v\nRunning %+v", filepath.Base(path), cut, g, w)
}

// The running analysis built outside the reader's lock (RunningUpdate
// under it, RunningView.Apply after) is Running's, field for field, at
// every cut of real captures: lossy and reordered Soft-RoCE, every public
// capture, with a flow table small enough that flows are evicted and
// their peers left waiting, and with ticks that skipped the update.
func TestRunningViewIsRunning(t *testing.T) {
	files, _ := filepath.Glob("../testdata/pcaps/*.pcap")
	more, _ := filepath.Glob("../testdata/rxe/pcap/*.pcap")
	files = append(files, more...)
	files = append(files, "../testdata/wiretruth/reorder-write/veth1.pcap.gz", "../testdata/wiretruth/loss1-reorder-write/veth1.pcap.gz")
	if len(files) < 10 {
		t.Fatalf("%d captures: the check needs testdata", len(files))
	}
	var cuts int
	var evicted uint64
	for _, f := range files {
		for _, c := range []struct {
			iv        time.Duration
			maxFlows  int
			skipEvery int
		}{{10 * time.Millisecond, 0, 0}, {time.Millisecond, 4, 0}, {3 * time.Millisecond, 2, 5}} {
			n, e := runningViewCheck(t, f, c.iv, c.maxFlows, c.skipEvery)
			cuts, evicted = cuts+n, evicted+e
		}
	}
	if evicted == 0 {
		t.Fatal("no flow was evicted: the check did not cover eviction")
	}
	t.Logf("%d captures, %d cuts, %d flows evicted", len(files), cuts, evicted)
}
