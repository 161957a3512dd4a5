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

// A scaled counter (IBTA data counters count 4-byte words) carries its
// canonical value; its delta is worked out on the native reading at the
// native width (a 32-bit word counter wraps at 2^32 words, not bytes),
// then scaled, and so is its rate.
func TestRatesScaled(t *testing.T) {
	const u32 = 1<<32 - 1
	mk := func(words uint64, w Width, b Behavior) Counter {
		c := Counter{Name: "tx_bytes", Native: "port_xmit_data", Source: "counters", Value: words, Unit: "4-byte words", Width: w, Behavior: b}
		c.SetScale(4, "bytes")
		return c
	}
	for _, x := range []struct {
		name       string
		prev, cur  uint64
		w          Width
		b          Behavior
		delta      int64 // bytes; -1 absent
		note       Note
		wantValue  uint64
		wantNative uint64
	}{
		{"grows", 1000, 1500, 0, Saturates, 2000, NoteNone, 6000, 1500},
		{"32-bit wrap", u32 - 99, 50, 32, Wraps, 600, NoteWrapped, 200, 50},
		{"32-bit saturated", u32 - 10, u32, 32, Saturates, 40, NoteSaturated, 4 * u32, u32},
		{"reset", 1 << 40, 7, 0, Wraps, -1, NoteReset, 28, 7},
	} {
		prev, cur := []Counter{mk(x.prev, x.w, x.b)}, []Counter{mk(x.cur, x.w, x.b)}
		Rates(prev, cur, 2)
		c := cur[0]
		if c.Value != x.wantValue || c.NativeValue == nil || *c.NativeValue != x.wantNative || c.Unit != "bytes" || c.Note != x.note {
			t.Errorf("%s: value %d native %v unit %q note %q", x.name, c.Value, c.NativeValue, c.Unit, c.Note)
		}
		if x.delta < 0 {
			if c.Delta != nil || c.Rate != nil {
				t.Errorf("%s: delta %v rate %v, want none", x.name, c.Delta, c.Rate)
			}
			continue
		}
		if c.Delta == nil || *c.Delta != uint64(x.delta) || c.Rate == nil || *c.Rate != float64(x.delta)/2 {
			t.Errorf("%s: delta %v rate %v, want %d and %v", x.name, c.Delta, c.Rate, x.delta, float64(x.delta)/2)
		}
	}
	// Scale 1 leaves a counter as it is: no native_value.
	c := Counter{Value: 5, Unit: "packets"}
	c.SetScale(1, "bytes")
	if c.NativeValue != nil || c.Value != 5 || c.Unit != "packets" {
		t.Errorf("scale 1: %+v", c)
	}
	// SetScale twice does not compound.
	c = mk(10, 0, Wraps)
	c.SetScale(4, "bytes")
	if c.Value != 40 || *c.NativeValue != 10 {
		t.Errorf("SetScale twice: %+v", c)
	}
	// A native reading too large to scale saturates instead of wrapping.
	c = mk(1<<63, 0, Wraps)
	if c.Value != ^uint64(0) {
		t.Errorf("overflow: %d", c.Value)
	}
}
