package probes

import "testing"

func TestRates(t *testing.T) {
	prev := []Counter{
		{Native: "a", Source: "hw_counters", Value: 100},
		{Native: "q", Source: "hw_counters", Value: 1<<32 - 5, Width: 32},
		{Native: "r", Source: "hw_counters", Value: 500},
		{Native: "a", Source: "ethtool", Value: 7}, // same name, other source
	}
	cur := []Counter{
		{Native: "a", Source: "hw_counters", Value: 300},
		{Native: "q", Source: "hw_counters", Value: 15, Width: 32},
		{Native: "r", Source: "hw_counters", Value: 2},
		{Native: "new", Source: "hw_counters", Value: 9},
		{Native: "a", Source: "ethtool", Value: 7},
	}
	Rates(prev, cur, 2)
	want := []struct {
		delta int64 // -1: absent
		rate  float64
		note  Note
	}{{200, 100, NoteNone}, {20, 10, NoteWrapped}, {-1, 0, NoteReset}, {-1, 0, NoteFirst}, {0, 0, NoteNone}}
	for i, w := range want {
		c := cur[i]
		if w.delta < 0 {
			if c.Delta != nil || c.Rate != nil || c.Note != w.note {
				t.Errorf("%s/%s: delta %v rate %v note %q, want none and %q", c.Source, c.Native, c.Delta, c.Rate, c.Note, w.note)
			}
			continue
		}
		if c.Delta == nil || *c.Delta != uint64(w.delta) || c.Rate == nil || *c.Rate != w.rate || c.Note != w.note {
			t.Errorf("%s/%s: got %v/%v %q, want %d/%v %q", c.Source, c.Native, c.Delta, c.Rate, c.Note, w.delta, w.rate, w.note)
		}
	}
}
