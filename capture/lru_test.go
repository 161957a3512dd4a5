package capture

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/rdmatop/rdmatop/capture/scenario"
)

func TestRecency(t *testing.T) {
	var r recency
	f := make([]*Flow, 4)
	for i := range f {
		f[i] = &Flow{id: i + 1}
		r.pushNewest(f[i])
	}
	order := func() (ids []int) {
		for x := r.newest; x != nil; x = x.older {
			ids = append(ids, x.id)
		}
		return ids
	}
	r.remove(f[1]) // a middle one
	r.pushNewest(f[1])
	r.remove(f[0]) // the oldest
	r.remove(f[1]) // the newest
	if got := order(); len(got) != 2 || got[0] != 4 || got[1] != 3 || r.oldest != f[2] {
		t.Errorf("order %v, oldest %d; want [4 3], 3", got, r.oldest.id)
	}
	r.remove(f[2])
	r.remove(f[3])
	if r.newest != nil || r.oldest != nil {
		t.Error("emptied list still holds flows")
	}
}

// A full flow table evicts exactly the least recently seen flow, so a
// capture gives the same analysis on every run (eviction once sampled
// the map, whose order Go randomises).
func TestEvictionExactAndDeterministic(t *testing.T) {
	frames, err := scenario.FabricFrames(12)
	if err != nil {
		t.Fatal(err)
	}
	run := func() *Summary {
		a := NewAnalyzer(Config{TrackerConfig: TrackerConfig{MaxFlows: 4}})
		for _, f := range frames {
			a.Packet(f.Data, f.CI, layers.LinkTypeEthernet)
		}
		return a.Summary()
	}
	first := run()
	b0, _ := json.Marshal(first)
	for range 5 {
		if b, _ := json.Marshal(run()); !bytes.Equal(b, b0) {
			t.Fatal("two runs of the same capture differ")
		}
	}
	// The connections follow one another, and each ends with a SEND from
	// A after B's ACKs: B's flow (even ID) is older than A's (odd ID), so
	// the victims are 2, 1, 4, 3, ….
	n := 0
	for _, an := range first.Anomalies {
		if an.Kind != "flow_evicted" {
			continue
		}
		want := n + 2 // 2, 1, 4, 3, …
		if n%2 == 1 {
			want = n
		}
		if an.FlowID != want {
			t.Errorf("eviction %d dropped flow %d, want %d (the least recently seen)", n+1, an.FlowID, want)
		}
		n++
	}
	if n != 24-4 || first.FlowsEvicted != 20 || len(first.Flows) != 4 {
		t.Errorf("%d evictions logged, %d counted, %d flows left; want 20, 20, 4", n, first.FlowsEvicted, len(first.Flows))
	}
}

// An interval that touches more flows than the table holds lists the
// flows still in the table, and its totals still count what the evicted
// ones did in it: the same as the whole capture's.
func TestIntervalWithEvictions(t *testing.T) {
	frames, err := scenario.FabricFrames(12)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAnalyzer(Config{TrackerConfig: TrackerConfig{MaxFlows: 4}})
	a.Begin(0)
	var last int64
	for _, f := range frames {
		a.Packet(f.Data, f.CI, layers.LinkTypeEthernet)
		last = f.CI.Timestamp.UnixNano()
	}
	iv := a.Cut(last + 1)
	whole := a.Summary()
	if iv.Totals != whole.Totals {
		t.Errorf("interval totals\n %+v\nwhole capture\n %+v", iv.Totals, whole.Totals)
	}
	if len(iv.Flows) != 4 || iv.Totals.Flows != 24 || iv.FlowsEvicted != 20 {
		t.Errorf("interval: %d flows listed, %d counted, %d evicted; want 4, 24, 20", len(iv.Flows), iv.Totals.Flows, iv.FlowsEvicted)
	}
	n := 0
	a.tracker.touched.each(func(tc *touched) { n++ })
	if n != 0 {
		t.Errorf("the touch log holds %d entries after the cut", n)
	}
}

// EndIntervals lets the touch log go and leaves the analysis as it was.
func TestEndIntervals(t *testing.T) {
	frames, err := scenario.FabricFrames(12)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAnalyzer(Config{})
	a.Begin(0)
	for _, f := range frames {
		a.Packet(f.Data, f.CI, layers.LinkTypeEthernet)
	}
	a.Cut(frames[len(frames)-1].CI.Timestamp.UnixNano() + 1)
	before, _ := json.Marshal(a.Summary())
	if len(a.tracker.touched.chunks) == 0 {
		t.Fatal("the cut kept no touch-log chunk: nothing to let go")
	}
	a.EndIntervals()
	after, _ := json.Marshal(a.Summary())
	if len(a.tracker.touched.chunks) != 0 || !bytes.Equal(before, after) {
		t.Errorf("after EndIntervals: %d chunks kept, summary unchanged %v", len(a.tracker.touched.chunks), bytes.Equal(before, after))
	}
}
