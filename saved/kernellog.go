package saved

import (
	"strings"

	"github.com/rdmatop/rdmatop/probes/kmsg"
)

// kernelLog reads dmesg (plain, -T, -r, with callers), journalctl -k and
// syslog excerpts: the lines rdmatop classifies become events.
func (l *loader) kernelLog(sec *section, in *Input) bool {
	lines := nonBlank(sec.lines)
	if len(lines) == 0 {
		return false
	}
	prefixed := 0
	for _, s := range lines {
		if _, ok := kmsg.ParseText(s); ok {
			prefixed++
		}
	}
	// Continuation lines (indented) have no prefix; most lines do.
	if prefixed == 0 || prefixed*5 < len(lines)*3 {
		return false
	}
	recs := kmsg.ParseLines(strings.Join(sec.lines, "\n"))
	n := 0
	for _, r := range recs {
		e, ok := kmsg.Classify(r)
		if !ok {
			continue
		}
		l.kevents = append(l.kevents, e)
		n++
	}
	in.read("%s, %d of them RDMA/NIC events", plural(len(recs), "kernel log line"), n)
	if n < len(recs) {
		in.ignore("%d lines rdmatop does not classify", len(recs)-n)
	}
	if len(recs) > 0 && recs[0].Wall.IsZero() {
		in.ignore("times since boot only (dmesg without -T): events carry no wall time")
	}
	return true
}

// finishEvents puts the kernel log's events on the RDMA devices the other
// inputs name: a line naming only a netdev goes to the port on it.
func (l *loader) finishEvents() {
	m := kmsg.DeviceMap{ByNetdev: map[string]string{}}
	for _, p := range l.h.ports {
		if p.netdev != "" {
			m.ByNetdev[p.netdev] = p.device
		}
	}
	// sos saves both `dmesg` and `dmesg -T`: a line seen twice is one
	// event, taken with its wall time when one copy has it.
	seen := map[string]int{}
	for _, e := range l.kevents {
		m.Fill(&e)
		if i, dup := seen[e.Message]; dup {
			if !e.Wall.IsZero() && l.h.events[i].Time.IsZero() {
				l.h.events[i].Time = e.Wall
			}
			continue
		}
		seen[e.Message] = len(l.h.events)
		ev := e.Snapshot(timeZero)
		if !e.Wall.IsZero() {
			ev.Time = e.Wall
		}
		l.h.events = append(l.h.events, ev)
	}
}
