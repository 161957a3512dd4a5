package sysfs

import (
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/alias"
)

// ProbeCounters converts a set to the snapshot model: Name is rdmatop's
// canonical name where the alias table maps the native one (else the
// native name), Value the reading and Unit its unit, Width and Behavior
// the native reading's, from Meta, and Saturated when the reading is
// stuck at its maximum. Where the mapping scales (the PMA data
// counters count 4-byte words, their canonical names bytes) Value and
// Unit are the canonical ones and NativeValue keeps the reading. Delta,
// Rate and Note are left for probes.Rates.
func (s *CounterSet) ProbeCounters() []probes.Counter {
	out := make([]probes.Counter, 0, len(s.Counters))
	for _, c := range s.Counters {
		src := alias.SourceHWCounters
		if c.Source == SourcePMA {
			src = alias.SourceCounters
		}
		pc := probes.Counter{
			Name:      c.Name,
			Native:    c.Name,
			Source:    string(c.Source),
			Value:     c.Value,
			Unit:      c.Meta.Unit,
			Width:     c.Meta.Width(),
			Behavior:  c.Meta.Behavior(),
			Saturated: c.Saturated(),
		}
		if m, ok := alias.MapFrom(s.Driver, src, c.Name); ok {
			pc.Name = m.Canonical
			pc.SetScale(m.Scale, alias.Lookup(m.Canonical).Unit)
		}
		out = append(out, pc)
	}
	return out
}
