package sampler

import (
	"fmt"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/nccl"
)

// ncclEvents turns the NCCL log lines of a sample into events, timed at
// the sample: NCCL's lines carry no date unless the job set
// NCCL_DEBUG_TIMESTAMP_FORMAT, and a line read now was written since the
// last sample (or, at the first, in the tail read at the start, which the
// event says).
func (s *Sampler) ncclEvents(b *nccl.Batch, now time.Time, snap *probes.Snapshot) {
	if s.nccl == nil {
		s.nccl = nccl.NewParser()
	}
	first := s.ticks == 0
	for _, line := range b.Lines {
		ev, ok := s.nccl.Line(line)
		if !ok {
			continue
		}
		ev.Time = now
		if first {
			ev.Detail += " (in the log before rdmatop started)"
		}
		snap.Events = append(snap.Events, ev)
	}
	if b.Skipped > 0 && !first {
		snap.Events = append(snap.Events, probes.Event{Time: now, Source: "nccl", Kind: "nccl_log_skipped", Severity: probes.SevWarning,
			Detail: fmt.Sprintf("%d bytes of the NCCL log were skipped: it grew faster than rdmatop reads (%d MiB a sample)", b.Skipped, nccl.FollowMax>>20)})
	}
}
