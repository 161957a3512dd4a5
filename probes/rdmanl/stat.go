package rdmanl

import "github.com/rdmatop/rdmatop/internal/nlmsg"

// Counter is one hardware counter.
type Counter struct {
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// PortStats are the default hardware counters of one port (STAT_GET), in
// the order the driver lists them. Names are the sysfs hw_counters/ names
// (without "lifespan"); values include the counters bound to QPs.
type PortStats struct {
	DevIndex uint32    `json:"dev_index"`
	Dev      string    `json:"dev"`
	Port     uint32    `json:"port"`
	Counters []Counter `json:"counters"`
}

// Map returns the counters by name.
func (s PortStats) Map() map[string]uint64 {
	m := make(map[string]uint64, len(s.Counters))
	for _, c := range s.Counters {
		m[c.Name] = c.Value
	}
	return m
}

// ParseStats decodes the replies to StatGetRequest.
func ParseStats(replies [][]byte) ([]PortStats, error) { return parseStatsIn(nlmsg.Native, replies) }

func parseStatsIn(o nlmsg.Order, replies [][]byte) ([]PortStats, error) {
	msgs, err := replyMessages(o, replies, CmdStatGet)
	if err != nil {
		return nil, err
	}
	out := make([]PortStats, 0, len(msgs))
	for _, m := range msgs {
		s, err := parseStats(m)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func parseStats(m nlmsg.Message) (PortStats, error) {
	var s PortStats
	as, err := m.Attrs(0)
	if err != nil {
		return s, err
	}
	for _, a := range as {
		switch a.Type {
		case attrDevIndex:
			s.DevIndex, err = a.U32()
		case attrDevName:
			s.Dev = a.String()
		case attrPortIndex:
			s.Port, err = a.U32()
		case attrStatHWCounters:
			s.Counters, err = parseHWCounters(s.Counters, a)
		}
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

func parseHWCounters(out []Counter, nest nlmsg.Attr) ([]Counter, error) {
	entries, err := nest.Attrs()
	if err != nil {
		return out, err
	}
	for _, e := range entries {
		if e.Type != attrStatHWCntEntry {
			continue
		}
		as, err := e.Attrs()
		if err != nil {
			return out, err
		}
		var c Counter
		var named, valued bool
		for _, a := range as {
			switch a.Type {
			case attrStatHWCntName:
				c.Name, named = a.String(), true
			case attrStatHWCntValue:
				if c.Value, err = a.U64(); err != nil {
					return out, err
				}
				valued = true
			}
		}
		if named && valued {
			out = append(out, c)
		}
	}
	return out, nil
}
