package saved

import (
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/nccl"
)

// ncclLog reads NCCL's debug output (NCCL_DEBUG=WARN or INFO), usually
// inside a job's log among the application's own lines: its warnings
// become events (completion errors with their status, peer, GIDs and HCA;
// asynchronous events; failed QP transitions), and so do the QPs its INFO
// lines show connected from a link-local GID and what its INFO lines say
// it chose (network, devices, GPUDirect RDMA, channels, settings). A section is NCCL's when
// any of its lines is in NCCL's debug format ("HOST:PID:TID [DEV] … NCCL
// LEVEL"), which no other output shares; the stricter formats are tried
// first.
func (l *loader) ncclLog(sec *section, in *Input) bool {
	p := nccl.NewParser()
	lines, events, warnings := 0, 0, 0
	for _, s := range sec.lines {
		line, ok := nccl.ParseLine(s)
		if !ok {
			continue
		}
		lines++
		if ev, ok := p.Event(line); ok {
			l.h.events = append(l.h.events, ev)
			events++
			if ev.Severity != probes.SevInfo {
				warnings++
			}
		}
	}
	if lines == 0 {
		return false
	}
	l.h.ncclLogs++
	in.read("%s, %s (warnings, what NCCL chose, QPs on link-local GIDs)", plural(lines, "NCCL log line"), plural(events, "event"))
	if other := len(nonBlank(sec.lines)) - lines; other > 0 {
		in.ignore("%s not in NCCL's format (the job's own output)", plural(other, "line"))
	}
	switch {
	case warnings == 0 && events > 0:
		in.ignore("no NCCL warning: what NCCL chose (network, devices, GPUDirect RDMA, topology paths) is judged, nothing else, which is not a clean bill of health")
	case warnings == 0:
		in.ignore("no NCCL warning: the log shows nothing wrong it can name, which is not a clean bill of health")
	}
	return true
}
