package rules

import "github.com/rdmatop/rdmatop/probes"

// counterSet is one port's counters with an index by name: a port has a
// hundred counters and its conditions look dozens of them up per frame.
// The engine keeps one per port place and rebuilds the index only when
// the port's counter names change (they do not from one sample to the
// next).
type counterSet struct {
	list  []probes.Counter
	names []string         // list's canonical and native names when the index was built
	index map[string]int32 // canonical and native name → place in list
}

// set points s at list, rebuilding the index when the names differ.
func (s *counterSet) set(list []probes.Counter) {
	s.list = list
	if len(s.names) == 2*len(list) {
		same := true
		for i := range list {
			if list[i].Name != s.names[2*i] || list[i].Native != s.names[2*i+1] {
				same = false
				break
			}
		}
		if same && s.index != nil {
			return
		}
	}
	if s.index == nil {
		s.index = make(map[string]int32, 2*len(list))
	}
	clear(s.index)
	s.names = s.names[:0]
	// A name is the first counter's that has it, canonical or native.
	for i := range list {
		s.names = append(s.names, list[i].Name, list[i].Native)
		for _, n := range [2]string{list[i].Name, list[i].Native} {
			if _, dup := s.index[n]; !dup && n != "" {
				s.index[n] = int32(i)
			}
		}
	}
}

// get returns the counter called name (canonical or native), nil when
// the port has none (or s is nil: no port).
func (s *counterSet) get(name string) *probes.Counter {
	if s == nil {
		return nil
	}
	if i, ok := s.index[name]; ok {
		return &s.list[i]
	}
	return nil
}
