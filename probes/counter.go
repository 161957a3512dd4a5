package probes

import (
	"math"
	"math/bits"
)

// Counter is one counter in a snapshot, with its change since the previous
// snapshot. Value, Delta and Rate are in Unit. Delta and Rate are absent
// when they cannot be known (first sample, reset), never negative.
//
// A canonical counter whose driver counts in another unit carries the
// canonical one: IBTA port_xmit_data counts 4-byte words, so tx_bytes has
// Value = words × 4 and Unit "bytes", and NativeValue keeps the words.
// Deltas, wraps and saturation are worked out on the native reading, at
// its native width, and then scaled.
type Counter struct {
	Name   string `json:"name" expr:"name"`     // canonical name, or the native one when no alias is known
	Native string `json:"native" expr:"native"` // as the driver spells it
	Source string `json:"source" expr:"source"` // counters, hw_counters, ethtool, rtnl, netlink
	Value  uint64 `json:"value" expr:"value"`   // the reading, in Unit
	// NativeValue is the driver's reading when Value is scaled from it
	// (see SetScale); absent when Value is the reading itself.
	NativeValue *uint64  `json:"native_value,omitempty" expr:"native_value"`
	Delta       *uint64  `json:"delta,omitempty" expr:"delta"`
	Rate        *float64 `json:"rate,omitempty" expr:"rate"` // per second, in Unit per second
	Unit        string   `json:"unit,omitempty" expr:"unit"` // packets, bytes, events, us...
	Note        Note     `json:"note,omitempty" expr:"note"`
	// Saturated: the reading is stuck at its maximum (an IBTA PMA counter
	// at 2^width-1, or any counter at 2^64-1): the value is a lower bound
	// and the counter says nothing more until it is reset.
	Saturated bool `json:"saturated,omitempty" expr:"saturated"`
	// StaleS, on a counter noted stale, is the age in seconds of Value:
	// the last reading, carried forward because its source (or its file)
	// did not answer in this sample. Absent on a fresh reading.
	StaleS *float64 `json:"stale_s,omitempty" expr:"stale_s"`

	Width    Width    `json:"-" expr:"-"` // of the native reading
	Behavior Behavior `json:"-" expr:"-"`
	Scale    uint64   `json:"-" expr:"-"` // Value = native reading × Scale; 0 and 1 mean unscaled
}

func (c *Counter) key() string { return c.Source + "\x00" + c.Native }

// SetScale moves a counter that holds its native reading to its canonical
// unit: NativeValue keeps the reading, Value becomes reading × scale and
// Unit unit. A scale of 0 or 1 changes nothing.
func (c *Counter) SetScale(scale uint64, unit string) {
	if scale <= 1 {
		return
	}
	v := c.native()
	c.NativeValue = &v
	c.Scale = scale
	c.Value = mulSat(v, scale)
	c.Unit = unit
}

// native is the driver's reading.
func (c *Counter) native() uint64 {
	if c.NativeValue != nil {
		return *c.NativeValue
	}
	return c.Value
}

// mulSat is a×b, or the largest uint64 when that overflows (a 64-bit
// word counter past 2^62: centuries at 400 Gb/s).
func mulSat(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

// RateFrom fills Delta, Rate and Note of c from prev, the same counter dt
// seconds earlier; prev nil is a first sample.
func (c *Counter) RateFrom(prev *Counter, dt float64) {
	c.Delta, c.Rate = nil, nil
	if prev == nil {
		c.Note = NoteFirst
		if c.Behavior == NotCounter {
			c.Note = NoteGauge
		}
		return
	}
	d, known, note := Delta(prev.native(), c.native(), c.Width, c.Behavior)
	c.Note = note
	if !known {
		return
	}
	if c.Scale > 1 {
		d = mulSat(d, c.Scale)
	}
	c.Delta = &d
	if dt > 0 {
		r := float64(d) / dt
		c.Rate = &r
	}
}

// Rates fills Delta, Rate and Note of every counter in cur from its match
// (same source and native name) in prev, dt seconds earlier. A counter
// without a match is a first sample.
func Rates(prev, cur []Counter, dt float64) {
	old := make(map[string]*Counter, len(prev))
	for i := range prev {
		old[prev[i].key()] = &prev[i]
	}
	for i := range cur {
		cur[i].RateFrom(old[cur[i].key()], dt)
	}
}
