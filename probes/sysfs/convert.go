package sysfs

import (
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/alias"
)

// ProbeCounters converts a set to the snapshot model: Name is rdmatop's
// canonical name where the alias table maps the native one (else the
// native name), Value the raw reading, Unit the raw reading's unit
// ("4-byte words" for the PMA data counters, whose canonical names count
// bytes: multiply by Meta.BytesPerUnit), Width and Behavior from Meta.
// Delta, Rate and Note are left for probes.Rates.
func (s *CounterSet) ProbeCounters() []probes.Counter {
	out := make([]probes.Counter, 0, len(s.Counters))
	for _, c := range s.Counters {
		src := alias.SourceHWCounters
		if c.Source == SourcePMA {
			src = alias.SourceCounters
		}
		name := c.Name
		if m, ok := alias.MapFrom(s.Driver, src, c.Name); ok {
			name = m.Canonical
		}
		out = append(out, probes.Counter{
			Name:     name,
			Native:   c.Name,
			Source:   string(c.Source),
			Value:    c.Value,
			Unit:     c.Meta.Unit,
			Width:    c.Meta.Width(),
			Behavior: c.Meta.Behavior(),
		})
	}
	return out
}
