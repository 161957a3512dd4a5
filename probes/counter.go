package probes

// Counter is one counter in a snapshot, with its change since the previous
// snapshot. Value is always the raw reading; Delta and Rate are absent when
// they cannot be known (first sample, reset), never negative.
type Counter struct {
	Name   string   `json:"name" expr:"name"`     // canonical name, or the native one when no alias is known
	Native string   `json:"native" expr:"native"` // as the driver spells it
	Source string   `json:"source" expr:"source"` // counters, hw_counters, ethtool, rtnl, netlink
	Value  uint64   `json:"value" expr:"value"`
	Delta  *uint64  `json:"delta,omitempty" expr:"delta"`
	Rate   *float64 `json:"rate,omitempty" expr:"rate"` // per second, in Unit per second
	Unit   string   `json:"unit,omitempty" expr:"unit"` // packets, bytes, "4-byte words", events, us...
	Note   Note     `json:"note,omitempty" expr:"note"`

	Width    Width    `json:"-" expr:"-"`
	Behavior Behavior `json:"-" expr:"-"`
}

func (c *Counter) key() string { return c.Source + "\x00" + c.Native }

// Rates fills Delta, Rate and Note of every counter in cur from its match
// (same source and native name) in prev, dt seconds earlier. A counter
// without a match is a first sample.
func Rates(prev, cur []Counter, dt float64) {
	old := make(map[string]uint64, len(prev))
	for i := range prev {
		old[prev[i].key()] = prev[i].Value
	}
	for i := range cur {
		c := &cur[i]
		c.Delta, c.Rate = nil, nil
		p, ok := old[c.key()]
		if !ok {
			c.Note = NoteFirst
			if c.Behavior == NotCounter {
				c.Note = NoteGauge
			}
			continue
		}
		d, known, note := Delta(p, c.Value, c.Width, c.Behavior)
		c.Note = note
		if !known {
			continue
		}
		c.Delta = &d
		if dt > 0 {
			r := float64(d) / dt
			c.Rate = &r
		}
	}
}
